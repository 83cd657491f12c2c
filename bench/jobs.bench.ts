/**
 * Benchmark of the jobs list and of a document upload, each beside its baseline in the same run:
 *
 *   - GET /api/jobs for a title agent who may see 1,000 jobs among 100,000 (page 1, page 50 = the
 *     last, and a search q=nguyen), 50 connections, beside a bare Fastify route (bench/bare-server.ts);
 *   - POST /api/jobs/:id/documents of a ~20 MB PDF (20 pages, each a 1 MB uncompressed image), in MB/s,
 *     beside fs.promises.copyFile and a plain read + write of the same file, and beside the upload
 *     route's own steps run here in-process (stream to a temp file while hashing, pdf-lib parse,
 *     content-addressed copy).
 *
 *   npx tsx bench/jobs.bench.ts                                                          (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/jobs.bench.ts   (PostgreSQL)
 *
 * One database per run takes about 1.5 minutes on 2 cores; BENCH_PGLITE=1 with BENCH_DATABASE_URL
 * measures both in one run (about 2.5 minutes).
 *
 * How: a temporary DATA_DIR is created and its PGlite database migrated (the app's own
 * createDatabase().migrate()) and seeded here with set-based SQL (bench/jobs-seed.ts: 100,000 jobs,
 * 200,000 participants, 50,000 documents, then ANALYZE); the measured user's argon2 hash comes from
 * the app's hashPassword. With BENCH_DATABASE_URL (a loopback PostgreSQL server; any database on it
 * serves as the maintenance connection) a fresh database is created, migrated and seeded the same way,
 * and dropped at the end. Before any HTTP load, the list's two queries (captured from findJobs itself)
 * are EXPLAIN ANALYZEd and findJobs is timed in-process, beside a candidate rewrite of the same
 * queries (not the app's code), so a slow list shows why. Then the app runs as a child process
 * (node --import tsx src/server/main.ts, LOG_LEVEL=warn) on that database, the user signs in with
 * POST /api/auth/login and autocannon (in this process) loads one server at a time: one run at 50
 * connections whose first 2 s are a warm-up (they fill the server's queue) and whose last 10 s are
 * measured (answers arriving in that window, their latency and the CPU used meanwhile), then a wait
 * until the server has answered what autocannon left queued. Every response of the run is checked:
 * status 200 and the expected total; "conns answered" shows how many of the 50 connections got an
 * answer inside the window (fewer means some requests waited longer than the window). Loopback
 * only; children are stopped on exit, on error, on time-out and on Ctrl-C, and the temporary
 * folders (and the PostgreSQL database) are removed.
 *
 * Settings (environment): BENCH_DURATION (seconds, 10), BENCH_WARMUP (seconds, 2),
 * BENCH_CONNECTIONS (50), BENCH_JOBS (100000), BENCH_VISIBLE_JOBS (1000), BENCH_UPLOAD_MB (20),
 * BENCH_UPLOAD_RUNS (5), BENCH_DATABASE_URL, BENCH_PGLITE (1 adds PGlite to a PostgreSQL run),
 * BENCH_PLANS (1 prints the full query plans).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState, StandardFonts } from 'pdf-lib';
import { jobListQuerySchema } from '#shared/jobs.ts';
import { createDatabase, type Database, type Db } from '#server/db/client.ts';
import * as schema from '#server/db/schema/index.ts';
import { checkPdf } from '#server/features/documents/pdf-check.ts';
import { findJobs } from '#server/features/jobs/jobs.service.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createLocalStorage, receiveToTempFile } from '#server/providers/storage/storage.ts';
import { seedJobs, type SeedResult } from './jobs-seed.ts';
import { readProcessCpuMs } from './proc-cpu.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const userEmail = 'agent@bench.open-ron.test';
const startupTimeoutMs = 90_000;
/** The hard limit of a run is 30 s + this per database: 3 minutes for one, 5.5 for both (which take about 2.5). */
const timeoutPerDatabaseMs = 150_000;
const requestTimeoutSeconds = 60;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const megabyte = 1_000_000;

interface Settings {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  totalJobs: number;
  visibleJobs: number;
  uploadMegabytes: number;
  uploadRuns: number;
  databaseUrl: string | null;
  hasPglite: boolean;
  isPrintingPlans: boolean;
}

/** Something that answers `query(text, params)` with rows: the PGlite client or a node-postgres pool. */
interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface Backend {
  kind: 'pglite' | 'postgres';
  label: string;
  /** The app's DATA_DIR (secrets key, blobs, and for PGlite the database in DATA_DIR/db). */
  dataDir: string;
  /** The per-run PostgreSQL database (null for PGlite). */
  databaseUrl: string | null;
  database: Database | null;
  /** PostgreSQL only: the pids of the server processes serving this database (their CPU is ours, not other load). */
  findServerPids: (() => Promise<number[]>) | null;
  seed: SeedResult | null;
  serverVersion: string;
  app: AppServer | null;
}

interface Server {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  logPath: string;
}

interface AppServer extends Server {
  token: string;
}

interface ListCase {
  name: string;
  query: { page: number; pageSize: number; q?: string };
}

