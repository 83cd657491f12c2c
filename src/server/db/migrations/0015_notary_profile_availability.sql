CREATE TABLE "notary_expiry_warnings" (
	"notary_id" uuid NOT NULL,
	"item" text NOT NULL,
	"expires_on" date NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notary_expiry_warnings_notary_id_item_expires_on_pk" PRIMARY KEY("notary_id","item","expires_on")
);
--> statement-breakpoint
CREATE TABLE "notary_profile_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notary_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"uploaded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "availability_slots" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notary_id" uuid NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "availability_slots_order_check" CHECK ("availability_slots"."ends_at" > "availability_slots"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "notary_presence" (
	"notary_id" uuid PRIMARY KEY NOT NULL,
	"is_available" boolean DEFAULT false NOT NULL,
	"session_id" text,
	"went_online_at" timestamp with time zone,
	"last_heartbeat_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "commissioned_name" text;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "commission_starts_on" date;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "bond_amount_cents" bigint;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "bond_expires_on" date;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "eo_amount_cents" bigint;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "eo_expires_on" date;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "is_active" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "deactivated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "deactivated_by" uuid;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "notary_expiry_warnings" ADD CONSTRAINT "notary_expiry_warnings_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_profile_files" ADD CONSTRAINT "notary_profile_files_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_profile_files" ADD CONSTRAINT "notary_profile_files_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "availability_slots" ADD CONSTRAINT "availability_slots_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_presence" ADD CONSTRAINT "notary_presence_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notary_profile_files_notary_idx" ON "notary_profile_files" USING btree ("notary_id","kind");--> statement-breakpoint
CREATE INDEX "availability_slots_notary_idx" ON "availability_slots" USING btree ("notary_id","starts_at");--> statement-breakpoint
CREATE INDEX "notary_presence_heartbeat_idx" ON "notary_presence" USING btree ("last_heartbeat_at");--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD CONSTRAINT "notary_profiles_deactivated_by_users_id_fk" FOREIGN KEY ("deactivated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;