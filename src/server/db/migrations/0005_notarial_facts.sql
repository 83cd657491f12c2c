ALTER TABLE "notarized_documents" ADD COLUMN "is_notarial_act" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notarized_documents" ADD COLUMN "has_recorded_session" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notarized_documents" ADD COLUMN "has_proven_identity" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notarized_documents" ADD COLUMN "not_notarial_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- Outputs sealed before this migration had no recorded session and no identity proofing (neither existed).
UPDATE "notarized_documents" SET "not_notarial_reasons" = '["No audio-video session was recorded.", "No signer’s identity was proven."]'::jsonb;
