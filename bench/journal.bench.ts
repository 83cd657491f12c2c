/**
 * Benchmark of the notary journal's exports: GET /api/notary-log/export.csv (and the JSON
 * export beside it) over HTTP for a notary whose journal holds N final entries, N = 10,000 then
 * 100,000, with the time, the rows per second and the memory of the process during the export; and
 * the signed PDF at its limit (5,000 entries), once.
 *
 *   npm run bench:journal                                                    (PGlite)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:journal    (PGlite, then PostgreSQL)
 *
 * How: a temporary DATA_DIR holds a PGlite database migrated by the app's own createDatabase().migrate();
 * with DATABASE_URL (a loopback server; its database serves as the maintenance connection) a fresh
 * database is created there, migrated the same way and dropped at the end. Entries are seeded with
 * set-based SQL (generate_series: one JSON document of ~900 bytes per entry like the journal's, one
 * addendum per ten entries), not through the API, then ANALYZEd. The app (buildApp) listens on
 * 127.0.0.1 in this process, the notary signs in with POST /api/auth/login, and the export is read
 * over HTTP by node:http and thrown away as it arrives (its lines are counted: N + 1 with the header).
 * Memory (RSS and V8 heap used) is sampled every 50 ms during each export, after a forced garbage
 * collection (run with --expose-gc); the figures are the peaks and their rise over the level just
 * before the export. PGlite's database lives in this process, so its memory is in the RSS too.
 *
 * Settings (environment): BENCH_SIZES (10000,100000), BENCH_PDF_ENTRIES (5000, 0 skips the PDF),
 * DATABASE_URL (adds PostgreSQL), BENCH_SKIP_PGLITE (1 measures PostgreSQL only).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { buildApp } from '#server/app.ts';
import { parseConfig } from '#server/config.ts';
import { createDatabase, type Database } from '#server/db/client.ts';
import { notaryProfiles, users } from '#server/db/schema/index.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';

const email = 'notary@bench.open-ron.test';
const password = `bench-${randomBytes(8).toString('hex')}`;
const sampleEveryMs = 50;
const megabyte = 1024 * 1024;

interface Result {
  backend: string;
  format: string;
  entries: number;
  seconds: number;
  rowsPerSecond: number;
  megabytes: number;
  peakRssMb: number;
  rssRiseMb: number;
  peakHeapMb: number;
  heapRiseMb: number;
}

const cleanups: Array<() => Promise<void>> = [];
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.warn(`clean-up failed: ${(error as Error).message}`);
    }
  }
}
process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

function collectGarbage() {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Reads `url` to its end, counting bytes and lines, while memory is sampled. */
async function measureDownload(
  port: number,
  url: string,
  token: string,
): Promise<{
  seconds: number;
  bytes: number;
  lines: number;
  status: number;
  peakRss: number;
  peakHeap: number;
  baseRss: number;
  baseHeap: number;
  body: Buffer | null;
}> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baseRss = process.memoryUsage.rss();
  const baseHeap = process.memoryUsage().heapUsed;
  let peakRss = baseRss;
  let peakHeap = baseHeap;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  }, sampleEveryMs);
  const started = performance.now();
  try {
    return await new Promise((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: url, headers: { authorization: `Bearer ${token}` } }, (response) => {
        let bytes = 0;
        let lines = 0;
        const keep: Buffer[] = [];
        const isKept = url.includes('.pdf') || response.statusCode !== 200;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines += 1;
          if (isKept) keep.push(chunk);
        });
        response.on('end', () => {
          const usage = process.memoryUsage();
          peakRss = Math.max(peakRss, usage.rss);
          peakHeap = Math.max(peakHeap, usage.heapUsed);
          resolve({
            seconds: (performance.now() - started) / 1000,
            bytes,
            lines,
            status: response.statusCode ?? 0,
            peakRss,
            peakHeap,
            baseRss,
            baseHeap,
            body: isKept ? Buffer.concat(keep) : null,
          });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  } finally {
    clearInterval(sampler);
  }
}

/** Adds final entries numbered from+1..to to the notary's journal, with one addendum per ten, in set-based SQL. */
async function seedEntries(database: Database, notaryId: string, from: number, to: number) {
  const started = performance.now();
  await database.db.execute(sql`
    insert into notary_journal_entries (id, notary_id, status, is_test, content, created_at, finalized_at, kept_until)
    select md5('entry' || n)::uuid, ${notaryId}::uuid, 'final', n % 50 = 0,
      jsonb_build_object(
        'notarizedAt', to_char(timestamptz '2026-01-01' + n * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"'),
        'actType', (array['Acknowledgment', 'Jurat', 'Oath or affirmation'])[1 + n % 3],
        'documentName', 'Deed of trust ' || n || '.pdf',
        'documentType', 'Deed of trust',
        'documentDate', '2026-01-01',
        'documentSha256', encode(sha256(('doc' || n)::bytea), 'hex'),
        'signerName', case when n % 97 = 0 then '=HYPERLINK("x")' else 'Signer ' || n end,
        'signerEmail', 'signer' || n || '@example.test',
        'signerAddress', n || ' Maple Avenue, Richmond, VA 23220',
        'identityMethod', 'Credential analysis of a driver''s licence passed; knowledge-based questions passed (5 of 5, attempt 1); selfie compared with the ID photo; confirmed by the notary',
        'isIdentityProven', true,
        'identityEvidence', jsonb_build_object('documentType', 'drivers_license', 'issuer', 'Virginia', 'expiryDate', '2030-03-01', 'documentNumber', lpad(n::text, 9, '0'), 'documentNumberNote', null),
        'isIdentifiedByCredibleWitness', false,
        'credibleWitnesses', '[]'::jsonb,
        'witnesses', '[]'::jsonb,
        'recordingReference', 'recording ' || md5('rec' || n),
        'feeCents', 2500,
        'notes', case when n % 7 = 0 then 'Signed willingly, with "quotes", and a comma' else null end,
        'commissionState', 'VA'
      ),
      timestamptz '2026-01-01' + n * interval '1 minute',
      timestamptz '2026-01-01' + n * interval '1 minute' + interval '5 minutes',
      timestamptz '2031-01-01' + n * interval '1 minute'
    from generate_series(${from + 1}::int, ${to}::int) as n`);
  await database.db.execute(sql`
    insert into notary_journal_addenda (entry_id, text, created_by, created_at)
    select md5('entry' || n)::uuid, 'Correction ' || n || ': the fee was waived.', ${notaryId}::uuid, timestamptz '2026-06-01' + n * interval '1 second'
    from generate_series(${from + 1}::int, ${to}::int) as n where n % 10 = 0`);
  await database.db.execute(sql`analyze notary_journal_entries`);
  await database.db.execute(sql`analyze notary_journal_addenda`);
  return (performance.now() - started) / 1000;
}

async function openBackend(kind: 'pglite' | 'postgres', workDir: string, adminUrl: string | null): Promise<{ database: Database; label: string }> {
  if (kind === 'pglite') {
    const database = await createDatabase({ databaseUrl: null, dataDir: path.join(workDir, 'db') });
    cleanups.push(() => database.close());
    return { database, label: 'PGlite' };
  }
  const name = `open_ron_bench_journal_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl ?? '' });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const dropper = new pg.Client({ connectionString: adminUrl ?? '' });
    await dropper.connect();
    await dropper.query(`drop database if exists ${name} with (force)`);
    await dropper.end();
  });
  const url = new URL(adminUrl ?? '');
  url.pathname = `/${name}`;
  const database = await createDatabase({ databaseUrl: url.toString(), dataDir: null });
  cleanups.push(() => database.close());
  const version =
    ((await database.db.execute(sql`show server_version`)) as unknown as { rows: Array<{ server_version: string }> }).rows[0]?.server_version ?? '?';
  return { database, label: `PostgreSQL ${version.split(' ')[0]}` };
}

async function runBackend(kind: 'pglite' | 'postgres', sizes: number[], pdfEntries: number, adminUrl: string | null): Promise<Result[]> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-journal-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const { database, label } = await openBackend(kind, workDir, adminUrl);
  await database.migrate();
  const [notary] = await database.db
    .insert(users)
    .values({ email, name: 'Bench Notary', roles: ['notary'], passwordHash: await hashPassword(password) })
    .returning({ id: users.id });
  if (!notary) throw new Error('no notary');
  await database.db.insert(notaryProfiles).values({
    userId: notary.id,
    commissionState: 'VA',
    commissionNumber: 'VA-BENCH',
    commissionExpiresOn: '2031-06-30',
    county: 'Fairfax',
    approvalStatus: 'approved',
    approvedAt: new Date(),
  });
  const config = parseConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATA_DIR: workDir,
    WEB_DIST_DIR: '/nonexistent-web-build',
    MFA_REQUIRED_ROLES: 'none',
    PUBLIC_URL: 'http://127.0.0.1',
  });
  const app = await buildApp(
    {
      db: database.db,
      dbKind: database.kind,
      config,
      realtime: createInProcessRealtime(),
      secretsKey: randomBytes(32),
      storage: createLocalStorage(path.join(workDir, 'blobs')),
    },
    { logger: false, isEmailDeliveryStarted: false },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const { port } = app.server.address() as AddressInfo;
  const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const token = ((await login.json()) as { sessionToken?: string }).sessionToken;
  if (!token) throw new Error(`sign-in answered ${login.status}`);

  const results: Result[] = [];
  const record = (format: string, entries: number, measured: Awaited<ReturnType<typeof measureDownload>>) => {
    const result: Result = {
      backend: label,
      format,
      entries,
      seconds: measured.seconds,
      rowsPerSecond: entries / measured.seconds,
      megabytes: measured.bytes / megabyte,
      peakRssMb: measured.peakRss / megabyte,
      rssRiseMb: (measured.peakRss - measured.baseRss) / megabyte,
      peakHeapMb: measured.peakHeap / megabyte,
      heapRiseMb: (measured.peakHeap - measured.baseHeap) / megabyte,
    };
    results.push(result);
    console.log(
      `  ${label} ${format.padEnd(4)} ${String(entries).padStart(7)} entries: ${result.seconds.toFixed(2)} s, ${Math.round(result.rowsPerSecond)} rows/s, ${result.megabytes.toFixed(1)} MB; ` +
        `peak RSS ${result.peakRssMb.toFixed(0)} MB (+${result.rssRiseMb.toFixed(0)}), peak heap ${result.peakHeapMb.toFixed(0)} MB (+${result.heapRiseMb.toFixed(0)})`,
    );
  };

  let seeded = 0;
  const seedTo = async (count: number) => {
    const seconds = await seedEntries(database, notary.id, seeded, count);
    console.log(`  ${label}: seeded entries ${seeded + 1}-${count} in ${seconds.toFixed(1)} s`);
    seeded = count;
  };
  const kept = (count: number) => count - Math.floor(count / 50); // every 50th is a test entry, left out by default

  if (pdfEntries > 0) {
    await seedTo(pdfEntries + Math.floor(pdfEntries / 49));
    const measured = await measureDownload(port, '/api/notary-log/export.pdf', token);
    if (measured.status !== 200) throw new Error(`export.pdf answered ${measured.status}: ${measured.body?.toString('utf8').slice(0, 300)}`);
    record('pdf', kept(seeded), measured);
  }
  for (const size of sizes) {
    if (size > seeded) await seedTo(size);
    for (const format of ['csv', 'json'] as const) {
      const measured = await measureDownload(port, `/api/notary-log/export.${format}`, token);
      if (measured.status !== 200) throw new Error(`export.${format} answered ${measured.status}: ${measured.body?.toString('utf8').slice(0, 300)}`);
      // CSV: a header line, then one line per entry; JSON: a header line, one line per entry, the closing line.
      const expected = format === 'csv' ? kept(size) + 1 : kept(size) + 2;
      if (measured.lines !== expected) throw new Error(`export.${format}: ${measured.lines} lines, expected ${expected}`);
      record(format, kept(size), measured);
    }
  }
  return results;
}

async function main() {
  const sizes = (process.env.BENCH_SIZES ?? '10000,100000')
    .split(',')
    .map(Number)
    .filter((value) => value > 0);
  const pdfEntries = Number(process.env.BENCH_PDF_ENTRIES ?? 5000);
  const adminUrl = process.env.DATABASE_URL ?? null;
  if (adminUrl && !/@(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(adminUrl))
    throw new Error('DATABASE_URL must be a loopback server: the benchmark creates and drops a database there.');
  if (!(globalThis as { gc?: unknown }).gc)
    console.warn('Run with node --expose-gc (npm run bench:journal) for memory figures measured from a collected heap.');
  console.log(
    `Journal export benchmark: ${os.cpus().length} cores, Node ${process.version}, sizes ${sizes.join(', ')}${pdfEntries ? `, PDF at ${pdfEntries}` : ''}`,
  );
  const results: Result[] = [];
  const backends: Array<'pglite' | 'postgres'> = [
    ...(process.env.BENCH_SKIP_PGLITE === '1' ? [] : ['pglite' as const]),
    ...(adminUrl ? ['postgres' as const] : []),
  ];
  for (const kind of backends) {
    results.push(...(await runBackend(kind, sizes, pdfEntries, adminUrl)));
    await cleanUp();
  }
  console.log('\n| Database | Export | Entries | Time (s) | Rows/s | Size (MB) | Peak RSS (MB) | RSS rise (MB) | Peak heap (MB) | Heap rise (MB) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const result of results) {
    console.log(
      `| ${result.backend} | ${result.format.toUpperCase()} | ${result.entries} | ${result.seconds.toFixed(2)} | ${Math.round(result.rowsPerSecond)} | ${result.megabytes.toFixed(1)} | ${result.peakRssMb.toFixed(0)} | ${result.rssRiseMb.toFixed(0)} | ${result.peakHeapMb.toFixed(0)} | ${result.heapRiseMb.toFixed(0)} |`,
    );
  }
}

try {
  await main();
} finally {
  await cleanUp();
}