interface Scenario {
  label: string;
  server: string;
  pid: number | undefined;
  url: string;
  headers: Record<string, string>;
  /** The JSON text every response must contain (the expected total), or null. */
  expected: string | null;
  settleUrl: string | null;
  findServerPids: (() => Promise<number[]>) | null;
}

interface Measurement {
  scenario: Scenario;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  checked: number;
  /** How many of the connections got at least one answer inside the window (all of them, when the server is fair). */
  answeredConnections: number;
  serverCpuMicroseconds: number | null;
  databaseCpuMicroseconds: number | null;
  otherCpuShare: number;
}


const children = new Set<ChildProcess>();
/** Run once, on success, failure, Ctrl-C or time-out: stop the children, drop the PostgreSQL database, remove the temp folder. */
const cleanups: Array<() => Promise<void>> = [];

async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => console.error(`clean-up: ${String(error)}`));
}

function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}").`);
  return value;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const databaseUrl = env.BENCH_DATABASE_URL ? env.BENCH_DATABASE_URL : null;
  if (databaseUrl) {
    const host = new URL(databaseUrl).hostname;
    if (!loopbackHosts.has(host)) throw new Error(`BENCH_DATABASE_URL must point at a loopback host (got "${host}").`);
  }
  const settings: Settings = {
    durationSeconds: readNumber(env, 'BENCH_DURATION', 10),
    warmupSeconds: readNumber(env, 'BENCH_WARMUP', 2),
    connections: Math.round(readNumber(env, 'BENCH_CONNECTIONS', 50)),
    totalJobs: Math.round(readNumber(env, 'BENCH_JOBS', 100_000)),
    visibleJobs: Math.round(readNumber(env, 'BENCH_VISIBLE_JOBS', 1000)),
    uploadMegabytes: readNumber(env, 'BENCH_UPLOAD_MB', 20),
    uploadRuns: Math.round(readNumber(env, 'BENCH_UPLOAD_RUNS', 5)),
    databaseUrl,
    hasPglite: databaseUrl ? env.BENCH_PGLITE === '1' : true,
    isPrintingPlans: env.BENCH_PLANS === '1',
  };
  if (settings.totalJobs % settings.visibleJobs !== 0) throw new Error('BENCH_JOBS must be a multiple of BENCH_VISIBLE_JOBS.');
  return settings;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const loadAverage = () =>
  fs
    .readFileSync('/proc/loadavg', 'utf8')
    .split(' ')
    .slice(0, 3)
    .join(' ');

function pgliteVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

// ---------------------------------------------------------------------------------------------
// Child processes (the approach of bench/auth.bench.ts)

async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function tailOf(logPath: string, lines = 20): string {
  try {
    return fs.readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

function startChild(name: string, workDir: string, script: string, env: Record<string, string>): { child: ChildProcess; logPath: string } {
  const logPath = path.join(workDir, `${name}.log`);
  const fd = fs.openSync(logPath, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return { child, logPath };
}

async function waitForOutput(name: string, child: ChildProcess, logPath: string, pattern: RegExp): Promise<RegExpMatchArray> {
  const deadline = Date.now() + startupTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited during start-up (code ${child.exitCode ?? child.signalCode}):\n${tailOf(logPath)}`);
    }
    const match = fs.readFileSync(logPath, 'utf8').match(pattern);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} did not start within ${startupTimeoutMs / 1000} s:\n${tailOf(logPath)}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function killChildrenNow(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function startBareServer(workDir: string): Promise<Server> {
  const port = await findFreePort();
  const { child, logPath } = startChild('bare', workDir, 'bench/bare-server.ts', { PORT: String(port) });
  await waitForOutput('bare fastify', child, logPath, /listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return { name: 'bare', baseUrl: `http://127.0.0.1:${port}`, child, logPath };
}

async function startApp(backend: Backend, workDir: string, password: string): Promise<AppServer> {
  const port = await findFreePort();
  const name = `app-${backend.kind}`;
  const { child, logPath } = startChild(name, workDir, 'src/server/main.ts', {
    DATA_DIR: backend.dataDir,
    DATABASE_URL: backend.databaseUrl ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    REDIS_URL: '',
    SMTP_URL: '',
    S3_BUCKET: '',
    LOG_LEVEL: 'warn',
  });
  await waitForOutput(name, child, logPath, /Open RON is running at/);
  const baseUrl = `http://127.0.0.1:${port}`;
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: userEmail, password }),
  });
  const signedIn = (await response.json()) as { sessionToken?: string | null; mfaRequired?: boolean };
  if (response.status !== 200 || !signedIn.sessionToken) throw new Error(`${name}: sign-in answered ${response.status}: ${JSON.stringify(signedIn)}`);
  return { name, baseUrl, child, logPath, token: signedIn.sessionToken };
}

// ---------------------------------------------------------------------------------------------
// Databases: create, migrate, seed, diagnose

function clientOf(database: Database): SqlClient {
  return (database.db as unknown as { $client: SqlClient }).$client;
}

