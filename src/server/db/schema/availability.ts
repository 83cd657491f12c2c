import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

/**
 * A notary's live availability: one row per notary who ever toggled. The notary is online
 * while `isAvailable` is set and the last heartbeat is at most 90 s old (availability.service.ts);
 * nothing has to run for a silent notary to count as offline.
 */
export const notaryPresence = pgTable(
  'notary_presence',
  {
    notaryId: uuid('notary_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    isAvailable: boolean('is_available').notNull().default(false),
    /** The browser that went online (a random id it keeps in local storage); only its heartbeats count. */
    sessionId: text('session_id'),
    wentOnlineAt: timestamp('went_online_at', { withTimezone: true }),
    lastHeartbeatAt: timestamp('last_heartbeat_at', { withTimezone: true }),
    /** The notary agreed to be sent test offers from the administrators' loop test page (decision 051). */
    acceptsTestOffers: boolean('accepts_test_offers').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('notary_presence_heartbeat_idx').on(table.lastHeartbeatAt)],
);

/** Times a notary says they can take notarizations, stored as instants with the zone they were entered in. */
export const availabilitySlots = pgTable(
  'availability_slots',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notaryId: uuid('notary_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    /** The IANA zone the notary entered the slot in; the slot is shown in it. */
    timeZone: text('time_zone').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('availability_slots_notary_idx').on(table.notaryId, table.startsAt),
    check('availability_slots_order_check', sql`${table.endsAt} > ${table.startsAt}`),
  ],
);
