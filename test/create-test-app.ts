import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { buildApp } from '#server/app.ts';
import { parseConfig, type Config } from '#server/config.ts';
import { createDatabase, type Database, type Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { createInProcessRealtime, createRedisRealtime, type RealtimeProvider } from '#server/providers/realtime/realtime.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  database: Database;
  config: Config;
  realtime: RealtimeProvider;
  /** The key sealing TOTP secrets and hashing codes; a second instance (databaseOf) shares it. */
  secretsKey: Buffer;
  blobRoot: string;
  /** Signs a user in through the real login route and returns headers carrying the bearer token. */
  signInAs(user: TestUser): Promise<Record<string, string>>;
  /** The headers of one sign-in per user, kept for the app's life (tests that do not test signing in). */
  headersFor(user: TestUser): Promise<Record<string, string>>;
  createUser(options?: Partial<TestUserOptions>): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestUserOptions {
  name: string;
  email: string;
  password: string;
  roles: Role[];
  status: 'active' | 'pending' | 'disabled';
  /** Whether the account has confirmed its email address (self-registered accounts start without). */
  isEmailVerified: boolean;
}

export interface TestUser {
  id: string;
  name: string;
  email: string;
  password: string;
  roles: Role[];
}

/** TEST_DATABASE_URL runs the suite on a real PostgreSQL: each app gets a database of its own. */
async function createTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dump = fs.readFileSync(inject('pgliteDumpPath'));
    const database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: new Blob([dump]) });
    return { database, drop: async () => {} };
  }
  const name = `ron_test_${randomUUID().replace(/-/g, '')}`;
  const template = inject('postgresTemplate');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({ databaseUrl: url.toString(), dataDir: null });
  // A copy of the template is migrated already (this finds nothing to do); without one it migrates.
  await database.migrate();
  return {
    database,
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

export interface SharedTestPieces {
  /** A realtime provider shared with other apps (the caller closes it). */
  realtime?: RealtimeProvider;
  /** Another test app whose database this one uses too, as a second instance of one deployment (that app closes it). */
  databaseOf?: TestApp;
  /** Receives the app's log lines (one JSON object each) at the env's LOG_LEVEL; without it the app logs nothing. */
  logStream?: { write(line: string): void };
  /** A media hub for the app (the caller closes it). */
  video?: VideoProvider;
}

/** The real app on a fresh migrated database, driven in-process through `app.inject`. */
export async function createTestApp(env: Record<string, string> = {}, shared: SharedTestPieces = {}): Promise<TestApp> {
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WEB_DIST_DIR: '/nonexistent-web-build', MFA_REQUIRED_ROLES: 'none', ...env });
  const ownsDatabase = !shared.databaseOf;
  const { database, drop } = shared.databaseOf ? { database: shared.databaseOf.database, drop: async () => {} } : await createTestDatabase();
  const ownsRealtime = !shared.realtime;
  const realtime = shared.realtime ?? (process.env.TEST_REDIS_URL ? await createRedisRealtime(process.env.TEST_REDIS_URL) : createInProcessRealtime());
  const secretsKey = shared.databaseOf?.secretsKey ?? randomBytes(32);
  const blobRoot = shared.databaseOf?.blobRoot ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ron-blobs-'));
  const app = await buildApp(
    {
      db: database.db,
      dbKind: database.kind,
      config,
      realtime,
      secretsKey,
      storage: createLocalStorage(blobRoot),
      ...(shared.video ? { video: shared.video } : {}),
    },
    // Without SMTP_URL the outbox is not delivered by a timer: tests read queued mail from the table
    // (delivery would replace its links), or call app.emailDelivery.runOnce() themselves.
    {
      ...(shared.logStream ? { logStream: shared.logStream } : { logger: false }),
      isEmailDeliveryStarted: Boolean(env.SMTP_URL),
      isWebhookDeliveryStarted: false,
      // Archives are built when asked for (wake) or by app.archiveBuilder.runOnce(), not by a timer.
      isArchiveBuilderStarted: false,
    },
  );
  await app.ready();
  let counter = 0;

  const createUser = async (options: Partial<TestUserOptions> = {}): Promise<TestUser> => {
    counter += 1;
    const password = options.password ?? `pw-${randomUUID()}`;
    const roles = options.roles ?? ['signer'];
    const email = (options.email ?? `user${counter}-${randomUUID().slice(0, 8)}@example.test`).toLowerCase();
    const name = options.name ?? `Test ${roles[0] ?? 'user'} ${counter}`;
    const [row] = await database.db
      .insert(users)
      .values({
        email,
        name,
        roles,
        passwordHash: await hashPassword(password),
        status: options.status ?? 'active',
        ...(options.isEmailVerified ? { emailVerifiedAt: new Date(), emailVerifiedVia: 'email_link' as const } : {}),
      })
      .returning({ id: users.id });
    if (!row) throw new Error('test user insert failed');
    return { id: row.id, name, email, password, roles };
  };

  const headersOf = new Map<string, Record<string, string>>();
  const signInAs = async (user: TestUser) => {
    const response = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
    if (response.statusCode !== 200) throw new Error(`sign-in failed for ${user.email}: ${response.statusCode} ${response.body}`);
    return { authorization: `Bearer ${response.json().sessionToken as string}` };
  };

  return {
    app,
    db: database.db,
    database,
    config,
    realtime,
    secretsKey,
    blobRoot,
    createUser,
    signInAs,
    headersFor: async (user: TestUser) => {
      const known = headersOf.get(user.id);
      if (known) return known;
      const headers = await signInAs(user);
      headersOf.set(user.id, headers);
      return headers;
    },
    close: async () => {
      await app.close();
      if (ownsRealtime) await realtime.close();
      if (ownsDatabase) {
        await database.close();
        await drop();
      }
    },
  };
}
