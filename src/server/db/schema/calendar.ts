import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

/**
 * A person's own calendar event (SPEC: /api/google/events; decision 052): a title, a start and an
 * end kept as instants, the zone they were entered in, and notes. Only its owner reads or changes it.
 */
export const calendarEvents = pgTable(
  'calendar_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    /** The IANA zone the person entered the event in; the feed writes it with this zone. */
    timeZone: text('time_zone').notNull(),
    notes: text('notes'),
    /** Raised on every change, so a subscribed calendar takes the newest (the feed's SEQUENCE). */
    sequence: integer('sequence').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('calendar_events_user_idx').on(table.userId, table.startsAt),
    check('calendar_events_order_check', sql`${table.endsAt} > ${table.startsAt}`),
  ],
);

/**
 * A person's secret iCalendar feed (decision 052): only the SHA-256 of its token is kept, so the
 * address is shown once, when it is made. Regenerating revokes the old one (revokedAt) and makes a
 * new row; at most one is live per person.
 */
export const calendarFeeds = pgTable(
  'calendar_feeds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastReadAt: timestamp('last_read_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('calendar_feeds_one_live_idx')
      .on(table.userId)
      .where(sql`${table.revokedAt} is null`),
  ],
);