async function prepareBackend(kind: Backend['kind'], workDir: string, settings: Settings, passwordHash: string): Promise<Backend> {
  const dataDir = path.join(workDir, `data-${kind}`);
  fs.mkdirSync(dataDir, { recursive: true });
  let databaseUrl: string | null = null;
  let findServerPids: Backend['findServerPids'] = null;
  if (kind === 'postgres' && settings.databaseUrl) {
    const name = `open_ron_bench_jobs_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: settings.databaseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const dropper = new pg.Client({ connectionString: settings.databaseUrl ?? '' });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    });
    const url = new URL(settings.databaseUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    const adminUrl = settings.databaseUrl;
    findServerPids = async () => {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        const result = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name]);
        return result.rows.map((row) => row.pid);
      } finally {
        await admin.end();
      }
    };
  }
  const label = kind === 'pglite' ? 'PGlite' : 'PostgreSQL';
  const started = performance.now();
  const database = await createDatabase({ databaseUrl, dataDir: databaseUrl ? null : path.join(dataDir, 'db') });
  await database.migrate();
  const migratedMs = performance.now() - started;
  const seed = await seedJobs(database.db, { totalJobs: settings.totalJobs, visibleJobs: settings.visibleJobs, otherUsers: 500, email: userEmail, passwordHash });
  const [versionRow] = (await clientOf(database).query('select version() as version')).rows as Array<{ version: string }>;
  const serverVersion = (versionRow?.version ?? 'unknown').split(' ').slice(0, 2).join(' ');
  console.log(
    `  ${label}: created and migrated in ${(migratedMs / 1000).toFixed(1)} s, seeded in ${((performance.now() - started - migratedMs) / 1000).toFixed(1)} s ` +
      `(${seed.rows.users} users, ${seed.rows.jobs} jobs, ${seed.rows.participants} participants, ${seed.rows.documents} documents)`,
  );
  return { kind, label, dataDir, databaseUrl, database, findServerPids, seed, serverVersion, app: null };
}

/** The same two queries as findJobs, rewritten: visible ids as an array (index lookups), and the page cut before the joins and counts. */
function candidateQueries(search: boolean, offset: number): { list: string; count: string } {
  const visible = `array(select id from jobs where created_by = $1
      union select id from jobs where notary_id = $1
      union select j.id from jobs j join title_company_members m on m.company_id = j.company_id where m.user_id = $1 and m.role in ('title', 'title_agent')
      union select job_id from job_participants where user_id = $1)`;
  const filter = search ? `and title ilike $2` : '';
  return {
    list: `select page.*, users.name as notary_name, title_companies.name as company_name,
        (select count(*)::int from job_participants p where p.job_id = page.id) as participant_count,
        (select count(*)::int from documents d where d.job_id = page.id) as document_count
      from (select * from jobs where id = any(${visible}) ${filter} order by updated_at desc, id desc limit 20 offset ${offset}) page
      left join users on users.id = page.notary_id left join title_companies on title_companies.id = page.company_id
      order by page.updated_at desc, page.id desc`,
    count: `select count(*)::int as count from jobs where id = any(${visible}) ${filter}`,
  };
}

/** One line per plan: execution time, how the jobs table is read, and how often the per-row subqueries ran. */
function summarizePlan(lines: string[]): string {
  const time = lines.find((line) => line.includes('Execution Time'))?.match(/([\d.]+) ms/)?.[1] ?? '?';
  const scans: string[] = [];
  lines.forEach((line, index) => {
    // the outer jobs table only (the union's branches read jobs through their own indexes, as jobs_1, j, ...)
    if (!/(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan) (using \S+ )?on jobs( |$)/.test(line) || /on jobs (j|jobs_\d+)\b/.test(line)) return;
    const kind = line.match(/(Seq Scan|Bitmap Heap Scan|Index Only Scan|Index Scan)( using \S+)?/)?.[0] ?? '';
    const rows = line.match(/actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+) loops=(\d+)/);
    const kept = rows ? Math.round(Number(rows[1]) * Number(rows[2])) : NaN;
    const next = lines.slice(index + 1).findIndex((other) => other.includes('->'));
    const details = lines.slice(index + 1, next < 0 ? undefined : index + 1 + next);
    const removed = Number(details.find((other) => other.includes('Rows Removed by Filter'))?.match(/(\d+)/)?.[1] ?? 0);
    scans.push(`${kind} on jobs reads ${kept + removed} rows${removed ? ` (keeps ${kept})` : ''}`);
  });
  const isHashJoin = lines.some((line) => /Hash (Semi )?Join/.test(line));
  const subplanLoops = lines
    .filter((line) => /Aggregate .*loops=(\d+)/.test(line))
    .map((line) => Number(line.match(/loops=(\d+)/)?.[1] ?? 0))
    .reduce((most, loops) => Math.max(most, loops), 0);
  return (
    `${time.padStart(7)} ms: ${scans.join(', ') || 'no direct scan of jobs'}${isHashJoin ? ', hash-joined to the visible ids' : ''}` +
    `${subplanLoops > 1 ? `; the two per-row counts run ${subplanLoops} times` : ''}`
  );
}

/** EXPLAIN ANALYZE of the list's own SQL (captured from findJobs), then findJobs and the candidate timed in-process, serially. */
async function diagnose(backend: Backend, cases: ListCase[], settings: Settings): Promise<string[][]> {
  const database = backend.database;
  const seed = backend.seed;
  if (!database || !seed) throw new Error('diagnose: backend not prepared');
  const client = clientOf(database);
  const captured: Array<{ query: string; params: unknown[] }> = [];
  const logger = { logQuery: (query: string, params: unknown[]) => void captured.push({ query, params }) };
  const loggingDb = (
    backend.kind === 'pglite'
      ? drizzlePglite(client as unknown as PGlite, { schema, logger })
      : drizzleNodePostgres(client as unknown as pg.Pool, { schema, logger })
  ) as unknown as Db;
  const user = { id: seed.userId, roles: ['title_agent'] };
  const ctxOf = (db: Db) => ({ db, user }) as unknown as Ctx;
  const rows: string[][] = [];
  console.log(`  ${backend.label} (${backend.serverVersion}): plans of findJobs' two queries (EXPLAIN ANALYZE, parameters as sent):`);
  for (const listCase of cases) {
    const query = jobListQuerySchema.parse(listCase.query);
    captured.length = 0;
    const appResult = await findJobs(ctxOf(loggingDb), query);
    for (const [index, statement] of captured.entries()) {
      const plan = (await client.query(`explain (analyze, buffers) ${statement.query}`, statement.params)).rows as Array<Record<string, string>>;
      const lines = plan.map((row) => Object.values(row)[0] ?? '');
      console.log(`    ${listCase.name.padEnd(12)} ${index === 0 ? 'list ' : 'count'} ${summarizePlan(lines)}`);
      if (settings.isPrintingPlans) console.log(`${statement.query}\n${lines.join('\n')}\n`);
    }
    // the candidate rewrite must answer the same page and total
    const candidate = candidateQueries(Boolean(query.q), (query.page - 1) * query.pageSize);
    const params = query.q ? [seed.userId, `%${query.q}%`] : [seed.userId];
    const runCandidate = async () => {
      const [list, count] = await Promise.all([client.query(candidate.list, params), client.query(candidate.count, params)]);
      return { ids: (list.rows as Array<{ id: string }>).map((row) => row.id), total: (count.rows as Array<{ count: number }>)[0]?.count ?? -1 };
    };
    const candidateResult = await runCandidate();
    const isSame = candidateResult.total === appResult.total && candidateResult.ids.join() === appResult.items.map((item) => item.id).join();
    if (!isSame) throw new Error(`${backend.label} ${listCase.name}: the candidate rewrite answers a different page or total`);
    const appMs: number[] = [];
    const candidateMs: number[] = [];
    for (let run = 0; run < 4; run += 1) {
      const app = await timed(() => findJobs(ctxOf(database.db), query));
      const rewritten = await timed(runCandidate);
      if (run === 0) continue;
      appMs.push(app.ms);
      candidateMs.push(rewritten.ms);
    }
    rows.push([backend.label, listCase.name, String(appResult.total), median(appMs).toFixed(1), median(candidateMs).toFixed(1), `${(median(appMs) / median(candidateMs)).toFixed(1)}x`]);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Load

interface Window {
  at: number;
  machineBusyMs: number;
  ownMs: number;
  serverMs: number | null;
  databaseMs: Map<number, number>;
}

/** CPU counters at one instant: the machine, this process and its children, the server, PostgreSQL's backends of this run's database. */
function takeWindowSnapshot(serverPid: number | undefined, databasePids: number[]): Window {
  const machineBusyMs = os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
  const own = process.cpuUsage();
  const childrenMs = [...children].reduce((sum, child) => sum + (readProcessCpuMs(child.pid) ?? 0), 0);
  const databaseMs = new Map(databasePids.map((pid) => [pid, readProcessCpuMs(pid) ?? 0] as const));
  return { at: performance.now(), machineBusyMs, ownMs: (own.user + own.system) / 1000 + childrenMs, serverMs: readProcessCpuMs(serverPid), databaseMs };
}

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? NaN;
}

/**
 * One autocannon run of warm-up + duration at full concurrency, so the server's queue is already at its
 * steady depth when the measured window opens; only the answers that arrive inside the window count.
 */
async function runWindow(scenario: Scenario, settings: Settings): Promise<{ latencies: number[]; answeredConnections: number; before: Window; after: Window }> {
  const expected = scenario.expected;
  const latencies: number[] = [];
  const answered = new Set<unknown>();
  let before: Window | null = null;
  let isOpen = false;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: scenario.url,
        connections: settings.connections,
        duration: settings.warmupSeconds + settings.durationSeconds,
        timeout: requestTimeoutSeconds,
        headers: scenario.headers,
        ...(expected ? { verifyBody: (body: unknown) => String(body).includes(expected) } : {}),
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    instance.on('response', (client, _statusCode, _bytes, responseTime) => {
      if (!isOpen) return;
      latencies.push(responseTime);
      answered.add(client);
    });
    setTimeout(() => {
      void (async () => {
        const pids = scenario.findServerPids ? await scenario.findServerPids() : [];
        before = takeWindowSnapshot(scenario.pid, pids);
        isOpen = true;
      })().catch(reject);
    }, settings.warmupSeconds * 1000);
  });
  isOpen = false;
  const pidsAfter = scenario.findServerPids ? await scenario.findServerPids() : [];
  const opened = before as Window | null;
  if (!opened) throw new Error(`${scenario.label}: the measured window never opened`);
  const after = takeWindowSnapshot(scenario.pid, [...new Set([...opened.databaseMs.keys(), ...pidsAfter])]);
  // every answer of the whole run (warm-up included) must be a 200 with the expected total
  const failures = result.non2xx + result.errors + result.timeouts + result.mismatches;
  if (failures > 0) {
    throw new Error(
      `${scenario.label} on ${scenario.server}: ${result.non2xx} non-2xx (4xx ${result['4xx']}, 5xx ${result['5xx']}), ${result.errors} errors, ` +
        `${result.timeouts} timeouts, ${result.mismatches} bodies without ${expected} out of ${result.requests.total}.`,
    );
  }
  return { latencies, answeredConnections: answered.size, before: opened, after };
}

