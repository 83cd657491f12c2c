CREATE TABLE "notarized_document_revisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notarized_document_id" uuid NOT NULL,
	"storage_key" text NOT NULL,
	"sha256" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"pades_level" text,
	"replaced_because" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notarized_document_revisions_sha256_unique" UNIQUE("sha256")
);
--> statement-breakpoint
CREATE TABLE "notary_archives" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notary_id" uuid NOT NULL,
	"requested_by" uuid,
	"commission_state" text NOT NULL,
	"commission_number" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"files_total" integer,
	"files_done" integer DEFAULT 0 NOT NULL,
	"bytes_total" bigint,
	"bytes_done" bigint DEFAULT 0 NOT NULL,
	"file_key" text,
	"size_bytes" bigint,
	"sha256" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "notarized_documents" ADD COLUMN "pades_level" text;--> statement-breakpoint
ALTER TABLE "notarized_documents" ADD COLUMN "archive_timestamp_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signing_credentials" ADD COLUMN "revocation_reason" text;--> statement-breakpoint
ALTER TABLE "signing_credentials" ADD COLUMN "revoked_by" uuid;--> statement-breakpoint
ALTER TABLE "notarized_document_revisions" ADD CONSTRAINT "notarized_document_revisions_notarized_document_id_notarized_documents_id_fk" FOREIGN KEY ("notarized_document_id") REFERENCES "public"."notarized_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_archives" ADD CONSTRAINT "notary_archives_notary_id_users_id_fk" FOREIGN KEY ("notary_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notary_archives" ADD CONSTRAINT "notary_archives_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notarized_document_revisions_document_idx" ON "notarized_document_revisions" USING btree ("notarized_document_id");--> statement-breakpoint
CREATE INDEX "notary_archives_notary_idx" ON "notary_archives" USING btree ("notary_id","created_at");--> statement-breakpoint
ALTER TABLE "signing_credentials" ADD CONSTRAINT "signing_credentials_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notarized_documents_archive_timestamp_idx" ON "notarized_documents" USING btree ("archive_timestamp_expires_at");