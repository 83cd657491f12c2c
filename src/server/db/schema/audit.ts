import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

/**
 * Append-only trail. Each event carries the hash of the previous event of the same scope (a job, or
 * the account scope when jobId is null), so an edited or deleted row breaks verification.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sequence: bigint('sequence', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    scope: text('scope').notNull(),
    jobId: uuid('job_id'),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    action: text('action').notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    data: jsonb('data').notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    previousHash: text('previous_hash'),
    hash: text('hash').notNull(),
  },
  (table) => [index('audit_events_scope_idx').on(table.scope, table.sequence)],
);
