CREATE TABLE "job_access" (
	"user_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"via" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	CONSTRAINT "job_access_user_id_job_id_pk" PRIMARY KEY("user_id","job_id")
);
--> statement-breakpoint
ALTER TABLE "job_access" ADD CONSTRAINT "job_access_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_access" ADD CONSTRAINT "job_access_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_access_list_idx" ON "job_access" USING btree ("user_id","updated_at","job_id") INCLUDE ("via","status");--> statement-breakpoint
CREATE INDEX "job_access_job_idx" ON "job_access" USING btree ("job_id");--> statement-breakpoint
-- Decision 029: the rules of who may see a job, once, as a view (the same rules as getJobAccess and
-- the invitations to a confirmed address of job-invitations.ts); job_access holds its result per
-- person and job, kept by the triggers below in the transaction that changes a source row.
CREATE VIEW "job_access_rules" AS
  SELECT j.created_by AS user_id, j.id AS job_id, 1 AS via FROM jobs j WHERE j.created_by IS NOT NULL
  UNION ALL SELECT j.notary_id, j.id, 2 FROM jobs j WHERE j.notary_id IS NOT NULL
  UNION ALL SELECT m.user_id, j.id, 4 FROM jobs j JOIN title_company_members m ON m.company_id = j.company_id AND m.role IN ('title', 'title_agent')
  UNION ALL SELECT p.user_id, p.job_id, 8 FROM job_participants p WHERE p.user_id IS NOT NULL
  UNION ALL SELECT u.id, p.job_id, 16 FROM job_participants p
    JOIN users u ON u.email = p.email AND u.email_verified_at IS NOT NULL
    JOIN jobs j ON j.id = p.job_id AND j.status IN ('draft', 'ready', 'scheduled', 'in_session')
    WHERE p.user_id IS NULL;
--> statement-breakpoint
-- Recomputes one job's rows. The job's advisory lock makes two refreshes of one job run one after the
-- other (the later one reads what the earlier committed); the company's shared lock waits for a
-- membership change of that company to commit, so a removed member is never written back.
CREATE FUNCTION "job_access_refresh"(p_job_id uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_company uuid;
BEGIN
  PERFORM pg_advisory_xact_lock(7262001, hashtext(p_job_id::text));
  SELECT company_id INTO v_company FROM jobs WHERE id = p_job_id;
  IF v_company IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock_shared(7262002, hashtext(v_company::text));
  END IF;
  DELETE FROM job_access a WHERE a.job_id = p_job_id
    AND NOT EXISTS (SELECT 1 FROM job_access_rules r WHERE r.job_id = p_job_id AND r.user_id = a.user_id);
  INSERT INTO job_access (user_id, job_id, via, updated_at, status)
    SELECT r.user_id, j.id, bit_or(r.via), j.updated_at, j.status
    FROM job_access_rules r JOIN jobs j ON j.id = r.job_id
    WHERE r.job_id = p_job_id
    GROUP BY r.user_id, j.id, j.updated_at, j.status
  ON CONFLICT (user_id, job_id) DO UPDATE SET via = excluded.via, updated_at = excluded.updated_at, status = excluded.status
    WHERE (job_access.via, job_access.updated_at, job_access.status) IS DISTINCT FROM (excluded.via, excluded.updated_at, excluded.status);
END $$;
--> statement-breakpoint
CREATE FUNCTION "job_access_on_job"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.created_by, NEW.notary_id, NEW.company_id, NEW.status, NEW.updated_at)
      IS DISTINCT FROM (OLD.created_by, OLD.notary_id, OLD.company_id, OLD.status, OLD.updated_at) THEN
    PERFORM job_access_refresh(NEW.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "job_access_jobs" AFTER INSERT OR UPDATE ON "jobs" FOR EACH ROW EXECUTE FUNCTION job_access_on_job();
--> statement-breakpoint
CREATE FUNCTION "job_access_on_participant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM job_access_refresh(OLD.job_id);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.job_id <> OLD.job_id) THEN
    PERFORM job_access_refresh(NEW.job_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "job_access_participants" AFTER INSERT OR DELETE OR UPDATE OF user_id, email, job_id ON "job_participants"
  FOR EACH ROW EXECUTE FUNCTION job_access_on_participant();
--> statement-breakpoint
-- A membership change touches every job of the company, set-based, under the company's exclusive lock.
CREATE FUNCTION "job_access_on_member"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(OLD.company_id::text));
    UPDATE job_access a SET via = a.via & ~4 FROM jobs j
      WHERE j.company_id = OLD.company_id AND a.job_id = j.id AND a.user_id = OLD.user_id AND (a.via & 4) <> 0;
    DELETE FROM job_access WHERE user_id = OLD.user_id AND via = 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.role IN ('title', 'title_agent') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(NEW.company_id::text));
    INSERT INTO job_access (user_id, job_id, via, updated_at, status)
      SELECT NEW.user_id, j.id, 4, j.updated_at, j.status FROM jobs j WHERE j.company_id = NEW.company_id
    ON CONFLICT (user_id, job_id) DO UPDATE SET via = job_access.via | 4;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "job_access_members" AFTER INSERT OR DELETE OR UPDATE ON "title_company_members"
  FOR EACH ROW EXECUTE FUNCTION job_access_on_member();
--> statement-breakpoint
-- An account's address or its confirmation decides the invitations it sees.
CREATE FUNCTION "job_access_on_user"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_job uuid;
BEGIN
  FOR v_job IN
    SELECT DISTINCT p.job_id FROM job_participants p
    WHERE p.user_id IS NULL AND (p.email = NEW.email OR (TG_OP = 'UPDATE' AND p.email = OLD.email))
    ORDER BY p.job_id
  LOOP
    PERFORM job_access_refresh(v_job);
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "job_access_users_insert" AFTER INSERT ON "users" FOR EACH ROW WHEN (NEW.email_verified_at IS NOT NULL)
  EXECUTE FUNCTION job_access_on_user();
--> statement-breakpoint
CREATE TRIGGER "job_access_users_update" AFTER UPDATE OF email, email_verified_at ON "users" FOR EACH ROW
  WHEN (NEW.email IS DISTINCT FROM OLD.email OR (NEW.email_verified_at IS NULL) <> (OLD.email_verified_at IS NULL))
  EXECUTE FUNCTION job_access_on_user();
--> statement-breakpoint
-- The whole table from the rules at once (this migration, and a bulk load with triggers off).
CREATE FUNCTION "job_access_rebuild"() RETURNS void LANGUAGE sql AS $$
  DELETE FROM job_access;
  INSERT INTO job_access (user_id, job_id, via, updated_at, status)
    SELECT r.user_id, j.id, bit_or(r.via), j.updated_at, j.status
    FROM job_access_rules r JOIN jobs j ON j.id = r.job_id
    GROUP BY r.user_id, j.id, j.updated_at, j.status;
$$;
--> statement-breakpoint
SELECT job_access_rebuild();
