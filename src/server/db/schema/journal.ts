import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { JournalEntryContent } from '#shared/journal.ts';
import { documents, jobParticipants, jobs } from './jobs.ts';
import { users } from './users.ts';

/**
 * The notary's electronic journal: one entry per signer per document of a notarial act.
 * A draft is prepared from what the platform recorded; once finalized an entry never changes
 * (corrections are addenda). Entries outlive their job: the journal is the notary's.
 */
export const notaryJournalEntries = pgTable(
  'notary_journal_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    jobId: uuid('job_id').references(() => jobs.id, { onDelete: 'set null' }),
    documentId: uuid('document_id').references(() => documents.id, { onDelete: 'set null' }),
    participantId: uuid('participant_id').references(() => jobParticipants.id, { onDelete: 'set null' }),
    status: text('status', { enum: ['draft', 'final'] })
      .notNull()
      .default('draft'),
    isTest: boolean('is_test').notNull().default(false),
    content: jsonb('content').$type<JournalEntryContent>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finalizedAt: timestamp('finalized_at', { withTimezone: true }),
    /** The first day the entry may be deleted: the policy's retention after it was finalized. */
    keptUntil: timestamp('kept_until', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('notary_journal_entries_act_key').on(table.jobId, table.documentId, table.participantId),
    index('notary_journal_entries_notary_idx')
      .on(table.notaryId, table.finalizedAt)
      .where(sql`${table.status} = 'final'`),
  ],
);

/** A correction or note added to a finalized entry; the entry itself stays as it was. */
export const notaryJournalAddenda = pgTable('notary_journal_addenda', {
  id: uuid('id').primaryKey().defaultRandom(),
  entryId: uuid('entry_id')
    .notNull()
    .references(() => notaryJournalEntries.id, { onDelete: 'restrict' }),
  text: text('text').notNull(),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A notary's own archive of one commission (every finalized journal entry, notarized document,
 * session recording, audit trail and certificate, with a manifest of SHA-256 hashes): built once
 * in the background into a file, then downloaded with byte ranges so a broken download resumes.
 */
export const notaryArchives = pgTable(
  'notary_archives',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    commissionState: text('commission_state').notNull(),
    commissionNumber: text('commission_number').notNull(),
    status: text('status', { enum: ['queued', 'building', 'ready', 'failed', 'expired'] })
      .notNull()
      .default('queued'),
    filesTotal: integer('files_total'),
    filesDone: integer('files_done').notNull().default(0),
    bytesTotal: bigint('bytes_total', { mode: 'number' }),
    bytesDone: bigint('bytes_done', { mode: 'number' }).notNull().default(0),
    /** Where the finished file is kept (the data directory's archive area), its size and hash. */
    fileKey: text('file_key'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    sha256: text('sha256'),
    failureReason: text('failure_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (table) => [index('notary_archives_notary_idx').on(table.notaryId, table.createdAt)],
);
