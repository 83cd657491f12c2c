import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

export const titleCompanies = pgTable(
  'title_companies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** Decided once: a rejected application is not approved later (decision 014). */
    approvalStatus: text('approval_status', { enum: ['pending', 'approved', 'rejected'] })
      .notNull()
      .default('pending'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
    rejectedAt: timestamp('rejected_at', { withTimezone: true }),
    rejectedBy: uuid('rejected_by').references(() => users.id, { onDelete: 'set null' }),
    /** The administrator's reason, as emailed to the applicant. */
    rejectionReason: text('rejection_reason'),
    city: text('city'),
    /** A US state code; null for a company registered before its address was asked. */
    state: text('state'),
    addressLine: text('address_line'),
    phone: text('phone'),
    contactEmail: text('contact_email'),
    /** Set when an administrator closes the company (decision 043): never deleted, so its jobs keep their history. */
    closedAt: timestamp('closed_at', { withTimezone: true }),
    closedBy: uuid('closed_by').references(() => users.id, { onDelete: 'set null' }),
    /** The notary a new job of the company gets when its creator names none. */
    defaultNotaryId: uuid('default_notary_id').references(() => users.id, { onDelete: 'set null' }),
    /** Whether the company's agents see the prices its jobs are charged and its invoices (decision 049); its title staff always do. */
    agentsSeePrices: boolean('agents_see_prices').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // One working company of a name per state; a closed or rejected one frees its name.
    uniqueIndex('title_companies_name_state_key')
      .on(sql`lower(${table.name})`, table.state)
      .where(sql`${table.closedAt} is null and ${table.approvalStatus} <> 'rejected'`),
    index('title_companies_default_notary_idx').on(table.defaultNotaryId),
  ],
);

export const titleCompanyMembers = pgTable(
  'title_company_members',
  {
    /** The membership's own id, the agent id of DELETE /api/title-companies/agents/{id}. */
    id: uuid('id').notNull().defaultRandom().unique('title_company_members_id_key'),
    companyId: uuid('company_id')
      .notNull()
      .references(() => titleCompanies.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['title', 'title_agent'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.companyId, table.userId] }), index('title_company_members_user_idx').on(table.userId)],
);

/** A company's named job template: the notarization type, documents, witnesses and instructions its jobs start from. */
export const companyJobTypes = pgTable(
  'company_job_types',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => titleCompanies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    notarizationType: text('notarization_type').notNull(),
    documentTags: text('document_tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    witnessCount: integer('witness_count').notNull().default(0),
    instructions: text('instructions').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** A deleted type is kept for the jobs made from it; it is no longer offered. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('company_job_types_company_name_key')
      .on(table.companyId, sql`lower(${table.name})`)
      .where(sql`${table.deletedAt} is null`),
  ],
);
