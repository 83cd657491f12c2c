CREATE TABLE "price_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" uuid,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"unit" text NOT NULL,
	"fee_kind" text NOT NULL,
	"position" integer NOT NULL,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_items_amount_cents_range" CHECK ("price_items"."amount_cents" >= 0 and "price_items"."amount_cents" <= 10000000)
);
--> statement-breakpoint
ALTER TABLE "price_items" ADD CONSTRAINT "price_items_company_id_title_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."title_companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_items" ADD CONSTRAINT "price_items_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "price_items_default_key" ON "price_items" USING btree ("key") WHERE "price_items"."company_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "price_items_company_key" ON "price_items" USING btree ("company_id","key") WHERE "price_items"."company_id" is not null;