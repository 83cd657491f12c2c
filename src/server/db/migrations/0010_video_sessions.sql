CREATE TABLE "video_session_participants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"job_participant_id" uuid,
	"role" text NOT NULL,
	"lobby_state" text DEFAULT 'waiting' NOT NULL,
	"device_group_id" text NOT NULL,
	"consented_to_recording_at" timestamp with time zone NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"last_heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"created_by" uuid,
	"active_device_group_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finalized_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "video_session_participants" ADD CONSTRAINT "video_session_participants_session_id_video_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."video_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_session_participants" ADD CONSTRAINT "video_session_participants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_session_participants" ADD CONSTRAINT "video_session_participants_job_participant_id_job_participants_id_fk" FOREIGN KEY ("job_participant_id") REFERENCES "public"."job_participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_sessions" ADD CONSTRAINT "video_sessions_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_sessions" ADD CONSTRAINT "video_sessions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "video_session_participants_session_user_key" ON "video_session_participants" USING btree ("session_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "video_sessions_open_job_key" ON "video_sessions" USING btree ("job_id") WHERE "video_sessions"."status" <> 'finalized';--> statement-breakpoint
CREATE INDEX "video_sessions_status_idx" ON "video_sessions" USING btree ("status");