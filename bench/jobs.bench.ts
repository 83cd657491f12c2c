/**
 * Benchmark of the jobs list, beside a bare Fastify route (bench/bare-server.ts, measured first and again at the end) in the same run:
 * GET /api/jobs for a title agent who may see 1,000 jobs (page 1, page 50 = the last, and a search
 * q=nguyen), 50 connections, at each table size of BENCH_JOBS (100,000 by default; `npm run bench:all`
 * runs 10,000, 100,000 and 1,000,000), on PGlite and, with BENCH_DATABASE_URL, on PostgreSQL.
 *
 *   npx tsx bench/jobs.bench.ts                                                          (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test BENCH_PGLITE=1 npx tsx bench/jobs.bench.ts   (both)
 *   BENCH_JOBS=10000,100000,1000000 ...                                                   (growth)
 *
 * How: for each size and database a temporary DATA_DIR is created and its database migrated (the app's
 * own createDatabase().migrate()) and seeded with set-based SQL (bench/jobs-seed.ts, then
 * ANALYZE); the measured user's argon2 hash comes from the app's hashPassword. With BENCH_DATABASE_URL
 * (a loopback PostgreSQL server) a fresh database is created, seeded and dropped. Before any HTTP load,
 * the list's queries (captured from findJobs itself) are EXPLAIN (ANALYZE, BUFFERS)ed (BENCH_PLANS=1
 * prints them whole) and findJobs is timed in-process. Then the app runs as a child process (node
 * --import tsx src/server/main.ts, LOG_LEVEL=warn) on that database, the user signs in and autocannon
 * (in this process) loads one server at a time: 50 connections, a 2 s warm-up then a 10 s measured
 * window (answers arriving in it, their latency and the CPU used meanwhile), then a wait until the
 * server has answered what autocannon left queued. Every response is checked (200 and the expected
 * total). "max ms" is the longest any answer in the window waited: the fairness figure. Loopback only;
 * children are stopped on exit, error, time-out and Ctrl-C, temporary folders and databases removed.
 *
 * Targets (bench/targets.ts; BENCH_STRICT=1 fails the run when one is missed): PostgreSQL ≥ 1,000 req/s
 * and p99 < 50 ms for each request at 100,000 jobs; PGlite ≥ 300 req/s, max ≤ 1 s, p99 ≤ 3 x p50; at
 * any other size measured, req/s at least half of the 100,000 figure.
 *
 * Settings (environment): BENCH_DURATION (seconds, 10), BENCH_WARMUP (seconds, 2), BENCH_APP_WARMUP
 * (seconds of load on each just-started app before its first scenario, 5), BENCH_CONNECTIONS
 * (50), BENCH_JOBS (100000, or a comma list), BENCH_VISIBLE_JOBS (1000), BENCH_DATABASE_URL,
 * BENCH_PGLITE (1 adds PGlite to a PostgreSQL run), BENCH_PLANS (1 prints the full query plans),
 * BENCH_APP_NODE_ARGS (node flags for the app, e.g. --cpu-prof).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { jobListQuerySchema } from '#shared/jobs.ts';
import { createDatabase, type Database, type Db } from '#server/db/client.ts';
import * as schema from '#server/db/schema/index.ts';
import { personalListCall, personalViaMask } from '#server/features/jobs/job-list-read.ts';
import { findJobs } from '#server/features/jobs/jobs.service.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { seedJobs, type SeedResult } from './jobs-seed.ts';
import { children, cleanUp, cleanups, findFreePort, killChildrenNow, readNumber, stopChild, tailOf, timed } from './bench-kit.ts';
import { readProcessCpuMs } from './proc-cpu.ts';
import { reportTargets, type Target } from './targets.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const userEmail = 'agent@bench.open-ron.test';
const startupTimeoutMs = 90_000;
/** The hard limit of a run is 30 s + this per database: 3 minutes for one, 5.5 for both (which take about 2.5). */
const timeoutPerDatabaseMs = 150_000;
const requestTimeoutSeconds = 60;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

