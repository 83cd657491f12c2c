import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { privateDirectoryMode } from '#server/lib/data-dir.ts';
import { createArrivalGate } from './arrival-order.ts';
import { DurableNodeFS, durableStartParams } from './durable-node-fs.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = PgDatabase<PgQueryResultHKT, Schema, any>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const migrationsFolder = path.join(import.meta.dirname, 'migrations');

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** PGlite data folder; null keeps the database in memory. */
  dataDir: string | null;
  /** A PGlite data folder dump (from dumpDataDir) to start from, used by tests. */
  loadDataDir?: Blob;
  /** Told when the server ends an idle PostgreSQL connection (the pool replaces it). */
  onIdleConnectionError?: (error: Error) => void;
}

/** PostgreSQL at DATABASE_URL, else embedded PGlite (in `dataDir`, or in memory for tests). */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection the server ends (a restart, a failover, an administrator) is an 'error' on
    // the pool; unhandled it would end the process. The pool drops that connection and opens a new
    // one for the next query, so there is nothing more to do than say so.
    pool.on('error', (error) => options.onIdleConnectionError?.(error));
    const db = drizzleNodePostgres(pool, { schema }) as unknown as Db;
    let closing: Promise<void> | null = null;
    return {
      db,
      kind: 'postgres',
      migrate: () => migrateNodePostgres(db as never, { migrationsFolder }),
      close: () => (closing ??= closePool(pool)),
    };
  }
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: privateDirectoryMode });
  // In a data folder every acknowledged commit is on the disk (durable-node-fs.ts); in memory there is
  // no disk to reach, so PostgreSQL keeps PGlite's fsync off.
  const client = options.dataDir
    ? new PGlite({ fs: new DurableNodeFS(options.dataDir), startParams: durableStartParams, loadDataDir: options.loadDataDir })
    : new PGlite({ loadDataDir: options.loadDataDir });
  await client.waitReady;
  // Statements are served in the order their requests arrived, with a turn of the event loop between two
  // (arrival-order.ts). A transaction holds the gate from BEGIN to its end, as PGlite's own lock does.
  const gate = createArrivalGate();
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((...args: Parameters<typeof query>) => gate.run(() => query(...args))) as typeof client.query;
  client.exec = ((...args: Parameters<typeof exec>) => gate.run(() => exec(...args))) as typeof client.exec;
  client.transaction = ((...args: Parameters<typeof transaction>) => gate.run(() => transaction(...args))) as typeof client.transaction;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    close: () => client.close(),
  };
}

/**
 * Ends the pool and waits until every connection has really closed: `pool.end()` resolves once the
 * pool has let go of its connections, before their sockets are closed, so a database dropped right
 * after it would still find them.
 */
async function closePool(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  const allClosed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => {
      open -= 1;
      if (open <= 0) resolve();
    });
  });
  await pool.end();
  await allClosed;
}

/** For tests: a migrated in-memory PGlite dumped once, so each test file starts in ~0.5 s. */
export async function dumpMigratedPglite(): Promise<Blob> {
  const client = new PGlite();
  await client.waitReady;
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  return dump;
}
