CREATE TABLE "email_verification_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "email_verification_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "local_mailbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text,
	"kind" text NOT NULL,
	"delivered_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified_via" text;--> statement-breakpoint
ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "email_verification_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_verification_tokens_user_id_idx" ON "email_verification_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "local_mailbox_delivered_idx" ON "local_mailbox" USING btree ("delivered_at");--> statement-breakpoint
-- Accounts that already proved their address by claiming or accepting an invitation sent to it, and
-- the first administrator (on the operator's word). Every other existing account starts unconfirmed.
UPDATE "users" SET "email_verified_at" = "invites"."used_at", "email_verified_via" = 'invitation'
FROM "invites"
WHERE "invites"."used_by" = "users"."id" AND "invites"."purpose" = 'job_participant' AND "invites"."email" = "users"."email"
  AND "invites"."used_at" IS NOT NULL AND "users"."email_verified_at" IS NULL;--> statement-breakpoint
UPDATE "users" SET "email_verified_at" = "invites"."used_at", "email_verified_via" = 'operator'
FROM "invites"
WHERE "invites"."used_by" = "users"."id" AND "invites"."purpose" = 'bootstrap_admin'
  AND "invites"."used_at" IS NOT NULL AND "users"."email_verified_at" IS NULL;
