/**
 * Benchmark of the embedded database's durable commits (decision 038): a small insert, one statement
 * and one commit each, through the app's createDatabase() in a DATA_DIR (fsync on: each commit waits
 * for the WAL's fsync) and through PGlite as the app opened it before (fsync off, nothing fsynced),
 * one after the other in the same temporary folder's file system. Commits/s and latency p50/p99.
 * Then the embedded maintenance pass (VACUUM (ANALYZE) of each table and a CHECKPOINT) on a migrated
 * database with the demo accounts and the rows just inserted.
 *
 *   npm run bench:durability
 *
 * Settings (environment): BENCH_COMMITS (1000), BENCH_CONCURRENCY (1: commits one after another; 8
 * sends eight at a time, as eight requests would).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { createDatabase } from '#server/db/client.ts';
import { PrivateNodeFS } from '#server/db/private-node-fs.ts';
import { seedDemoAccounts } from '#server/features/system/demo.service.ts';
import { startEmbeddedMaintenance } from '#server/tasks/embedded-maintenance.ts';
import { cleanUp, cleanups, readNumber } from './bench-kit.ts';

const commits = readNumber(process.env, 'BENCH_COMMITS', 1000);
const concurrency = readNumber(process.env, 'BENCH_CONCURRENCY', 1);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-durability-'));
cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));

type Execute = (id: number) => Promise<unknown>;

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;

async function measureCommits(label: string, execute: Execute): Promise<void> {
  // A warm-up, so the WAL segment and the table's first pages exist.
  for (let id = 1; id <= 50; id += 1) await execute(-id);
  const latencies: number[] = [];
  let next = 1;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next <= commits) {
        const id = next;
        next += 1;
        const sent = performance.now();
        await execute(id);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((left, right) => left - right);
  console.log(
    `${label.padEnd(34)} ${String(Math.round(commits / seconds)).padStart(6)} commits/s   p50 ${percentile(latencies, 0.5).toFixed(2).padStart(6)} ms   p99 ${percentile(latencies, 0.99).toFixed(2).padStart(6)} ms`,
  );
}

const probeTable = sql`create table durability_bench (id integer primary key, body text not null, at timestamptz not null default now())`;
const insertProbe = (id: number) => sql`insert into durability_bench (id, body) values (${id}, ${'entry '.repeat(30)})`;

try {
  console.log(`Durable commits: ${commits} single-row inserts, ${concurrency} at a time, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`);
  console.log(`Data folder on ${workDir}`);

  // fsync off, nothing fsynced: PGlite as the app opened it before.
  const relaxedDir = path.join(workDir, 'relaxed');
  fs.mkdirSync(relaxedDir);
  const relaxed = new PGlite({ fs: new PrivateNodeFS(relaxedDir) });
  await relaxed.waitReady;
  const relaxedDb = drizzle(relaxed);
  await relaxedDb.execute(probeTable);
  await measureCommits('durability off (fsync off)', (id) => relaxedDb.execute(insertProbe(id)));
  await relaxed.close();

  // The app's embedded database: each commit returns once its WAL is fsynced.
  const durable = await createDatabase({ databaseUrl: null, dataDir: path.join(workDir, 'durable') });
  await durable.migrate();
  await durable.db.execute(probeTable);
  await measureCommits('durability on (fsync per commit)', (id) => durable.db.execute(insertProbe(id)));

  await seedDemoAccounts(durable.db, randomBytes(32));
  await durable.db.execute(sql`update durability_bench set body = body || 'updated' where id % 2 = 0`);
  const log = { info: () => undefined, error: (object: unknown) => console.error(object) };
  const maintenance = startEmbeddedMaintenance(durable, log, 3600_000);
  const tables = (await durable.db.execute(sql`select count(*)::int as n from pg_stat_user_tables`)) as unknown as { rows: { n: number }[] };
  const firstMs = await maintenance?.runOnce();
  const secondMs = await maintenance?.runOnce();
  console.log(
    `maintenance pass (${tables.rows[0]?.n} tables, demo accounts + ${commits + 50} rows, half updated): ${firstMs} ms; again right after: ${secondMs} ms`,
  );
  await maintenance?.stop();
  await durable.close();
} finally {
  await cleanUp();
}
