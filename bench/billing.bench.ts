/**
 * Benchmark of invoicing (decision 049): a month of N completed jobs across C title companies
 * (N = 100,000, C = 500; three charge lines a job), gathered onto the companies' drafts by POST
 * /api/billing/invoices/generate over HTTP, with the time and the memory of the process meanwhile;
 * then every draft is issued through the API and the pending page's call, GET
 * /api/billing/invoices?status=issued (and ?status=overdue, and a search), is timed 30 times each.
 *
 *   npm run bench:billing                                                    (PGlite)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:billing    (PGlite, then PostgreSQL)
 *
 * How: a temporary DATA_DIR holds a PGlite database migrated by the app's own migrate(); with
 * DATABASE_URL (a loopback server) a fresh database is created there and dropped at the end.
 * Companies, jobs and charges are seeded with set-based SQL (generate_series), as recordJobCharges
 * would have written them at completion but on no invoice yet, then ANALYZEd. The app listens on
 * 127.0.0.1 in this process; a billing user signs in with POST /api/auth/login. Memory (RSS, V8 heap)
 * is sampled every 50 ms during the gathering, after a forced collection (run with --expose-gc).
 *
 * Settings (environment): BENCH_JOBS (100000), BENCH_COMPANIES (500), DATABASE_URL (adds
 * PostgreSQL), BENCH_SKIP_PGLITE (1 measures PostgreSQL only).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { buildApp } from '#server/app.ts';
import { parseConfig } from '#server/config.ts';
import { createDatabase, type Database } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { cleanUp, cleanups, readNumber } from './bench-kit.ts';
import { reportTargets, type Target } from './targets.ts';

const email = 'billing@bench.open-ron.test';
const password = `bench-${randomBytes(8).toString('hex')}`;
const megabyte = 1024 * 1024;

async function openBackend(kind: 'pglite' | 'postgres', workDir: string, adminUrl: string | null): Promise<{ database: Database; label: string }> {
  if (kind === 'pglite') {
    const database = await createDatabase({ databaseUrl: null, dataDir: path.join(workDir, 'db') });
    cleanups.push(() => database.close());
    return { database, label: 'PGlite' };
  }
  const name = `open_ron_bench_billing_${process.pid}_${Date.now()}`;
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
  return { database, label: 'PostgreSQL' };
}

/** C approved companies; N completed jobs spread over them and over November 2026; three lines a job. */
async function seed(database: Database, jobs: number, companies: number): Promise<number> {
  const started = performance.now();
  await database.db.execute(sql`
    insert into title_companies (name, city, state, approval_status, approved_at)
    select 'Bench Title ' || lpad(i::text, 4, '0'), 'Richmond', 'VA', 'approved', now() from generate_series(1, ${companies}) as i`);
  // A statement per 5,000 jobs: each job's access trigger takes an advisory lock, and one statement
  // holding 100,000 of them runs out of PGlite's lock table.
  for (let from = 1; from <= jobs; from += 5000) {
    const to = Math.min(from + 4999, jobs);
    await database.db.execute(sql`
      insert into jobs (title, notarization_type, status, company_id, created_at)
      select 'Closing ' || i, 'ron', 'completed', c.id, timestamptz '2026-11-01' + (i % 2592000) * interval '1 second'
      from generate_series(${from}::int, ${to}::int) as i
      join (select id, row_number() over (order by name) - 1 as n from title_companies) as c on c.n = i % ${companies}`);
  }
  await database.db.execute(sql`
    insert into job_charges (job_id, company_id, key, label, unit, fee_kind, quantity, unit_amount_cents, amount_cents, price_source, position, created_at)
    select j.id, j.company_id, line.key, line.label, line.unit, line.fee_kind, line.quantity, line.unit_amount_cents,
           line.quantity::bigint * line.unit_amount_cents, 'default', line.position, j.created_at
    from jobs as j
    cross join (values
      ('first_seal', 'Notarial act', 'act', 'notarial', 1, 2500, 0),
      ('platform', 'Platform fee', 'job', 'platform', 1, 1250, 1),
      ('identity_check', 'Identity check', 'signer', 'platform', 2, 400, 2)
    ) as line(key, label, unit, fee_kind, quantity, unit_amount_cents, position)
    where j.status = 'completed'`);
  await database.db.execute(sql`analyze`);
  return (performance.now() - started) / 1000;
}

async function call(port: number, token: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function timeCalls(port: number, token: string, url: string, times: number): Promise<{ medianMs: number; p95Ms: number }> {
  const samples: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    await call(port, token, 'GET', url);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(times / 2)]!, p95Ms: samples[Math.ceil(times * 0.95) - 1]! };
}

