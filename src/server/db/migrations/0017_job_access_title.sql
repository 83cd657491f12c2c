-- job_access carries the job's title, so a search of the jobs list reads the person's own
-- index range (title in the index) and never the jobs table; the refresh keeps it with the job's
-- status and updated_at.
ALTER TABLE "job_access" ADD COLUMN "title" text NOT NULL DEFAULT '';
--> statement-breakpoint
UPDATE "job_access" a SET "title" = j.title FROM "jobs" j WHERE j.id = a.job_id;
--> statement-breakpoint
ALTER TABLE "job_access" ALTER COLUMN "title" DROP DEFAULT;
--> statement-breakpoint
DROP INDEX "job_access_list_idx";
--> statement-breakpoint
CREATE INDEX "job_access_list_idx" ON "job_access" USING btree ("user_id","updated_at","job_id") INCLUDE ("via","status","title");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "job_access_refresh"(p_job_id uuid) RETURNS void LANGUAGE plpgsql AS $$
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
  INSERT INTO job_access (user_id, job_id, via, updated_at, status, title)
    SELECT r.user_id, j.id, bit_or(r.via), j.updated_at, j.status, j.title
    FROM job_access_rules r JOIN jobs j ON j.id = r.job_id
    WHERE r.job_id = p_job_id
    GROUP BY r.user_id, j.id, j.updated_at, j.status, j.title
  ON CONFLICT (user_id, job_id) DO UPDATE SET via = excluded.via, updated_at = excluded.updated_at, status = excluded.status, title = excluded.title
    WHERE (job_access.via, job_access.updated_at, job_access.status, job_access.title)
      IS DISTINCT FROM (excluded.via, excluded.updated_at, excluded.status, excluded.title);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "job_access_on_job"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.created_by, NEW.notary_id, NEW.company_id, NEW.status, NEW.updated_at, NEW.title)
      IS DISTINCT FROM (OLD.created_by, OLD.notary_id, OLD.company_id, OLD.status, OLD.updated_at, OLD.title) THEN
    PERFORM job_access_refresh(NEW.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "job_access_on_member"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(OLD.company_id::text));
    UPDATE job_access a SET via = a.via & ~4 FROM jobs j
      WHERE j.company_id = OLD.company_id AND a.job_id = j.id AND a.user_id = OLD.user_id AND (a.via & 4) <> 0;
    DELETE FROM job_access WHERE user_id = OLD.user_id AND via = 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.role IN ('title', 'title_agent') THEN
    PERFORM pg_advisory_xact_lock(7262002, hashtext(NEW.company_id::text));
    INSERT INTO job_access (user_id, job_id, via, updated_at, status, title)
      SELECT NEW.user_id, j.id, 4, j.updated_at, j.status, j.title FROM jobs j WHERE j.company_id = NEW.company_id
    ON CONFLICT (user_id, job_id) DO UPDATE SET via = job_access.via | 4;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "job_access_rebuild"() RETURNS void LANGUAGE sql AS $$
  DELETE FROM job_access;
  INSERT INTO job_access (user_id, job_id, via, updated_at, status, title)
    SELECT r.user_id, j.id, bit_or(r.via), j.updated_at, j.status, j.title
    FROM job_access_rules r JOIN jobs j ON j.id = r.job_id
    GROUP BY r.user_id, j.id, j.updated_at, j.status, j.title;
$$;
