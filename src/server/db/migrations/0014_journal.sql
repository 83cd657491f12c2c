CREATE TABLE "notary_journal_addenda" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entry_id" uuid NOT NULL,
	"text" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notary_journal_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notary_id" uuid NOT NULL,
	"job_id" uuid,
	"document_id" uuid,
	"participant_id" uuid,
	"status" text DEFAULT 'draft' NOT NULL,
	"is_test" boolean DEFAULT false NOT NULL,
	"content" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finalized_at" timestamp with time zone,
	"kept_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "notary_journal_addenda" ADD CONSTRAINT "notary_journal_addenda_entry_id_notary_journal_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."notary_journal_entries"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_journal_addenda" ADD CONSTRAINT "notary_journal_addenda_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_journal_entries" ADD CONSTRAINT "notary_journal_entries_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_journal_entries" ADD CONSTRAINT "notary_journal_entries_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_journal_entries" ADD CONSTRAINT "notary_journal_entries_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."documents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_journal_entries" ADD CONSTRAINT "notary_journal_entries_participant_id_job_participants_id_fk" FOREIGN KEY ("participant_id") REFERENCES "public"."job_participants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notary_journal_entries_act_key" ON "notary_journal_entries" USING btree ("job_id","document_id","participant_id");--> statement-breakpoint
CREATE INDEX "notary_journal_entries_notary_idx" ON "notary_journal_entries" USING btree ("notary_id","finalized_at") WHERE "notary_journal_entries"."status" = 'final';