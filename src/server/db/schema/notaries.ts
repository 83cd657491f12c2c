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
  approvalStatus: text('approval_status', { enum: ['pending', 'approved'] }).notNull().default('pending'),
  approvedAt: timestamp('approved_at', { withTimezone: true }),
  approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
