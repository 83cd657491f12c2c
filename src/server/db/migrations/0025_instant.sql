CREATE TABLE "email_sign_in_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"code_hash" text NOT NULL,
	"name" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instant_offers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" uuid,
	"kind" text DEFAULT 'notary' NOT NULL,
	"user_id" uuid NOT NULL,
	"is_test" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"offered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	"created_by" uuid
);
--> statement-breakpoint
CREATE TABLE "instant_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"requested_by" uuid NOT NULL,
	"lane" text DEFAULT 'instant' NOT NULL,
	"status" text DEFAULT 'setup' NOT NULL,
	"step" text DEFAULT 'documents' NOT NULL,
	"act" text DEFAULT 'acknowledgment' NOT NULL,
	"signer_state" text,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"signer_count" integer DEFAULT 1 NOT NULL,
	"witnesses_requested" integer DEFAULT 0 NOT NULL,
	"estimate_cents" integer,
	"search_started_at" timestamp with time zone,
	"search_ends_at" timestamp with time zone,
	"matched_notary_id" uuid,
	"matched_at" timestamp with time zone,
	"finalized_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "instant_requests_job_id_unique" UNIQUE("job_id"),
	CONSTRAINT "instant_requests_signers_check" CHECK ("instant_requests"."signer_count" between 1 and 10),
	CONSTRAINT "instant_requests_witnesses_check" CHECK ("instant_requests"."witnesses_requested" between 0 and 2)
);
--> statement-breakpoint
CREATE TABLE "session_bookings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"notary_id" uuid NOT NULL,
	"slot_id" uuid,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"status" text DEFAULT 'booked' NOT NULL,
	"sequence" integer DEFAULT 0 NOT NULL,
	"reminded_day_before_at" timestamp with time zone,
	"reminded_soon_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "session_bookings_order_check" CHECK ("session_bookings"."ends_at" > "session_bookings"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "notary_presence" ADD COLUMN "accepts_test_offers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "instant_offers" ADD CONSTRAINT "instant_offers_request_id_instant_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."instant_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_offers" ADD CONSTRAINT "instant_offers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_offers" ADD CONSTRAINT "instant_offers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_requests" ADD CONSTRAINT "instant_requests_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_requests" ADD CONSTRAINT "instant_requests_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_requests" ADD CONSTRAINT "instant_requests_matched_notary_id_users_id_fk" FOREIGN KEY ("matched_notary_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_bookings" ADD CONSTRAINT "session_bookings_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_bookings" ADD CONSTRAINT "session_bookings_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_bookings" ADD CONSTRAINT "session_bookings_slot_id_availability_slots_id_fk" FOREIGN KEY ("slot_id") REFERENCES "public"."availability_slots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_bookings" ADD CONSTRAINT "session_bookings_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_sign_in_codes_email_idx" ON "email_sign_in_codes" USING btree ("email","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "instant_offers_once_idx" ON "instant_offers" USING btree ("request_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "instant_offers_one_open_per_request_idx" ON "instant_offers" USING btree ("request_id","kind") WHERE "instant_offers"."status" = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "instant_offers_one_open_per_person_idx" ON "instant_offers" USING btree ("user_id") WHERE "instant_offers"."status" = 'open';--> statement-breakpoint
CREATE INDEX "instant_offers_user_idx" ON "instant_offers" USING btree ("user_id","offered_at");--> statement-breakpoint
CREATE UNIQUE INDEX "instant_requests_one_active_idx" ON "instant_requests" USING btree ("requested_by") WHERE "instant_requests"."status" in ('setup', 'searching', 'unmatched', 'matched', 'booked');--> statement-breakpoint
CREATE INDEX "instant_requests_searching_idx" ON "instant_requests" USING btree ("status","search_started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "session_bookings_notary_time_idx" ON "session_bookings" USING btree ("notary_id","starts_at") WHERE "session_bookings"."status" = 'booked';--> statement-breakpoint
CREATE UNIQUE INDEX "session_bookings_job_idx" ON "session_bookings" USING btree ("job_id") WHERE "session_bookings"."status" = 'booked';--> statement-breakpoint
CREATE INDEX "session_bookings_starts_idx" ON "session_bookings" USING btree ("starts_at");