import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
