import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './client.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

/** Errors nobody handled while a test ran (an unhandled pool error would end the server process). */
function watchUncaught() {
  const seen: unknown[] = [];
  const listener = (error: unknown) => seen.push(error);
  process.on('uncaughtException', listener);
  return { seen, stop: () => process.off('uncaughtException', listener) };
}

async function onServer(query: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await admin.query(query);
  } finally {
    await admin.end();
  }
}

describe.runIf(serverUrl)('the PostgreSQL connection pool', () => {
  let name: string;
  let database: Database;

  beforeEach(async () => {
    name = `ron_pool_${randomUUID().replace(/-/g, '')}`;
    await onServer(`create database ${name}`);
    const url = new URL(serverUrl ?? '');
    url.pathname = `/${name}`;
    database = await createDatabase({ databaseUrl: url.toString(), dataDir: null });
  });
  afterEach(async () => {
    await database.close();
    await onServer(`drop database if exists ${name} with (force)`);
  });

  it('survives the server ending an idle connection (a restart or failover) and reconnects', async () => {
    const watch = watchUncaught();
    try {
      await Promise.all([1, 2, 3].map(() => database.db.execute(sql`select pg_sleep(0.05)`)));
      await onServer(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(watch.seen).toEqual([]);
      const result = (await database.db.execute(sql`select 1 as one`)) as unknown as { rows: unknown[] };
      expect(result.rows).toEqual([{ one: 1 }]);
    } finally {
      watch.stop();
    }
  });

  it('has closed every connection when close() resolves, so the database can be dropped at once', async () => {
    const watch = watchUncaught();
    try {
      await Promise.all([1, 2, 3, 4].map(() => database.db.execute(sql`select pg_sleep(0.05)`)));
      await database.close();
      const open = await onServer(`select count(*)::int as n from pg_stat_activity where datname = '${name}'`);
      expect(open.rows[0]).toEqual({ n: 0 });
      await onServer(`drop database if exists ${name} with (force)`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(watch.seen).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