interface Settings {
  durationSeconds: number;
  warmupSeconds: number;
  /** Seconds of load on a just-started app before its first scenario (its cold start is not measured). */
  appWarmupSeconds: number;
  connections: number;
  sizes: number[];
  visibleJobs: number;
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
  totalJobs: number;
  /** Drops the database and removes the data folder once this size is measured. */
  release: () => Promise<void>;
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
  maxMs: number;
  meanMs: number;
  checked: number;
  /** How many of the connections got at least one answer inside the window (all of them, when the server is fair). */
  answeredConnections: number;
  serverCpuMicroseconds: number | null;
  databaseCpuMicroseconds: number | null;
  otherCpuShare: number;
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
    appWarmupSeconds: readNumber(env, 'BENCH_APP_WARMUP', 5),
    connections: Math.round(readNumber(env, 'BENCH_CONNECTIONS', 50)),
    sizes: (env.BENCH_JOBS || '100000').split(',').map((size) => readNumber({ BENCH_JOBS: size.trim() }, 'BENCH_JOBS', 100_000)),
    visibleJobs: Math.round(readNumber(env, 'BENCH_VISIBLE_JOBS', 1000)),
    databaseUrl,
    hasPglite: databaseUrl ? env.BENCH_PGLITE === '1' : true,
    isPrintingPlans: env.BENCH_PLANS === '1',
  };
  if (settings.sizes.some((size) => size % settings.visibleJobs !== 0)) throw new Error('Each BENCH_JOBS size must be a multiple of BENCH_VISIBLE_JOBS.');
  return settings;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function pgliteVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes (the approach of bench/auth.bench.ts)

