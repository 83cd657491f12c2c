ALTER TABLE "invites" ADD COLUMN "sent_to" text;--> statement-breakpoint
-- Links issued before this column went to the invitee's own address unless a reminder chose another
-- (not recorded then); they expire within 7 days.
UPDATE "invites" SET "sent_to" = "email" WHERE "purpose" = 'job_participant';
