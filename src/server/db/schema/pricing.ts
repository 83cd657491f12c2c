import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { BilledTo } from '#shared/billing.ts';
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
 * An invoice (decision 049): a title company's charges of one calendar month (UTC). A draft gathers
 * charges as jobs complete; issuing gives it a number, a due date and the company's details as they
 * are then; it ends paid or void (with a reason). At most one draft per company and month.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => titleCompanies.id, { onDelete: 'cascade' }),
    /** The first day of the month billed. */
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    status: text('status', { enum: ['draft', 'issued', 'paid', 'void'] })
      .notNull()
      .default('draft'),
    /** Given at issue: the year and a sequence, `2026-000042`. */
    number: text('number'),
    notarialFeeCents: bigint('notarial_fee_cents', { mode: 'number' }).notNull().default(0),
    platformFeeCents: bigint('platform_fee_cents', { mode: 'number' }).notNull().default(0),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull().default(0),
    jobCount: integer('job_count').notNull().default(0),
    /** The company's name and address as they were at issue. */
    billedTo: jsonb('billed_to').$type<BilledTo>(),
    issuedAt: timestamp('issued_at', { withTimezone: true }),
    issuedBy: uuid('issued_by').references(() => users.id, { onDelete: 'set null' }),
    dueAt: timestamp('due_at', { withTimezone: true }),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    paidBy: uuid('paid_by').references(() => users.id, { onDelete: 'set null' }),
    paymentReference: text('payment_reference'),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
    voidedBy: uuid('voided_by').references(() => users.id, { onDelete: 'set null' }),
    voidReason: text('void_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('invoices_one_draft')
      .on(table.companyId, table.periodStart)
      .where(sql`${table.status} = 'draft'`),
    uniqueIndex('invoices_number').on(table.number),
    index('invoices_company_idx').on(table.companyId, table.periodStart),
    index('invoices_status_due_idx').on(table.status, table.dueAt),
    check('invoices_total', sql`${table.totalCents} = ${table.notarialFeeCents} + ${table.platformFeeCents}`),
    check('invoices_void_reason', sql`${table.status} <> 'void' or ${table.voidReason} is not null`),
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
    /** The invoice the line is on; null until a draft gathers it, and again after its invoice is voided. */
    invoiceId: uuid('invoice_id').references(() => invoices.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('job_charges_job_key').on(table.jobId, table.key),
    index('job_charges_company_idx').on(table.companyId, table.createdAt),
    index('job_charges_invoice_idx').on(table.invoiceId),
    index('job_charges_uninvoiced_idx')
      .on(table.companyId, table.createdAt)
      .where(sql`${table.invoiceId} is null`),
    check(
      'job_charges_amount',
      sql`${table.quantity} > 0 and ${table.unitAmountCents} >= 0 and ${table.amountCents} = ${table.quantity}::bigint * ${table.unitAmountCents}`,
    ),
  ],
);
