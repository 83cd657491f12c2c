import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { jobParticipants, jobs } from './jobs.ts';
import { titleCompanies } from './title-companies.ts';
import { users } from './users.ts';

export const invites = pgTable('invites', {
  id: uuid('id').primaryKey().defaultRandom(),
  tokenHash: text('token_hash').notNull().unique(),
  purpose: text('purpose', { enum: ['bootstrap_admin', 'job_participant', 'company_member'] }).notNull(),
  jobId: uuid('job_id').references(() => jobs.id, { onDelete: 'cascade' }),
  participantId: uuid('participant_id').references(() => jobParticipants.id, { onDelete: 'cascade' }),
  /** For 'company_member': the title company the invitee joins, with the role in `roles`. */
  companyId: uuid('company_id').references(() => titleCompanies.id, { onDelete: 'cascade' }),
  /** For 'company_member': the invitee's name as the inviter gave it, shown in the company's people until they accept. */
  name: text('name'),
  roles: text('roles').array().notNull(),
  email: text('email'),
  /** The address the link was emailed to: the invitee's, or another one a staff reminder chose (emailOverride). */
  sentTo: text('sent_to'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  usedBy: uuid('used_by').references(() => users.id, { onDelete: 'set null' }),
});
