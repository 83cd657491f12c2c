import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { availabilitySlots } from './availability.ts';
import { jobs } from './jobs.ts';
import { users } from './users.ts';

/**
 * A Notarize Now request (decision 051): one per job a person started from the wizard, holding what
 * they chose (act, state, signers, witnesses), where they are in the wizard, and how the job finds its
 * notary (offered now, one notary at a time, or booked for a time). A person has at most one active
 * request.
 */
export const instantRequests = pgTable(
  'instant_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .unique()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    requestedBy: uuid('requested_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lane: text('lane', { enum: ['instant', 'scheduled'] })
      .notNull()
      .default('instant'),
    status: text('status', { enum: ['setup', 'searching', 'unmatched', 'matched', 'booked', 'completed', 'cancelled'] })
      .notNull()
      .default('setup'),
    /** The wizard step the person last reached, so any device resumes there. */
    step: text('step', { enum: ['documents', 'needs', 'payment', 'notary', 'session', 'done'] })
      .notNull()
      .default('documents'),
    act: text('act').notNull().default('acknowledgment'),
    /** The two-letter state the person is in (their fee cap and identity rules are read from it). */
    signerState: text('signer_state'),
    /** The IANA zone times are shown to the person in. */
    timeZone: text('time_zone').notNull().default('UTC'),
    signerCount: integer('signer_count').notNull().default(1),
    /** Witnesses the platform is asked to provide. */
    witnessesRequested: integer('witnesses_requested').notNull().default(0),
    /** The last estimate shown to the person, in cents. */
    estimateCents: integer('estimate_cents'),
    searchStartedAt: timestamp('search_started_at', { withTimezone: true }),
    /** When the search stops offering and the page offers a scheduled time instead. */
    searchEndsAt: timestamp('search_ends_at', { withTimezone: true }),
    matchedNotaryId: uuid('matched_notary_id').references(() => users.id, { onDelete: 'set null' }),
    matchedAt: timestamp('matched_at', { withTimezone: true }),
    finalizedAt: timestamp('finalized_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('instant_requests_one_active_idx')
      .on(table.requestedBy)
      .where(sql`${table.status} in ('setup', 'searching', 'unmatched', 'matched', 'booked')`),
    index('instant_requests_searching_idx').on(table.status, table.searchStartedAt),
    check('instant_requests_signers_check', sql`${table.signerCount} between 1 and 10`),
    check('instant_requests_witnesses_check', sql`${table.witnessesRequested} between 0 and 2`),
  ],
);

/**
 * An offer of a request to one notary (or one platform witness): it rings for 30 s. Nobody is offered
 * the same job twice; a job rings at one person of each kind at a time; a person has one ringing offer.
 * A test offer (an administrator's, from the loop test page) has no request.
 */
export const instantOffers = pgTable(
  'instant_offers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    requestId: uuid('request_id').references(() => instantRequests.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['notary', 'witness'] })
      .notNull()
      .default('notary'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    isTest: boolean('is_test').notNull().default(false),
    status: text('status', { enum: ['open', 'accepted', 'declined', 'expired', 'withdrawn'] })
      .notNull()
      .default('open'),
    offeredAt: timestamp('offered_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (table) => [
    uniqueIndex('instant_offers_once_idx').on(table.requestId, table.userId),
    uniqueIndex('instant_offers_one_open_per_request_idx')
      .on(table.requestId, table.kind)
      .where(sql`${table.status} = 'open'`),
    uniqueIndex('instant_offers_one_open_per_person_idx')
      .on(table.userId)
      .where(sql`${table.status} = 'open'`),
    index('instant_offers_user_idx').on(table.userId, table.offeredAt),
  ],
);

/**
 * A booked session time (decision 051): the notary, the instant, the slot it was cut from. A notary
 * holds one booking per starting time and a job one live booking; the database refuses the second of
 * two people racing for one time. The reminders record when they were sent, so each goes once.
 */
export const sessionBookings = pgTable(
  'session_bookings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    slotId: uuid('slot_id').references(() => availabilitySlots.id, { onDelete: 'set null' }),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    /** The zone the person booked in; invitations and reminders show their time in it. */
    timeZone: text('time_zone').notNull(),
    status: text('status', { enum: ['booked', 'cancelled'] })
      .notNull()
      .default('booked'),
    /** The calendar invitation's SEQUENCE: raised on every change sent. */
    sequence: integer('sequence').notNull().default(0),
    remindedDayBeforeAt: timestamp('reminded_day_before_at', { withTimezone: true }),
    remindedSoonAt: timestamp('reminded_soon_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('session_bookings_notary_time_idx')
      .on(table.notaryId, table.startsAt)
      .where(sql`${table.status} = 'booked'`),
    uniqueIndex('session_bookings_job_idx')
      .on(table.jobId)
      .where(sql`${table.status} = 'booked'`),
    index('session_bookings_starts_idx').on(table.startsAt),
    check('session_bookings_order_check', sql`${table.endsAt} > ${table.startsAt}`),
  ],
);

/**
 * A code mailed to sign in or create a signer account without a password on the way into Notarize Now
 * (decision 051). Only its hash is kept; it lasts 10 minutes and five wrong tries.
 */
export const emailSignInCodes = pgTable(
  'email_sign_in_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    codeHash: text('code_hash').notNull(),
    /** The name a new account gets; null when the address already has an account. */
    name: text('name'),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('email_sign_in_codes_email_idx').on(table.email, table.createdAt)],
);
