CREATE TABLE "identity_checks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"job_participant_id" uuid NOT NULL,
	"user_id" uuid,
	"policy_code" text NOT NULL,
	"status" text DEFAULT 'in_progress' NOT NULL,
	"statement_sealed" text NOT NULL,
	"credential_status" text DEFAULT 'pending' NOT NULL,
	"document_type" text,
	"credential_fields" jsonb,
	"credential_checks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"document_number_sealed" text,
	"credential_attempts" integer DEFAULT 0 NOT NULL,
	"selfie_received_at" timestamp with time zone,
	"review_decision" text,
	"review_reason" text,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"resume_token_hash" text,
	"resume_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ready_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"purge_after" timestamp with time zone NOT NULL,
	"purged_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity_images" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"check_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"storage_key" text,
	"data_key_sealed" text,
	"content_type" text NOT NULL,
	"bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"purged_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity_kba_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"check_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"provider" text NOT NULL,
	"question_keys" jsonb NOT NULL,
	"quiz" jsonb,
	"started_at" timestamp with time zone NOT NULL,
	"deadline_at" timestamp with time zone NOT NULL,
	"submitted_at" timestamp with time zone,
	"passed" boolean,
	"timed_out" boolean,
	"correct" integer,
	"total" integer
);
--> statement-breakpoint
ALTER TABLE "job_participants" ADD COLUMN "id_bypass_method" text;--> statement-breakpoint
ALTER TABLE "identity_checks" ADD CONSTRAINT "identity_checks_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_checks" ADD CONSTRAINT "identity_checks_job_participant_id_job_participants_id_fk" FOREIGN KEY ("job_participant_id") REFERENCES "public"."job_participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_checks" ADD CONSTRAINT "identity_checks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_checks" ADD CONSTRAINT "identity_checks_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_images" ADD CONSTRAINT "identity_images_check_id_identity_checks_id_fk" FOREIGN KEY ("check_id") REFERENCES "public"."identity_checks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_kba_attempts" ADD CONSTRAINT "identity_kba_attempts_check_id_identity_checks_id_fk" FOREIGN KEY ("check_id") REFERENCES "public"."identity_checks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "identity_checks_current_key" ON "identity_checks" USING btree ("job_participant_id") WHERE "identity_checks"."status" <> 'expired';--> statement-breakpoint
CREATE UNIQUE INDEX "identity_checks_resume_key" ON "identity_checks" USING btree ("resume_token_hash");--> statement-breakpoint
CREATE INDEX "identity_checks_job_idx" ON "identity_checks" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "identity_checks_purge_idx" ON "identity_checks" USING btree ("purge_after") WHERE "identity_checks"."purged_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "identity_images_check_kind_key" ON "identity_images" USING btree ("check_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "identity_kba_attempts_check_attempt_key" ON "identity_kba_attempts" USING btree ("check_id","attempt");