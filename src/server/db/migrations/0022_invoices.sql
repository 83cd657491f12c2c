CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" uuid NOT NULL,
	"period_start" date NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"number" text,
	"notarial_fee_cents" bigint DEFAULT 0 NOT NULL,
	"platform_fee_cents" bigint DEFAULT 0 NOT NULL,
	"total_cents" bigint DEFAULT 0 NOT NULL,
	"job_count" integer DEFAULT 0 NOT NULL,
	"billed_to" jsonb,
	"issued_at" timestamp with time zone,
	"issued_by" uuid,
	"due_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"paid_by" uuid,
	"payment_reference" text,
	"voided_at" timestamp with time zone,
	"voided_by" uuid,
	"void_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_total" CHECK ("invoices"."total_cents" = "invoices"."notarial_fee_cents" + "invoices"."platform_fee_cents"),
	CONSTRAINT "invoices_void_reason" CHECK ("invoices"."status" <> 'void' or "invoices"."void_reason" is not null)
);
--> statement-breakpoint
ALTER TABLE "job_charges" ADD COLUMN "invoice_id" uuid;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_company_id_title_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."title_companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_issued_by_users_id_fk" FOREIGN KEY ("issued_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_paid_by_users_id_fk" FOREIGN KEY ("paid_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_voided_by_users_id_fk" FOREIGN KEY ("voided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_one_draft" ON "invoices" USING btree ("company_id","period_start") WHERE "invoices"."status" = 'draft';--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE INDEX "invoices_company_idx" ON "invoices" USING btree ("company_id","period_start");--> statement-breakpoint
CREATE INDEX "invoices_status_due_idx" ON "invoices" USING btree ("status","due_at");--> statement-breakpoint
ALTER TABLE "job_charges" ADD CONSTRAINT "job_charges_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_charges_invoice_idx" ON "job_charges" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "job_charges_uninvoiced_idx" ON "job_charges" USING btree ("company_id","created_at") WHERE "job_charges"."invoice_id" is null;