CREATE TABLE "job_charges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"company_id" uuid,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"unit" text NOT NULL,
	"fee_kind" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_amount_cents" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"price_source" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_charges_amount" CHECK ("job_charges"."quantity" > 0 and "job_charges"."unit_amount_cents" >= 0 and "job_charges"."amount_cents" = "job_charges"."quantity"::bigint * "job_charges"."unit_amount_cents")
);
--> statement-breakpoint
ALTER TABLE "job_charges" ADD CONSTRAINT "job_charges_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_charges" ADD CONSTRAINT "job_charges_company_id_title_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."title_companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "job_charges_job_key" ON "job_charges" USING btree ("job_id","key");--> statement-breakpoint
CREATE INDEX "job_charges_company_idx" ON "job_charges" USING btree ("company_id","created_at");