import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { companyJobTypes, titleCompanies } from './title-companies.ts';
import { users } from './users.ts';

export const jobs = pgTable(
  'jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    title: text('title').notNull(),
    notarizationType: text('notarization_type').notNull(),
    status: text('status', { enum: ['draft', 'ready', 'scheduled', 'in_session', 'completed', 'cancelled'] })
      .notNull()
      .default('draft'),
    companyId: uuid('company_id').references(() => titleCompanies.id, { onDelete: 'set null' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    notaryId: uuid('notary_id').references(() => users.id, { onDelete: 'set null' }),
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
    /** The company's job type the job was made from. */
    jobTypeId: uuid('job_type_id').references(() => companyJobTypes.id, { onDelete: 'set null' }),
    /** The job type's instructions for the notary, copied at creation: a later edit of the type leaves this job as it was. */
    notaryInstructions: text('notary_instructions'),
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('jobs_company_idx').on(table.companyId, table.updatedAt),
    index('jobs_notary_idx').on(table.notaryId, table.updatedAt),
    index('jobs_created_by_idx').on(table.createdBy, table.updatedAt),
    index('jobs_updated_at_idx').on(table.updatedAt),
  ],
);

/** Signers, witnesses and observers of a job; userId is set once the person claims their invitation. */
export const jobParticipants = pgTable(
  'job_participants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: ['signer', 'witness', 'observer'] })
      .notNull()
      .default('signer'),
    position: integer('position').notNull().default(0),
    isIdBypassed: boolean('is_id_bypassed').notNull().default(false),
    idBypassReason: text('id_bypass_reason'),
    /** How identity stands proven without the step: personal_knowledge or credible_witness (the policy's bypassMethods). */
    idBypassMethod: text('id_bypass_method', { enum: ['personal_knowledge', 'credible_witness'] }),
    invitedAt: timestamp('invited_at', { withTimezone: true }),
    lastRemindedAt: timestamp('last_reminded_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('job_participants_job_email_key').on(table.jobId, table.email),
    index('job_participants_user_idx').on(table.userId),
    index('job_participants_email_idx').on(table.email),
  ],
);

export const documents = pgTable(
  'documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tag: text('tag', { enum: ['signing', 'reference', 'identification', 'supporting'] })
      .notNull()
      .default('signing'),
    position: integer('position').notNull().default(0),
    pageCount: integer('page_count').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    version: integer('version').notNull().default(1),
    status: text('status', { enum: ['uploaded', 'completed'] })
      .notNull()
      .default('uploaded'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('documents_job_idx').on(table.jobId, table.position)],
);

export const jobAuditAssets = pgTable(
  'job_audit_assets',
  {
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.jobId, table.documentId, table.tag] })],
);

export const notificationDismissals = pgTable(
  'notification_dismissals',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    dismissedAt: timestamp('dismissed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.jobId, table.kind] })],
);

/**
 * Who may see which job, one row per person and job, kept by triggers in the database (migration
 * 0016, decision 029) so the jobs list reads one index range instead of recomputing the rules per
 * request. `via` says why, as bits: 1 creator, 2 notary, 4 title company staff, 8 participant,
 * 16 an open invitation to the person's confirmed address. `updatedAt` and `status` are copies of the
 * job's, for the list's order and its counts by status.
 */
export const jobAccess = pgTable(
  'job_access',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    via: integer('via').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    status: text('status', { enum: ['draft', 'ready', 'scheduled', 'in_session', 'completed', 'cancelled'] }).notNull(),
    /** The job's title, so a search reads the person's index range and never the jobs table (migration 0017). */
    title: text('title').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.jobId] }),
    // ascending, read backwards for the list's order (updated_at desc, id desc): a DESC NULLS LAST index would not serve it
    index('job_access_list_idx').on(table.userId, table.updatedAt, table.jobId),
    index('job_access_job_idx').on(table.jobId),
  ],
);