function startChild(name: string, workDir: string, script: string, env: Record<string, string>): { child: ChildProcess; logPath: string } {
  const logPath = path.join(workDir, `${name}.log`);
  const fd = fs.openSync(logPath, 'w');
  // BENCH_APP_NODE_ARGS (e.g. --cpu-prof) goes to the app only
  const extra = script === 'src/server/main.ts' ? (process.env.BENCH_APP_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
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

async function prepareBackend(kind: Backend['kind'], workDir: string, settings: Settings, totalJobs: number, passwordHash: string): Promise<Backend> {
  const dataDir = path.join(workDir, `data-${kind}-${totalJobs}`);
  fs.mkdirSync(dataDir, { recursive: true });
  let databaseUrl: string | null = null;
  let findServerPids: Backend['findServerPids'] = null;
  let dropNow: (() => Promise<void>) | null = null;
  if (kind === 'postgres' && settings.databaseUrl) {
    const name = `open_ron_bench_jobs_${process.pid}_${Date.now()}`;
    const dropDatabase = async () => {
      const dropper = new pg.Client({ connectionString: settings.databaseUrl ?? '' });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    };
    const admin = new pg.Client({ connectionString: settings.databaseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    cleanups.push(dropDatabase);
    dropNow = dropDatabase;
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
  const seed = await seedJobs(database.db, {
    totalJobs,
    visibleJobs: settings.visibleJobs,
    otherUsers: 500,
    email: userEmail,
    passwordHash,
    isVacuumed: kind === 'postgres',
  });
  const [versionRow] = (await clientOf(database).query('select version() as version')).rows as Array<{ version: string }>;
  const serverVersion = (versionRow?.version ?? 'unknown').split(' ').slice(0, 2).join(' ');
  console.log(
    `  ${label}: created and migrated in ${(migratedMs / 1000).toFixed(1)} s, seeded in ${((performance.now() - started - migratedMs) / 1000).toFixed(1)} s ` +
      `(${seed.rows.users} users, ${seed.rows.jobs} jobs, ${seed.rows.participants} participants, ${seed.rows.documents} documents)`,
  );
  const release = async () => {
    if (dropNow) await dropNow();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { kind, label, totalJobs, dataDir, databaseUrl, database, findServerPids, seed, serverVersion, app: null, release };
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
  // the person's range of job_access (the prepared list, decision 031): how many index entries each read kept
  for (const line of lines) {
    const access = line.match(
      /(Index Only Scan( Backward)?|Index Scan( Backward)?) using (job_access_\w+) on job_access a .*actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+) loops=(\d+)/,
    );
    if (access) scans.push(`${access[1]} of ${access[4]} keeps ${Math.round(Number(access[5]) * Number(access[6]))}`);
  }
  const buffers = lines.find((line) => /^\s*Buffers:/.test(line))?.trim();
  if (buffers) scans.push(buffers.toLowerCase());
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

/** EXPLAIN (ANALYZE, BUFFERS) of the list's own SQL (captured from findJobs), then findJobs timed in-process, serially. */
async function diagnose(backend: Backend, cases: ListCase[], settings: Settings): Promise<string[][]> {
  const database = backend.database;
  const seed = backend.seed;
  if (!database || !seed) throw new Error('diagnose: backend not prepared');
  const client = clientOf(database);
  const captured: Array<{ query: string; params: unknown[] }> = [];
  const logger = { logQuery: (query: string, params: unknown[]) => void captured.push({ query, params }) };
  const loggingDb = (backend.kind === 'pglite'
    ? drizzlePglite(client as unknown as PGlite, { schema, logger })
    : drizzleNodePostgres(client as unknown as pg.Pool, { schema, logger })) as unknown as Db;
  const user = { id: seed.userId, roles: ['title_agent'] };
  const ctxOf = (db: Db) => ({ db, user }) as unknown as Ctx;
  const rows: string[][] = [];
  console.log(
    `  ${backend.label} (${backend.serverVersion}), ${backend.totalJobs} jobs: plans of findJobs' queries (EXPLAIN (ANALYZE, BUFFERS), parameters as sent):`,
  );
  for (const listCase of cases) {
    const query = jobListQuerySchema.parse(listCase.query);
    captured.length = 0;
    const appResult = await findJobs(ctxOf(loggingDb), query);
    // The list's common shapes run one prepared statement (job-list-read.ts), past drizzle's logger
    if (captured.length === 0) {
      const call = personalListCall({
        userId: seed.userId,
        viaMask: personalViaMask(user.roles),
        status: query.status,
        q: query.q || undefined,
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      captured.push({ query: call.statement.text, params: call.values });
    }
    for (const [index, statement] of captured.entries()) {
      const plan = (await client.query(`explain (analyze, buffers) ${statement.query}`, statement.params)).rows as Array<Record<string, string>>;
      const lines = plan.map((row) => Object.values(row)[0] ?? '');
      console.log(`    ${listCase.name.padEnd(12)} query ${index + 1}: ${summarizePlan(lines)}`);
      if (settings.isPrintingPlans) console.log(`${statement.query}\n${lines.join('\n')}\n`);
    }
    const appMs: number[] = [];
    for (let run = 0; run < 4; run += 1) {
      const app = await timed(() => findJobs(ctxOf(database.db), query));
      if (app.result.total !== appResult.total)
        throw new Error(`${backend.label} ${listCase.name}: findJobs answered ${app.result.total}, then ${appResult.total}`);
      if (run > 0) appMs.push(app.ms);
    }
    rows.push([backend.label, String(backend.totalJobs), listCase.name, String(appResult.total), median(appMs).toFixed(2)]);
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

/**
 * A just-started app under the full load answers its first ~30 requests slowly (on PGlite one every
 * ~90 ms for ~3 s: code and WebAssembly not yet optimized), so each app is loaded for
 * BENCH_APP_WARMUP seconds before its first scenario; the cold start is printed, not measured.
 */
async function warmUp(scenario: Scenario, settings: Settings): Promise<void> {
  if (settings.appWarmupSeconds <= 0) return;
  let longestMs = 0;
  let answers = 0;
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      { url: scenario.url, connections: settings.connections, duration: settings.appWarmupSeconds, timeout: requestTimeoutSeconds, headers: scenario.headers },
      (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTime) => {
      answers += 1;
      longestMs = Math.max(longestMs, responseTime);
    });
  });
  await settle(scenario);
  console.log(
    `  ${scenario.server}: warm-up of the just-started app, ${settings.appWarmupSeconds} s: ${answers} answers, the longest waited ${Math.round(longestMs)} ms (not measured)`,
  );
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
    maxMs: sorted.length ? (sorted[sorted.length - 1] ?? NaN) : NaN,
    meanMs: count ? latencies.reduce((sum, value) => sum + value, 0) / count : NaN,
    checked: count,
    answeredConnections,
    serverCpuMicroseconds: before.serverMs === null || after.serverMs === null || count === 0 ? null : ((after.serverMs - before.serverMs) * 1000) / count,
    databaseCpuMicroseconds: after.databaseMs.size === 0 || count === 0 ? null : (databaseMs * 1000) / count,
    otherCpuShare: capacityMs > 0 ? Math.min(1, Math.max(0, otherMs / capacityMs)) : 0,
  };
  console.log(
    `${measurement.requestsPerSecond.toFixed(1)} req/s, p50 ${formatMs(measurement.p50Ms)} ms, p99 ${formatMs(measurement.p99Ms)} ms, max ${formatMs(measurement.maxMs)} ms, mean ${formatMs(measurement.meanMs)} ms, ` +
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
    throw new Error(
      `${app.name} GET ${url}: status ${response.status}, total ${body.total} (expected ${total}), ${body.items?.length} items (expected ${pageLength})`,
    );
  }
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

interface SizeResult {
  backend: Backend;
  measurements: Measurement[];
}

/** Prepares one database of one size, diagnoses, runs the app on it, loads its three lists, and releases it. */
async function measureSize(
  kind: Backend['kind'],
  totalJobs: number,
  workDir: string,
  settings: Settings,
  password: string,
  passwordHash: string,
): Promise<{ result: SizeResult; diagnosis: string[][] }> {
  const backend = await prepareBackend(kind, workDir, settings, totalJobs, passwordHash);
  try {
    const seed = backend.seed;
    if (!seed) throw new Error('seed missing');
    const lastPage = settings.visibleJobs / 20;
    const cases: ListCase[] = [
      { name: 'page 1', query: { page: 1, pageSize: 20 } },
      { name: `page ${lastPage}`, query: { page: lastPage, pageSize: 20 } },
      { name: 'search', query: { page: 1, pageSize: 20, q: seed.searchTerm } },
    ];
    const diagnosis = await diagnose(backend, cases, settings);
    await backend.database?.close();
    backend.database = null;
    const app = await startApp(backend, workDir, password);
    backend.app = app;
    const headers = { authorization: `Bearer ${app.token}` };
    await checkList(app, '/api/jobs?page=1&pageSize=20', settings.visibleJobs, 20);
    await checkList(app, `/api/jobs?page=${lastPage}&pageSize=20`, settings.visibleJobs, 20);
    await checkList(app, `/api/jobs?page=1&pageSize=20&q=${seed.searchTerm}`, seed.searchTotal, Math.min(20, seed.searchTotal));
    const common = {
      server: `app, ${backend.label}, ${totalJobs} jobs`,
      pid: app.child.pid,
      headers,
      settleUrl: `${app.baseUrl}/api/jobs?page=1&pageSize=1`,
      findServerPids: backend.findServerPids,
    };
    const scenarios: Scenario[] = [
      { ...common, label: 'GET /api/jobs?page=1', url: `${app.baseUrl}/api/jobs?page=1&pageSize=20`, expected: `"total":${settings.visibleJobs}` },
      {
        ...common,
        label: `GET /api/jobs?page=${lastPage}`,
        url: `${app.baseUrl}/api/jobs?page=${lastPage}&pageSize=20`,
        expected: `"total":${settings.visibleJobs}`,
      },
      {
        ...common,
        label: `GET /api/jobs?q=${seed.searchTerm}`,
        url: `${app.baseUrl}/api/jobs?page=1&pageSize=20&q=${seed.searchTerm}`,
        expected: `"total":${seed.searchTotal}`,
      },
    ];
    await warmUp(scenarios[0] as Scenario, settings);
    const measurements: Measurement[] = [];
    for (const scenario of scenarios) measurements.push(await measure(scenario, settings));
    await stopChild(app.child);
    backend.app = null;
    return { result: { backend, measurements }, diagnosis };
  } finally {
    if (backend.app) await stopChild(backend.app.child);
    await backend.database?.close();
    await backend.release();
  }
}

const referenceSize = 100_000;

function targetsOf(results: SizeResult[]): Target[] {
  const targets: Target[] = [];
  for (const { backend, measurements } of results) {
    const where = `${backend.label}, ${backend.totalJobs} jobs`;
    const reference = results.find((other) => other.backend.kind === backend.kind && other.backend.totalJobs === referenceSize);
    measurements.forEach((m, index) => {
      const name = `${m.scenario.label}, ${where}`;
      if (backend.totalJobs === referenceSize && backend.kind === 'postgres') {
        targets.push({ name: `${name}, req/s`, measured: m.requestsPerSecond, kind: 'min', limit: 1000, unit: 'req/s' });
        targets.push({ name: `${name}, p99`, measured: m.p99Ms, kind: 'max', limit: 50, unit: 'ms' });
      } else if (backend.totalJobs === referenceSize) {
        targets.push({ name: `${name}, req/s`, measured: m.requestsPerSecond, kind: 'min', limit: 300, unit: 'req/s' });
        targets.push({ name: `${name}, longest wait`, measured: m.maxMs, kind: 'max', limit: 1000, unit: 'ms' });
        targets.push({ name: `${name}, p99 / p50`, measured: m.p99Ms / m.p50Ms, kind: 'max', limit: 3, unit: 'x' });
      } else if (reference) {
        const base = reference.measurements[index];
        if (base)
          targets.push({
            name: `${name}, req/s vs ${referenceSize} jobs`,
            measured: m.requestsPerSecond / base.requestsPerSecond,
            kind: 'min',
            limit: 0.5,
            unit: 'x',
          });
      }
    });
  }
  return targets;
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const startedAt = performance.now();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-jobs-bench-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const loadAtStart = loadAverage();
  try {
    const cpus = os.cpus();
    console.log(
      `Open RON jobs list benchmark: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`,
    );
    console.log(
      `Load average at start: ${loadAtStart}. ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per row, ${settings.connections} connections.`,
    );
    const password = randomBytes(12).toString('base64url');
    const passwordHash = await hashPassword(password);
    const kinds: Backend['kind'][] = [...(settings.hasPglite ? (['pglite'] as const) : []), ...(settings.databaseUrl ? (['postgres'] as const) : [])];

    const measureBare = async (label: string) => {
      const bare = await startBareServer(workDir);
      const measurement = await measure(
        {
          label,
          server: 'bare Fastify 5',
          pid: bare.child.pid,
          url: `${bare.baseUrl}/bare`,
          headers: {},
          expected: null,
          settleUrl: null,
          findServerPids: null,
        },
        settings,
      );
      await stopChild(bare.child);
      return measurement;
    };
    console.log('Measuring the bare Fastify server first:');
    const bareMeasurement = await measureBare('GET /bare');

    const results: SizeResult[] = [];
    const diagnosis: string[][] = [];
    for (const totalJobs of settings.sizes) {
      for (const kind of kinds) {
        console.log(`\n${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}, ${totalJobs} jobs (${settings.visibleJobs} visible to ${userEmail}):`);
        const measured = await measureSize(kind, totalJobs, workDir, settings, password, passwordHash);
        results.push(measured.result);
        diagnosis.push(...measured.diagnosis);
      }
    }
    // The bare server once more at the end: the two bare runs frame the list rows (a machine that
    // changed speed during the run shows as two different bare figures)
    console.log('\nMeasuring the bare Fastify server again, at the end:');
    const bareEndMeasurement = await measureBare('GET /bare (at the end)');
    const bareRequestsPerSecond = (bareMeasurement.requestsPerSecond + bareEndMeasurement.requestsPerSecond) / 2;
    const bareSpread = Math.abs(bareMeasurement.requestsPerSecond - bareEndMeasurement.requestsPerSecond) / bareRequestsPerSecond;
    const loadAtEnd = loadAverage();
    const bareRows = new Set([bareMeasurement, bareEndMeasurement]);
    const measurements = [bareMeasurement, ...results.flatMap((result) => result.measurements), bareEndMeasurement];

    const listRows = measurements.map((m) => [
      m.scenario.label,
      m.scenario.server,
      m.requestsPerSecond.toFixed(1),
      formatMs(m.p50Ms),
      formatMs(m.p99Ms),
      formatMs(m.maxMs),
      bareRows.has(m) ? 'baseline' : `${((m.requestsPerSecond / bareRequestsPerSecond) * 100).toFixed(2)}%`,
      m.serverCpuMicroseconds === null ? 'n/a' : (m.serverCpuMicroseconds / 1000).toFixed(2),
      m.databaseCpuMicroseconds === null ? (m.scenario.findServerPids ? 'n/a' : '-') : (m.databaseCpuMicroseconds / 1000).toFixed(2),
      `${m.checked} x 200${m.scenario.expected ? `, ${m.scenario.expected.replace(/"/g, '')}` : ''}`,
      `${m.answeredConnections}/${settings.connections}`,
      `${Math.round(m.otherCpuShare * 100)}%`,
    ]);
    console.log(
      `\nJobs list, ${settings.connections} connections: one autocannon run, ${settings.warmupSeconds} s warm-up then a ${settings.durationSeconds} s measured window:\n`,
    );
    console.log(
      formatTable(
        [
          'Request',
          'Server',
          'req/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'vs bare (req/s)',
          'app CPU ms/req',
          'PostgreSQL CPU ms/req',
          'answers checked',
          'conns answered',
          'other load',
        ],
        listRows,
        new Set([2, 3, 4, 5, 6, 7, 8]),
      ),
    );
    console.log('\nIn-process, serial (no HTTP, no concurrency): findJobs as the app runs it (median of 3 after a warm-up):\n');
    console.log(formatTable(['Database', 'jobs', 'List', 'total', 'findJobs ms'], diagnosis, new Set([1, 3, 4])));
    const busiest = Math.max(...measurements.map((m) => m.otherCpuShare));
    console.log(
      `\nMachine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), Node ${process.version}, PGlite ${pgliteVersion()} (embedded, single-threaded WASM). ` +
        `Load average ${loadAtStart} at start, ${loadAtEnd} at end; other processes used up to ${Math.round(busiest * 100)}% of the CPU during a list row.`,
    );
    console.log(
      `The two bare runs: ${bareMeasurement.requestsPerSecond.toFixed(0)} and ${bareEndMeasurement.requestsPerSecond.toFixed(0)} req/s ("vs bare" divides by their mean)` +
        `${bareSpread > 0.15 ? `; WARNING: they differ by ${Math.round(bareSpread * 100)}%, the machine's speed changed during the run` : ''}.`,
    );
    reportTargets('jobs list', targetsOf(results));
    console.log(`Total run time ${((performance.now() - startedAt) / 1000).toFixed(0)} s.`);
    return process.exitCode === 1 ? 1 : 0;
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
// a million jobs takes several minutes to seed: the limit grows with the rows asked for
const jobsAsked = (process.env.BENCH_JOBS || '100000').split(',').reduce((sum, size) => sum + (Number(size) || 0), 0);
const timeoutMs = 30_000 + timeoutPerDatabaseMs * databaseCount * Math.max(1, jobsAsked / 100_000);
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