/** autocannon leaves its last requests queued in the server: wait until one more request gets through. */
async function settle(scenario: Scenario): Promise<void> {
  if (!scenario.settleUrl) return;
  const response = await fetch(scenario.settleUrl, { headers: scenario.headers });
  if (response.status !== 200) throw new Error(`settle: ${scenario.settleUrl} answered ${response.status}`);
  await response.arrayBuffer();
}

async function measure(scenario: Scenario, settings: Settings): Promise<Measurement> {
  process.stdout.write(`  ${scenario.label} on ${scenario.server} ... `);
  const { latencies, answeredConnections, before, after } = await runWindow(scenario, settings);
  const settleStarted = performance.now();
  await settle(scenario);
  const settleMs = performance.now() - settleStarted;
  const windowMs = after.at - before.at;
  const count = latencies.length;
  const sorted = [...latencies].sort((left, right) => left - right);
  const databaseMs = [...after.databaseMs].reduce((sum, [pid, ms]) => sum + ms - (before.databaseMs.get(pid) ?? 0), 0);
  const capacityMs = windowMs * os.cpus().length;
  const oursMs = after.ownMs - before.ownMs + databaseMs;
  const otherMs = after.machineBusyMs - before.machineBusyMs - oursMs;
  const measurement: Measurement = {
    scenario,
    requestsPerSecond: count / (windowMs / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanMs: count ? latencies.reduce((sum, value) => sum + value, 0) / count : NaN,
    checked: count,
    answeredConnections,
    serverCpuMicroseconds: before.serverMs === null || after.serverMs === null || count === 0 ? null : ((after.serverMs - before.serverMs) * 1000) / count,
    databaseCpuMicroseconds: after.databaseMs.size === 0 || count === 0 ? null : (databaseMs * 1000) / count,
    otherCpuShare: capacityMs > 0 ? Math.min(1, Math.max(0, otherMs / capacityMs)) : 0,
  };
  console.log(
    `${measurement.requestsPerSecond.toFixed(1)} req/s, p50 ${formatMs(measurement.p50Ms)} ms, p99 ${formatMs(measurement.p99Ms)} ms, mean ${formatMs(measurement.meanMs)} ms, ` +
      `p10 ${formatMs(percentile(sorted, 0.1))} ms, p90 ${formatMs(percentile(sorted, 0.9))} ms, ${count} answers in the window on ${answeredConnections} of ${settings.connections} connections, other processes ${Math.round(measurement.otherCpuShare * 100)}% of the CPU` +
      (settleMs > 500 ? `; ${(settleMs / 1000).toFixed(1)} s to answer what was still queued` : ''),
  );
  return measurement;
}

function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Checks one page by hand (status, total, page size) before loading it. */
async function checkList(app: AppServer, url: string, total: number, pageLength: number): Promise<void> {
  const response = await fetch(`${app.baseUrl}${url}`, { headers: { authorization: `Bearer ${app.token}` } });
  const body = (await response.json()) as { total?: number; items?: unknown[] };
  if (response.status !== 200 || body.total !== total || body.items?.length !== pageLength) {
    throw new Error(`${app.name} GET ${url}: status ${response.status}, total ${body.total} (expected ${total}), ${body.items?.length} items (expected ${pageLength})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Upload

const markerText = 'OPEN-RON-BENCH-UPLOAD-MARKER-000';

/** A real PDF of `megabytes` MB: 20 letter pages, each a title and a full-page uncompressed RGB image (a scan). */
async function makeUploadPdf(megabytes: number): Promise<{ bytes: Buffer; markerOffset: number; pageCount: number }> {
  const pageCount = 20;
  const width = 1000;
  const height = Math.max(1, Math.round((megabytes * megabyte) / pageCount / (width * 3)));
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pageCount; index += 1) {
    const pixels = randomBytes(width * height * 3);
    if (index === 0) pixels.write(markerText, 0, 'latin1');
    const image = pdf.context.register(pdf.context.stream(pixels, { Type: 'XObject', Subtype: 'Image', Width: width, Height: height, ColorSpace: 'DeviceRGB', BitsPerComponent: 8 }));
    const page = pdf.addPage([612, 792]);
    const name = page.node.newXObject('Scan', image);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(540, 0, 0, 540 * (height / width), 36, 100), drawObject(name), popGraphicsState());
    page.drawText(`Scanned closing package, page ${index + 1} of ${pageCount}`, { x: 36, y: 740, size: 14, font });
  }
  pdf.setTitle('Upload benchmark');
  const bytes = Buffer.from(await pdf.save());
  const markerOffset = bytes.indexOf(markerText, 0, 'latin1');
  if (markerOffset < 0) throw new Error('the upload PDF lost its marker');
  return { bytes, markerOffset, pageCount };
}

/** The same PDF with different pixels in its first image, so each upload is a new blob (storage skips a known hash). */
function variantOf(upload: { bytes: Buffer; markerOffset: number }, label: string): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from(upload.bytes);
  bytes.write(label.padEnd(markerText.length, '-').slice(0, markerText.length), upload.markerOffset, 'latin1');
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

interface UploadRow {
  label: string;
  samplesMs: number[];
  note: string;
}

async function measureUploads(app: AppServer, upload: { bytes: Buffer; markerOffset: number; pageCount: number }, settings: Settings): Promise<{ ms: number[]; serverCpuMs: number[] }> {
  const headers = { authorization: `Bearer ${app.token}` };
  const created = await fetch(`${app.baseUrl}/api/jobs`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Upload benchmark', notarizationType: 'acknowledgment' }),
  });
  const job = (await created.json()) as { id?: string };
  if (created.status !== 201 || !job.id) throw new Error(`${app.name}: POST /api/jobs answered ${created.status}: ${JSON.stringify(job)}`);
  const ms: number[] = [];
  const serverCpuMs: number[] = [];
  for (let run = 0; run <= settings.uploadRuns; run += 1) {
    const variant = variantOf(upload, `${app.name}-${run}-${Date.now()}`);
    const form = new FormData();
    form.append('tag', 'signing');
    form.append('file', new Blob([new Uint8Array(variant.bytes)], { type: 'application/pdf' }), `closing-package-${run}.pdf`);
    const cpuBefore = readProcessCpuMs(app.child.pid);
    const { ms: elapsed, result } = await timed(async () => {
      const response = await fetch(`${app.baseUrl}/api/jobs/${job.id}/documents`, { method: 'POST', headers, body: form });
      return { status: response.status, body: (await response.json()) as { items?: Array<{ sha256: string; sizeBytes: number; pageCount: number }> } };
    });
    const cpuAfter = readProcessCpuMs(app.child.pid);
    const stored = result.body.items?.[0];
    if (result.status !== 201 || stored?.sha256 !== variant.sha256 || stored.sizeBytes !== variant.bytes.length || stored.pageCount !== upload.pageCount) {
      throw new Error(`${app.name}: upload ${run} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 300)}`);
    }
    if (run === 0) continue; // warm-up
    ms.push(elapsed);
    if (cpuBefore !== null && cpuAfter !== null) serverCpuMs.push(cpuAfter - cpuBefore);
  }
  return { ms, serverCpuMs };
}

/** The baselines and the upload route's own steps, here in-process on the same file system. */
async function measureFileBaselines(workDir: string, upload: { bytes: Buffer; markerOffset: number; pageCount: number }, settings: Settings): Promise<UploadRow[]> {
  const scratch = path.join(workDir, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  const source = path.join(scratch, 'source.pdf');
  fs.writeFileSync(source, upload.bytes);
  const rows: UploadRow[] = [
    { label: 'fs.promises.copyFile', samplesMs: [], note: 'kernel copy (copy_file_range), page cache' },
    { label: 'readFile + writeFile', samplesMs: [], note: 'through a 20 MB Buffer' },
    { label: 'step: stream to temp file + sha256', samplesMs: [], note: 'receiveToTempFile, from a file stream' },
    { label: 'step: checkPdf (read + pdf-lib parse)', samplesMs: [], note: 'checkPdf' },
    { label: 'step: storage putFile (copy + rename)', samplesMs: [], note: 'createLocalStorage().putFile' },
  ];
  const [copyRow, readWriteRow, receiveRow, parseRow, putRow] = rows as [UploadRow, UploadRow, UploadRow, UploadRow, UploadRow];
  const storage = createLocalStorage(path.join(scratch, 'blobs'));
  for (let run = 0; run <= settings.uploadRuns; run += 1) {
    const keep = run > 0;
    const copyTarget = path.join(scratch, `copy-${run}.pdf`);
    const copy = await timed(() => fs.promises.copyFile(source, copyTarget));
    const readWriteTarget = path.join(scratch, `read-write-${run}.pdf`);
    const readWrite = await timed(async () => fs.promises.writeFile(readWriteTarget, await fs.promises.readFile(source)));
    fs.rmSync(copyTarget);
    fs.rmSync(readWriteTarget);
    const variantPath = path.join(scratch, `variant-${run}.pdf`);
    fs.writeFileSync(variantPath, variantOf(upload, `steps-${run}-${Date.now()}`).bytes);
    const received = await timed(() => receiveToTempFile(fs.createReadStream(variantPath), path.join(scratch, 'tmp'), 50 * 1024 * 1024));
    const parsed = await timed(() => checkPdf(received.result.filePath, received.result.head, 'bench.pdf'));
    if (parsed.result !== upload.pageCount) throw new Error(`checkPdf counted ${parsed.result} pages`);
    const put = await timed(() => storage.putFile(received.result.filePath, received.result.sha256, 'application/pdf'));
    fs.rmSync(received.result.filePath);
    fs.rmSync(variantPath);
    if (!keep) continue;
    copyRow.samplesMs.push(copy.ms);
    readWriteRow.samplesMs.push(readWrite.ms);
    receiveRow.samplesMs.push(received.ms);
    parseRow.samplesMs.push(parsed.ms);
    putRow.samplesMs.push(put.ms);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Output

function formatTable(header: string[], rows: string[][], rightAligned: Set<number> = new Set()): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned.has(column) ? `${'-'.repeat(Math.max(1, width - 1))}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const startedAt = performance.now();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-jobs-bench-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const loadAtStart = loadAverage();
  try {
    const cpus = os.cpus();
    console.log(`Open RON jobs list and upload benchmark: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`);
    console.log(`Load average at start: ${loadAtStart}. ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per row, ${settings.connections} connections.`);

    console.log(`Preparing databases (${settings.totalJobs} jobs, ${settings.visibleJobs} visible to ${userEmail}) and the ${settings.uploadMegabytes} MB PDF ...`);
    const password = randomBytes(12).toString('base64url');
    const passwordHash = await hashPassword(password);
    const kinds: Backend['kind'][] = [...(settings.hasPglite ? (['pglite'] as const) : []), ...(settings.databaseUrl ? (['postgres'] as const) : [])];
    const [backends, upload] = await Promise.all([
      Promise.all(kinds.map((kind) => prepareBackend(kind, workDir, settings, passwordHash))),
      makeUploadPdf(settings.uploadMegabytes),
    ]);

    const cases: ListCase[] = [
      { name: 'page 1', query: { page: 1, pageSize: 20 } },
      { name: `page ${settings.visibleJobs / 20}`, query: { page: settings.visibleJobs / 20, pageSize: 20 } },
      { name: 'search', query: { page: 1, pageSize: 20, q: backends[0]?.seed?.searchTerm ?? 'nguyen' } },
    ];
    console.log('Diagnosis, before any HTTP load:');
    const diagnosis: string[][] = [];
    for (const backend of backends) {
      diagnosis.push(...(await diagnose(backend, cases, settings)));
      await backend.database?.close();
      backend.database = null;
    }

    console.log('Starting the bare Fastify server and the app on each database (LOG_LEVEL=warn) as child processes ...');
    const [bare] = await Promise.all([
      startBareServer(workDir),
      ...backends.map(async (backend) => {
        backend.app = await startApp(backend, workDir, password);
      }),
    ]);

    const scenarios: Scenario[] = [
      { label: 'GET /bare', server: 'bare Fastify 5', pid: bare.child.pid, url: `${bare.baseUrl}/bare`, headers: {}, expected: null, settleUrl: null, findServerPids: null },
    ];
    for (const backend of backends) {
      const app = backend.app;
      const seed = backend.seed;
      if (!app || !seed) continue;
      const headers = { authorization: `Bearer ${app.token}` };
      const lastPage = settings.visibleJobs / 20;
      const searchTotal = seed.searchTotal;
      await checkList(app, '/api/jobs?page=1&pageSize=20', settings.visibleJobs, 20);
      await checkList(app, `/api/jobs?page=${lastPage}&pageSize=20`, settings.visibleJobs, 20);
      await checkList(app, `/api/jobs?page=1&pageSize=20&q=${seed.searchTerm}`, searchTotal, Math.min(20, searchTotal));
      const common = { server: `app, ${backend.label}`, pid: app.child.pid, headers, settleUrl: `${app.baseUrl}/api/jobs?page=1&pageSize=1`, findServerPids: backend.findServerPids };
      scenarios.push(
        { ...common, label: 'GET /api/jobs?page=1', url: `${app.baseUrl}/api/jobs?page=1&pageSize=20`, expected: `"total":${settings.visibleJobs}` },
        { ...common, label: `GET /api/jobs?page=${lastPage}`, url: `${app.baseUrl}/api/jobs?page=${lastPage}&pageSize=20`, expected: `"total":${settings.visibleJobs}` },
        { ...common, label: `GET /api/jobs?q=${seed.searchTerm}`, url: `${app.baseUrl}/api/jobs?page=1&pageSize=20&q=${seed.searchTerm}`, expected: `"total":${searchTotal}` },
      );
    }
    console.log('Ready. Measuring the list:');
    const measurements: Measurement[] = [];
    for (const scenario of scenarios) measurements.push(await measure(scenario, settings));
    const bareMeasurement = measurements[0];
    if (!bareMeasurement) throw new Error('the bare route was not measured');

    // Upload through the first app only: the route's database work is three small statements, the same on both.
    const uploadBackend = backends[0];
    if (!uploadBackend?.app) throw new Error('no app to upload to');
    console.log(`Uploading the ${(upload.bytes.length / megabyte).toFixed(1)} MB PDF (${upload.pageCount} pages) to the app on ${uploadBackend.label}, 1 warm-up + ${settings.uploadRuns} runs ...`);
    const uploads = await measureUploads(uploadBackend.app, upload, settings);
    const fileRows = await measureFileBaselines(workDir, upload, settings);
    const loadAtEnd = loadAverage();

    // ---- report
    const listRows = measurements.map((m) => [
      m.scenario.label,
      m.scenario.server,
      m.requestsPerSecond.toFixed(1),
      formatMs(m.p50Ms),
      formatMs(m.p99Ms),
      formatMs(m.meanMs),
      m === bareMeasurement ? 'baseline' : `${((m.requestsPerSecond / bareMeasurement.requestsPerSecond) * 100).toFixed(2)}%`,
      m.serverCpuMicroseconds === null ? 'n/a' : (m.serverCpuMicroseconds / 1000).toFixed(2),
      m.databaseCpuMicroseconds === null ? (m.scenario.findServerPids ? 'n/a' : '-') : (m.databaseCpuMicroseconds / 1000).toFixed(2),
      `${m.checked} x 200${m.scenario.expected ? `, ${m.scenario.expected.replace(/"/g, '')}` : ''}`,
      `${m.answeredConnections}/${settings.connections}`,
      `${Math.round(m.otherCpuShare * 100)}%`,
    ]);
    console.log(`\nJobs list, ${settings.connections} connections: one autocannon run, ${settings.warmupSeconds} s warm-up then a ${settings.durationSeconds} s measured window:\n`);
    console.log(
      formatTable(
        ['Request', 'Server', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'vs bare (req/s)', 'app CPU ms/req', 'PostgreSQL CPU ms/req', 'answers checked', 'conns answered', 'other load'],
        listRows,
        new Set([2, 3, 4, 5, 6, 7, 8]),
      ),
    );
    // the window shows the steady state once the warm-up lasted one round of the queue (connections / req/s)
    const short = measurements.filter((m) => m.scenario.expected && settings.connections / m.requestsPerSecond > settings.warmupSeconds);
    if (short.length > 0) {
      console.log(
        `One round of the ${settings.connections}-deep queue (${settings.connections} / req/s) outlasts the ${settings.warmupSeconds} s warm-up for: ` +
          `${short.map((m) => `${m.scenario.label} on ${m.scenario.server} (${(settings.connections / m.requestsPerSecond).toFixed(1)} s)`).join(', ')}; ` +
          `answers early in the window waited less than a full round, so p50 and mean understate the steady state (mean latency = ${settings.connections} / req/s).`,
      );
    }
    console.log('\nIn-process, serial (no HTTP, no concurrency): findJobs as the app runs it vs a candidate rewrite (median of 3 after a warm-up):\n');
    console.log(formatTable(['Database', 'List', 'total', 'findJobs ms', 'candidate ms', 'speed-up'], diagnosis, new Set([2, 3, 4, 5])));

    const copyMedian = median(fileRows[0]?.samplesMs ?? []);
    const sizeMb = upload.bytes.length / megabyte;
    const uploadMedian = median(uploads.ms);
    const uploadRows: string[][] = [
      [
        `POST /api/jobs/:id/documents (app, ${uploadBackend.label})`,
        uploadMedian.toFixed(0),
        (sizeMb / (uploadMedian / 1000)).toFixed(0),
        `${((copyMedian / uploadMedian) * 100).toFixed(1)}%`,
        `multipart over loopback, fetch + FormData; server CPU ${median(uploads.serverCpuMs).toFixed(0)} ms/upload`,
      ],
      ...fileRows.map((row) => {
        const ms = median(row.samplesMs);
        return [row.label, ms.toFixed(0), (sizeMb / (ms / 1000)).toFixed(0), `${((copyMedian / ms) * 100).toFixed(1)}%`, row.note];
      }),
    ];
    console.log(`\nUpload of a ${sizeMb.toFixed(1)} MB PDF (${upload.bytes.length} bytes, ${upload.pageCount} pages), median of ${settings.uploadRuns} after a warm-up (MB = 10^6 bytes):\n`);
    console.log(formatTable(['Operation', 'median ms', 'MB/s', 'vs copyFile', 'notes'], uploadRows, new Set([1, 2, 3])));

    const busiest = Math.max(...measurements.map((m) => m.otherCpuShare));
    console.log(
      `\nMachine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), Node ${process.version}, ` +
        `${backends.map((backend) => `${backend.label} ${backend.kind === 'pglite' ? `${pgliteVersion()} (embedded, single-threaded WASM, ${backend.serverVersion})` : backend.serverVersion.replace(/^PostgreSQL /, '')}`).join(' and ')}. ` +
        `Load average ${loadAtStart} at start, ${loadAtEnd} at end; other processes used up to ${Math.round(busiest * 100)}% of the CPU during a list row.`,
    );
    console.log(`Total run time ${((performance.now() - startedAt) / 1000).toFixed(0)} s.`);
    return 0;
  } finally {
    await cleanUp();
  }
}

/** Stops everything within 10 s, whatever state the run is in, then exits. */
function abort(code: number): void {
  killChildrenNow();
  const deadline = setTimeout(() => process.exit(code), 10_000);
  void cleanUp().finally(() => {
    clearTimeout(deadline);
    process.exit(code);
  });
}

process.on('exit', killChildrenNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => abort(130));
const databaseCount = process.env.BENCH_DATABASE_URL && process.env.BENCH_PGLITE === '1' ? 2 : 1;
const timeoutMs = 30_000 + timeoutPerDatabaseMs * databaseCount;
setTimeout(() => {
  console.error(`\nThe benchmark did not finish within ${timeoutMs / 1000} s; stopping.`);
  abort(2);
}, timeoutMs).unref();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\nBenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    abort(1);
  },
);
