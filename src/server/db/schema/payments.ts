import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { jobs } from './jobs.ts';
import { titleCompanies } from './title-companies.ts';
import { users } from './users.ts';

/**
 * A job's payment (decision 050): the amount held on a card (Stripe) or to be invoiced to the job's
 * company, then captured at completion or released on cancel. Amounts are integer cents. A job has at
 * most one live payment (held, captured or invoiced); a declined or released one stays as history.
 */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    /** The company the job belonged to when the payment was made; null for a job of no company. */
    companyId: uuid('company_id').references(() => titleCompanies.id, { onDelete: 'set null' }),
    provider: text('provider', { enum: ['stripe', 'invoice'] }).notNull(),
    /** The provider's id of the payment (a Stripe PaymentIntent pi_…); null for an invoiced one. */
    externalId: text('external_id'),
    /** What was held (or, invoiced, what the job was estimated to cost at booking). */
    amountCents: integer('amount_cents').notNull(),
    /** What was captured at completion (or, invoiced, what the job was charged); null before. */
    capturedCents: integer('captured_cents'),
    currency: text('currency', { enum: ['usd'] })
      .notNull()
      .default('usd'),
    status: text('status', { enum: ['held', 'captured', 'released', 'failed', 'invoiced'] }).notNull(),
    /** The key of the hold; its capture and release send this key with ':capture' or ':release' appended. */
    idempotencyKey: text('idempotency_key').notNull(),
    /** Why the last call to the provider about this payment failed, in the provider's words. */
    failureMessage: text('failure_message'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('payments_live_job')
      .on(table.jobId)
      .where(sql`${table.status} in ('held', 'captured', 'invoiced')`),
    uniqueIndex('payments_external_id')
      .on(table.provider, table.externalId)
      .where(sql`${table.externalId} is not null`),
    uniqueIndex('payments_idempotency_key').on(table.idempotencyKey),
    index('payments_company_idx').on(table.companyId, table.createdAt),
    check('payments_amounts', sql`${table.amountCents} >= 0 and (${table.capturedCents} is null or ${table.capturedCents} >= 0)`),
  ],
);
