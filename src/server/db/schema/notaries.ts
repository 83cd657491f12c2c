import { date, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

export const notaryProfiles = pgTable('notary_profiles', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  commissionState: text('commission_state').notNull(),
  commissionNumber: text('commission_number').notNull(),
  commissionExpiresOn: date('commission_expires_on').notNull(),
  county: text('county').notNull(),
  /** Decided once: a rejected application is not approved later (decision 014). */
  approvalStatus: text('approval_status', { enum: ['pending', 'approved', 'rejected'] }).notNull().default('pending'),
  approvedAt: timestamp('approved_at', { withTimezone: true }),
  approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
  rejectedAt: timestamp('rejected_at', { withTimezone: true }),
  rejectedBy: uuid('rejected_by').references(() => users.id, { onDelete: 'set null' }),
  /** The administrator's reason, as emailed to the applicant. */
  rejectionReason: text('rejection_reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
