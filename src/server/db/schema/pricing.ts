import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { jobs } from './jobs.ts';
import { titleCompanies } from './title-companies.ts';
import { users } from './users.ts';

/**
 * A price item (decision 047): one of the platform's defaults (no company) or a title company's own
 * amount for a key. Amounts are integer cents; position orders a list.
 */
export const priceItems = pgTable(
  'price_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Null for the platform's defaults. */
    companyId: uuid('company_id').references(() => titleCompanies.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    label: text('label').notNull(),
    amountCents: integer('amount_cents').notNull(),
    unit: text('unit', { enum: ['job', 'act', 'additional_act', 'signer', 'additional_signer', 'witness'] }).notNull(),
    feeKind: text('fee_kind', { enum: ['notarial', 'platform'] }).notNull(),
    position: integer('position').notNull(),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('price_items_default_key')
      .on(table.key)
      .where(sql`${table.companyId} is null`),
    uniqueIndex('price_items_company_key')
      .on(table.companyId, table.key)
      .where(sql`${table.companyId} is not null`),
    check('price_items_amount_cents_range', sql`${table.amountCents} >= 0 and ${table.amountCents} <= 10000000`),
  ],
);

/**
 * What a completed job is charged (decision 048): one line per price item that applied, written once
 * in the transaction that completes the job, from the prices of that moment, never recomputed.
 */
export const jobCharges = pgTable(
  'job_charges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    /** The company billed, as the job had it at completion; null for a job of no company. */
    companyId: uuid('company_id').references(() => titleCompanies.id, { onDelete: 'set null' }),
    key: text('key').notNull(),
    label: text('label').notNull(),
    unit: text('unit', { enum: ['job', 'act', 'additional_act', 'signer', 'additional_signer', 'witness'] }).notNull(),
    feeKind: text('fee_kind', { enum: ['notarial', 'platform'] }).notNull(),
    quantity: integer('quantity').notNull(),
    unitAmountCents: integer('unit_amount_cents').notNull(),
    /** quantity × unitAmountCents, as a bigint: no total of many acts at the highest price overflows. */
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    /** Whether the amount was the company's own or the default. */
    priceSource: text('price_source', { enum: ['company', 'default'] }).notNull(),
    position: integer('position').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('job_charges_job_key').on(table.jobId, table.key),
    index('job_charges_company_idx').on(table.companyId, table.createdAt),
    check(
      'job_charges_amount',
      sql`${table.quantity} > 0 and ${table.unitAmountCents} >= 0 and ${table.amountCents} = ${table.quantity}::bigint * ${table.unitAmountCents}`,
    ),
  ],
);
