import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { titleCompanies } from './title-companies.ts';
import { users } from './users.ts';

/**
 * A title company's API key (decision 054): shown once when made; only its SHA-256 is kept, with a
 * short prefix people recognise it by. Scopes are named in api-keys.service.ts; a key never exceeds
 * its company or its scopes. Revoked keys stay, so the audit trail can name them.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => titleCompanies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first characters of the key, shown in lists so people can tell keys apart. */
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    scopes: text('scopes').array().notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedBy: uuid('revoked_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (table) => [index('api_keys_company_idx').on(table.companyId, table.createdAt)],
);

/**
 * An HTTPS endpoint a title company registered for events (decision 055). The signing secret is kept
 * encrypted with the platform's secrets key (lib/secrets.ts), as the platform must sign with it.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => titleCompanies.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description'),
    /** The event types it receives (webhooks service names them). */
    events: text('events').array().notNull(),
    secretSealed: text('secret_sealed').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** Switched off by its company; kept so its deliveries stay listed. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
  },
  (table) => [index('webhook_endpoints_company_idx').on(table.companyId)],
);

/**
 * One event sent to one endpoint (decision 055): the outbox of webhooks. Written in the transaction
 * of the change it reports, sent by a task, retried with backoff for 24 hours; every try's answer is
 * recorded. A replay is a new delivery of the same event (replayOf).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event's own id, the same on every endpoint and replay (receivers de-duplicate by it). */
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The exact body sent (JSON), so a retry or replay signs and sends the same bytes. */
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    responseStatus: integer('response_status'),
    /** What went wrong on the last try, as a sentence (no answer, a refused address, a status). */
    lastError: text('last_error'),
    replayOf: uuid('replay_of'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    index('webhook_deliveries_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt),
    check('webhook_deliveries_attempts_check', sql`${table.attempts} >= 0`),
  ],
);
