import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uuid, uniqueIndex } from 'drizzle-orm/pg-core';

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash'),
    roles: text('roles')
      .array()
      .notNull()
      .default(sql`'{signer}'::text[]`),
    /** 'rejected': an administrator turned down the notary or title company application; the account cannot sign in. */
    status: text('status', { enum: ['active', 'pending', 'disabled', 'rejected'] })
      .notNull()
      .default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    /** When the person proved they read this address; until then no job is shown to them by email match. */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    /**
     * How: 'email_link' (the confirmation link), 'invitation' (an invitation link sent to the address),
     * 'operator' (set up by whoever runs the server: the first administrator, demo accounts),
     * 'email_code' (a sign-in code mailed to it on the way into Notarize Now, decision 051). The
     * column is plain text: a new value needs no migration.
     */
    emailVerifiedVia: text('email_verified_via', { enum: ['email_link', 'invitation', 'operator', 'email_code'] }),
  },
  (table) => [uniqueIndex('users_email_key').on(table.email)],
);
