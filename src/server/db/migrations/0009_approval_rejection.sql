ALTER TABLE "notary_profiles" ADD COLUMN "rejected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "rejected_by" uuid;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "rejected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "rejected_by" uuid;--> statement-breakpoint
ALTER TABLE "title_companies" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "notary_profiles" ADD CONSTRAINT "notary_profiles_rejected_by_users_id_fk" FOREIGN KEY ("rejected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "title_companies" ADD CONSTRAINT "title_companies_rejected_by_users_id_fk" FOREIGN KEY ("rejected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;