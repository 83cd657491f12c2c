import { bigint, boolean, date, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

export const notaryProfiles = pgTable('notary_profiles', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  commissionState: text('commission_state').notNull(),
  commissionNumber: text('commission_number').notNull(),
  commissionExpiresOn: date('commission_expires_on').notNull(),
  county: text('county').notNull(),
  /** The name exactly as on the commission (may differ from the account name). */
  commissionedName: text('commissioned_name'),
  commissionStartsOn: date('commission_starts_on'),
  /** Surety bond and errors-and-omissions insurance: amounts in cents, expiry dates (decision 027). */
  bondAmountCents: bigint('bond_amount_cents', { mode: 'number' }),
  bondExpiresOn: date('bond_expires_on'),
  eoAmountCents: bigint('eo_amount_cents', { mode: 'number' }),
  eoExpiresOn: date('eo_expires_on'),
  /** Decided once: a rejected application is not approved later (decision 014). */
  approvalStatus: text('approval_status', { enum: ['pending', 'approved', 'rejected'] })
    .notNull()
    .default('pending'),
  approvedAt: timestamp('approved_at', { withTimezone: true }),
  approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
  rejectedAt: timestamp('rejected_at', { withTimezone: true }),
  rejectedBy: uuid('rejected_by').references(() => users.id, { onDelete: 'set null' }),
  /** The administrator's reason, as emailed to the applicant. */
  rejectionReason: text('rejection_reason'),
  /** The IANA zone the notary works in ("America/Chicago"): slots sent without one, and dates shown to them. */
  timeZone: text('time_zone'),
  /** A deactivated notary still signs in but is assigned no job and seals nothing (decision 027). */
  isActive: boolean('is_active').notNull().default(true),
  deactivatedAt: timestamp('deactivated_at', { withTimezone: true }),
  deactivatedBy: uuid('deactivated_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Documents a notary files with their profile; the blobs live in the Storage provider. */
export const notaryProfileFiles = pgTable(
  'notary_profile_files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['commission_certificate', 'bond', 'eo_insurance', 'seal_image'] }).notNull(),
    fileName: text('file_name').notNull(),
    contentType: text('content_type', { enum: ['application/pdf', 'image/png', 'image/jpeg'] }).notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    storageKey: text('storage_key').notNull(),
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('notary_profile_files_notary_idx').on(table.notaryId, table.kind)],
);

/** One warning per item per expiry date: the sweep inserts here first and emails only when the row is new. */
export const notaryExpiryWarnings = pgTable(
  'notary_expiry_warnings',
  {
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    item: text('item', { enum: ['commission', 'certificate', 'bond', 'eo_insurance'] }).notNull(),
    expiresOn: date('expires_on').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.notaryId, table.item, table.expiresOn] })],
);
