import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '#server/db/client.ts';
import { startEmbeddedMaintenance } from './embedded-maintenance.ts';

function createLog() {
  const entries: { message: string; object: unknown }[] = [];
  return {
    entries,
    info: (object: unknown, message: string) => entries.push({ object, message }),
    error: (object: unknown, message: string) => entries.push({ object, message }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('embedded database maintenance', () => {
  let database: Database | null = null;
  afterEach(async () => {
    await database?.close();
    database = null;
  });

  it('vacuums and analyzes the tables at its interval, logs each pass, and starts none once stopped', async () => {
    database = await createDatabase({ databaseUrl: null, dataDir: null });
    const { db } = database;
    await db.execute(sql`create table maintenance_probe (id integer primary key, body text)`);
    await db.execute(sql`insert into maintenance_probe select n, repeat('x', 100) from generate_series(1, 2000) as n`);
    await db.execute(sql`delete from maintenance_probe where id % 2 = 0`);
    const log = createLog();
    const maintenance = startEmbeddedMaintenance(database, log, 100);
    expect(maintenance).not.toBeNull();

    const deadline = Date.now() + 20_000;
    while (!log.entries.some((entry) => entry.message === 'embedded database vacuumed and checkpointed')) {
      if (Date.now() > deadline) throw new Error(`no maintenance pass: ${JSON.stringify(log.entries)}`);
      await sleep(50);
    }
    const stats = (await db.execute(
      sql`select vacuum_count::int as vacuums, analyze_count::int as analyzes, n_dead_tup::int as dead from pg_stat_user_tables where relname = 'maintenance_probe'`,
    )) as unknown as { rows: { vacuums: number; analyzes: number; dead: number }[] };
    expect(stats.rows[0]?.vacuums).toBeGreaterThan(0);
    expect(stats.rows[0]?.analyzes).toBeGreaterThan(0);
    expect(stats.rows[0]?.dead).toBe(0);

    await maintenance?.stop();
    const passesAtStop = log.entries.length;
    await sleep(500);
    expect(log.entries).toHaveLength(passesAtStop);
    expect(log.entries.every((entry) => entry.message === 'embedded database vacuumed and checkpointed')).toBe(true);
  });

  it('starts nothing on the PostgreSQL server, which has autovacuum, nor when its interval is 0', () => {
    const log = createLog();
    expect(startEmbeddedMaintenance({ db: null as never, kind: 'postgres' }, log, 100)).toBeNull();
    expect(startEmbeddedMaintenance({ db: null as never, kind: 'pglite' }, log, 0)).toBeNull();
  });
});
