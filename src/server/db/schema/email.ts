import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Mail is written here in the same transaction as the action that sends it; a task delivers it. */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    /** Files sent with the message (a calendar invitation); null for none. */
    attachments: jsonb('attachments').$type<Array<{ filename: string; contentType: string; content: string }>>(),
    kind: text('kind').notNull(),
    status: text('status', { enum: ['pending', 'sending', 'sent', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('email_outbox_due_idx').on(table.status, table.nextAttemptAt)],
);

/**
 * The local mailbox: without SMTP_URL, delivery puts each message here, where administrators read
 * it at /admin/mail. It is the recipient's copy, so it keeps the body (links included); the id is
 * the outbox message's, so a second delivery after a crash keeps one copy.
 */
export const localMailbox = pgTable(
  'local_mailbox',
  {
    id: uuid('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    kind: text('kind').notNull(),
    /** Files sent with the message (a calendar invitation), as SMTP would have carried them. */
    attachments: jsonb('attachments').$type<Array<{ filename: string; contentType: string; content: string }>>(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('local_mailbox_delivered_idx').on(table.deliveredAt)],
);
