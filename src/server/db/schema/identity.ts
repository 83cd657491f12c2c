import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { CredentialCheck, CredentialFields } from '#shared/identity.ts';
import { jobParticipants, jobs } from './jobs.ts';
import { users } from './users.ts';

/**
 * One person's identity step for one job (decision 025): what they stated (sealed), the credential
 * analysis of their ID, the selfie, the knowledge-based quizzes and the notary's judgement. A job
 * participant has at most one current check; an expired one (a new day, a rejoin, an admin reset)
 * stays as evidence and a new one begins.
 */
export const identityChecks = pgTable(
  'identity_checks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    jobParticipantId: uuid('job_participant_id')
      .notNull()
      .references(() => jobParticipants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    policyCode: text('policy_code').notNull(),
    status: text('status', { enum: ['in_progress', 'ready', 'confirmed', 'rejected', 'locked', 'expired'] })
      .notNull()
      .default('in_progress'),
    /** The name, birth date and address the person gave, AES-256-GCM sealed with the secrets key. */
    statementSealed: text('statement_sealed').notNull(),
    credentialStatus: text('credential_status', { enum: ['pending', 'passed', 'failed'] })
      .notNull()
      .default('pending'),
    documentType: text('document_type', { enum: ['drivers_license', 'id_card', 'passport'] }),
    credentialFields: jsonb('credential_fields').$type<CredentialFields>(),
    credentialChecks: jsonb('credential_checks').$type<CredentialCheck[]>().notNull().default([]),
    /** The ID's number, sealed; kept as evidence of the check, never shown whole, never in a journal that forbids it. */
    documentNumberSealed: text('document_number_sealed'),
    credentialAttempts: integer('credential_attempts').notNull().default(0),
    selfieReceivedAt: timestamp('selfie_received_at', { withTimezone: true }),
    reviewDecision: text('review_decision', { enum: ['confirmed', 'rejected'] }),
    reviewReason: text('review_reason'),
    reviewedBy: uuid('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
    /** SHA-256 of the current resume link's token (the phone), and when it stops working. */
    resumeTokenHash: text('resume_token_hash'),
    resumeExpiresAt: timestamp('resume_expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A passed step counts until then (the policy's validForHours). */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    readyAt: timestamp('ready_at', { withTimezone: true }),
    expiredAt: timestamp('expired_at', { withTimezone: true }),
    /** When the policy's retention ends: images and the sealed statement are purged then. */
    purgeAfter: timestamp('purge_after', { withTimezone: true }).notNull(),
    purgedAt: timestamp('purged_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('identity_checks_current_key')
      .on(table.jobParticipantId)
      .where(sql`${table.status} <> 'expired'`),
    uniqueIndex('identity_checks_resume_key').on(table.resumeTokenHash),
    index('identity_checks_job_idx').on(table.jobId),
    index('identity_checks_purge_idx')
      .on(table.purgeAfter)
      .where(sql`${table.purgedAt} is null`),
  ],
);

/**
 * One timed quiz. The quiz key (questions with their right choice) is kept only until the quiz is
 * answered or times out; the person's answers are never stored, the outcome is.
 */
export const identityKbaAttempts = pgTable(
  'identity_kba_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    checkId: uuid('check_id')
      .notNull()
      .references(() => identityChecks.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    provider: text('provider').notNull(),
    questionKeys: jsonb('question_keys').$type<string[]>().notNull(),
    quiz: jsonb('quiz').$type<{ key: string; prompt: string; choices: { id: string; label: string }[]; correctChoiceId: string }[] | null>(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    deadlineAt: timestamp('deadline_at', { withTimezone: true }).notNull(),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    passed: boolean('passed'),
    timedOut: boolean('timed_out'),
    correct: integer('correct'),
    total: integer('total'),
  },
  (table) => [uniqueIndex('identity_kba_attempts_check_attempt_key').on(table.checkId, table.attempt)],
);

/**
 * ID photographs and selfies, each encrypted with its own data key (sealed with the secrets key)
 * before it reaches storage: purging deletes the blob and the key.
 */
export const identityImages = pgTable(
  'identity_images',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    checkId: uuid('check_id')
      .notNull()
      .references(() => identityChecks.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['front', 'back', 'passport', 'selfie'] }).notNull(),
    storageKey: text('storage_key'),
    dataKeySealed: text('data_key_sealed'),
    contentType: text('content_type').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    purgedAt: timestamp('purged_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('identity_images_check_kind_key').on(table.checkId, table.kind)],
);