async function runBackend(kind: 'pglite' | 'postgres', jobs: number, companies: number, adminUrl: string | null): Promise<Target[]> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-billing-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const { database, label } = await openBackend(kind, workDir, adminUrl);
  await database.migrate();
  await database.db.insert(users).values({ email, name: 'Bench Billing', roles: ['billing'], passwordHash: await hashPassword(password) });
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

  const seedSeconds = await seed(database, jobs, companies);
  console.log(`  ${label}: seeded ${companies} companies, ${jobs} jobs and ${jobs * 3} charges in ${seedSeconds.toFixed(1)} s`);

  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 50);
  const started = performance.now();
  const gathered = await call(port, token, 'POST', '/api/billing/invoices/generate', { period: '2026-11' });
  const gatherSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (gathered.charges !== jobs * 3 || gathered.companies !== companies) throw new Error(`gathered ${JSON.stringify(gathered)}`);
  console.log(
    `  ${label}: gathered ${jobs * 3} charges onto ${companies} drafts in ${gatherSeconds.toFixed(1)} s; ` +
      `RSS ${(base.rss / megabyte).toFixed(0)} → peak ${(peakRss / megabyte).toFixed(0)} MB, heap ${(base.heapUsed / megabyte).toFixed(0)} → peak ${(peakHeap / megabyte).toFixed(0)} MB`,
  );
  // The sums on the drafts are the sums of the lines.
  const check = (await database.db.execute(sql`
    select (select coalesce(sum(total_cents), 0) from invoices)::bigint as invoiced,
           (select coalesce(sum(amount_cents), 0) from job_charges)::bigint as charged`)) as unknown as { rows: Array<{ invoiced: string; charged: string }> };
  const sums = check.rows[0];
  if (!sums || String(sums.invoiced) !== String(sums.charged)) throw new Error(`invoiced ${sums?.invoiced}, charged ${sums?.charged}`);

  const drafts = (await database.db.execute(sql`select id from invoices where status = 'draft'`)) as unknown as { rows: Array<{ id: string }> };
  const issueStarted = performance.now();
  for (const { id } of drafts.rows) await call(port, token, 'POST', `/api/billing/invoices/${id}/issue`);
  console.log(`  ${label}: issued ${drafts.rows.length} invoices through the API in ${((performance.now() - issueStarted) / 1000).toFixed(1)} s`);
  await database.db.execute(sql`update invoices set due_at = now() - interval '1 day' where number like '%1'`);
  const pending = await timeCalls(port, token, '/api/billing/invoices?status=issued&page=1', 30);
  const overdue = await timeCalls(port, token, '/api/billing/invoices?status=overdue&page=2', 30);
  const search = await timeCalls(port, token, '/api/billing/invoices?status=issued&q=Title%2004', 30);
  const detail = await timeCalls(port, token, `/api/billing/invoices/${drafts.rows[0]!.id}`, 30);
  for (const [name, figures] of [
    ['pending, page 1', pending],
    ['overdue, page 2', overdue],
    ['search', search],
    ['one invoice, its first page of jobs', detail],
  ] as const) {
    console.log(`  ${label}: ${name}: median ${figures.medianMs.toFixed(1)} ms, p95 ${figures.p95Ms.toFixed(1)} ms`);
  }
  return [
    { name: `invoicing ${jobs} jobs of ${companies} companies, ${label}`, measured: gatherSeconds, kind: 'max', limit: 60, unit: 's' },
    { name: `heap rise while invoicing, ${label}`, measured: (peakHeap - base.heapUsed) / megabyte, kind: 'max', limit: 64, unit: 'MB' },
    { name: `GET /api/billing/invoices?status=issued p95, ${label}`, measured: pending.p95Ms, kind: 'max', limit: 100, unit: 'ms' },
    { name: `GET /api/billing/invoices?status=overdue p95, ${label}`, measured: overdue.p95Ms, kind: 'max', limit: 100, unit: 'ms' },
  ];
}

async function main() {
  const jobs = readNumber(process.env, 'BENCH_JOBS', 100_000);
  const companies = readNumber(process.env, 'BENCH_COMPANIES', 500);
  const adminUrl = process.env.DATABASE_URL ?? null;
  if (adminUrl && !/@(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(adminUrl))
    throw new Error('DATABASE_URL must be a loopback server: the benchmark creates and drops a database there.');
  console.log(`Invoicing benchmark: ${os.cpus().length} cores, Node ${process.version}, ${jobs} jobs, ${companies} companies`);
  const targets: Target[] = [];
  const backends: Array<'pglite' | 'postgres'> = [
    ...(process.env.BENCH_SKIP_PGLITE === '1' ? [] : ['pglite' as const]),
    ...(adminUrl ? ['postgres' as const] : []),
  ];
  for (const kind of backends) {
    targets.push(...(await runBackend(kind, jobs, companies, adminUrl)));
    await cleanUp();
  }
  reportTargets('the invoicing benchmark', targets);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
