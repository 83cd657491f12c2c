CREATE TABLE "company_job_types" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"notarization_type" text NOT NULL,
	"document_tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"witness_count" integer DEFAULT 0 NOT NULL,
	"instructions" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "invites" ADD COLUMN "company_id" uuid;--> statement-breakpoint
ALTER TABLE "invites" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "city" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "state" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "address_line" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "contact_email" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "closed_by" uuid;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "default_notary_id" uuid;--> statement-breakpoint
ALTER TABLE "title_company_members" ADD COLUMN "id" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "job_type_id" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "notary_instructions" text;--> statement-breakpoint
ALTER TABLE "company_job_types" ADD CONSTRAINT "company_job_types_company_id_title_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."title_companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "company_job_types_company_name_key" ON "company_job_types" USING btree ("company_id",lower("name")) WHERE "company_job_types"."deleted_at" is null;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_company_id_title_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."title_companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "title_companies" ADD CONSTRAINT "title_companies_closed_by_users_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "title_companies" ADD CONSTRAINT "title_companies_default_notary_id_users_id_fk" FOREIGN KEY ("default_notary_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_job_type_id_company_job_types_id_fk" FOREIGN KEY ("job_type_id") REFERENCES "public"."company_job_types"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "title_companies_name_state_key" ON "title_companies" USING btree (lower("name"),"state") WHERE "title_companies"."closed_at" is null and "title_companies"."approval_status" <> 'rejected';--> statement-breakpoint
CREATE INDEX "title_companies_default_notary_idx" ON "title_companies" USING btree ("default_notary_id");--> statement-breakpoint
CREATE INDEX "title_company_members_user_idx" ON "title_company_members" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "title_company_members" ADD CONSTRAINT "title_company_members_id_key" UNIQUE("id");--> statement-breakpoint
-- Decision 043: a company job belongs to its company. Its creator sees it while they are a member of
-- that company, like their colleagues; one who leaves the company (removed, or the company closed)
-- loses it with the rest of the company's jobs. A job without a company stays its creator's.
CREATE OR REPLACE VIEW "job_access_rules" AS
  SELECT j.created_by AS user_id, j.id AS job_id, 1 AS via FROM jobs j
    WHERE j.created_by IS NOT NULL
      AND (j.company_id IS NULL OR EXISTS (SELECT 1 FROM title_company_members m
        WHERE m.company_id = j.company_id AND m.user_id = j.created_by AND m.role IN ('title', 'title_agent')))
  UNION ALL SELECT j.notary_id, j.id, 2 FROM jobs j WHERE j.notary_id IS NOT NULL
  UNION ALL SELECT m.user_id, j.id, 4 FROM jobs j JOIN title_company_members m ON m.company_id = j.company_id AND m.role IN ('title', 'title_agent')
  UNION ALL SELECT p.user_id, p.job_id, 8 FROM job_participants p WHERE p.user_id IS NOT NULL
  UNION ALL SELECT u.id, p.job_id, 16 FROM job_participants p
    JOIN users u ON u.email = p.email AND u.email_verified_at IS NOT NULL
    JOIN jobs j ON j.id = p.job_id AND j.status IN ('draft', 'ready', 'scheduled', 'in_session')
    WHERE p.user_id IS NULL;
--> statement-breakpoint
-- A membership change moves the company bit (4) of the person's rows for the company's jobs, and the
-- creator bit (1) of the jobs of that company they created, set-based as before.
CREATE OR REPLACE FUNCTION "job_access_on_member"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(OLD.company_id::text));
    UPDATE job_access a SET via = a.via & ~(4 | CASE WHEN j.created_by = OLD.user_id THEN 1 ELSE 0 END) FROM jobs j
      WHERE j.company_id = OLD.company_id AND a.job_id = j.id AND a.user_id = OLD.user_id AND (a.via & 5) <> 0;
    DELETE FROM job_access WHERE user_id = OLD.user_id AND via = 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.role IN ('title', 'title_agent') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(NEW.company_id::text));
    INSERT INTO job_access (user_id, job_id, via, updated_at, status, title)
      SELECT NEW.user_id, j.id, 4 | CASE WHEN j.created_by = NEW.user_id THEN 1 ELSE 0 END, j.updated_at, j.status, j.title
      FROM jobs j WHERE j.company_id = NEW.company_id
    ON CONFLICT (user_id, job_id) DO UPDATE SET via = job_access.via | excluded.via;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
SELECT job_access_rebuild();
