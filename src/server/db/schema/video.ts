import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { jobParticipants, jobs } from './jobs.ts';
import { users } from './users.ts';

/**
 * A job's live session: created by the job's notary, active once the notary opened the room from a
 * device, started when the notarial act begins (the job is then in session), finalized at the end.
 * A job has at most one session that is not finalized.
 */
export const videoSessions = pgTable(
  'video_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['created', 'active', 'started', 'finalized'] })
      .notNull()
      .default('created'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** The notary's device group the room was opened from (activate/{deviceGroupId}). */
    activeDeviceGroupId: text('active_device_group_id'),
    /** The notary's layout of who is shown where: ordered {slot, participantId}; version counts its changes. */
    sharedVideoMap: jsonb('shared_video_map').$type<{ slot: number; participantId: string }[]>().notNull().default([]),
    sharedVideoMapVersion: integer('shared_video_map_version').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finalizedAt: timestamp('finalized_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('video_sessions_open_job_key')
      .on(table.jobId)
      .where(sql`${table.status} <> 'finalized'`),
    index('video_sessions_status_idx').on(table.status),
  ],
);

/**
 * Who entered a session: the job's notary (jobParticipantId null, participant id "notary") or one of
 * the job's signers, witnesses and observers. Everyone but the notary waits in the lobby until the
 * notary admits or denies them.
 */
export const videoSessionParticipants = pgTable(
  'video_session_participants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => videoSessions.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    jobParticipantId: uuid('job_participant_id').references(() => jobParticipants.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['signer', 'witness', 'observer', 'notary'] }).notNull(),
    lobbyState: text('lobby_state', { enum: ['waiting', 'admitted', 'denied', 'left'] })
      .notNull()
      .default('waiting'),
    deviceGroupId: text('device_group_id').notNull(),
    consentedToRecordingAt: timestamp('consented_to_recording_at', { withTimezone: true }).notNull(),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    lastHeartbeatAt: timestamp('last_heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('video_session_participants_session_user_key').on(table.sessionId, table.userId)],
);

/**
 * The notary's recording of a started session: started and stopped by the notary. A session has at
 * most one recording running. Kept for RECORDING_RETENTION_YEARS after it stopped (no cascade from
 * the session or the job: a recording outlives both; see recording-retention.ts).
 */
export const recordings = pgTable(
  'recordings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => videoSessions.id, { onDelete: 'restrict' }),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'restrict' }),
    startedBy: uuid('started_by').references(() => users.id, { onDelete: 'set null' }),
    status: text('status', { enum: ['recording', 'stopped'] })
      .notNull()
      .default('recording'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    stoppedAt: timestamp('stopped_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('recordings_running_session_key')
      .on(table.sessionId)
      .where(sql`${table.status} = 'recording'`),
    index('recordings_job_idx').on(table.jobId),
  ],
);

/** One closed WebM file of one participant, as the media hub received it; the file is in storage under its SHA-256. */
export const recordingSegments = pgTable(
  'recording_segments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    recordingId: uuid('recording_id')
      .notNull()
      .references(() => recordings.id, { onDelete: 'restrict' }),
    /** The job participant id, or "notary". */
    participantId: text('participant_id').notNull(),
    sequence: integer('sequence').notNull(),
    sha256: text('sha256').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }).notNull(),
    storageKey: text('storage_key').notNull(),
    savedAt: timestamp('saved_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('recording_segments_participant_sequence_key').on(table.recordingId, table.participantId, table.sequence)],
);
