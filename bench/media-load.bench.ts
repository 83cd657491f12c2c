/**
 * Media under query load (media never waits on a query): PGlite runs in the app's event
 * loop, and so does the media hub. This benchmark puts both in THIS process, as main.ts does, and
 * checks that a 3-person session keeps forwarding while the jobs list is at full load.
 *
 *   node --expose-gc --import tsx bench/media-load.bench.ts       (about 1-2 minutes)
 *
 * 1. This process: a temporary DATA_DIR whose PGlite database is migrated (createDatabase().migrate())
 *    and seeded by bench/jobs-seed.ts (BENCH_JOBS jobs, BENCH_VISIBLE_JOBS of them visible to the
 *    measured title agent), then the real app (buildApp, in-process realtime, local storage, the
 *    secrets key of DATA_DIR) with the werift hub as its media hub, listening on loopback.
 * 2. Media: one 3-person session on that hub, with real Chromium participants (bench/video-sessions.ts).
 * 3. Signaling round trip: a CHILD process holds a WebSocket open on the job's live channel
 *    (GET /api/jobs/:id/live, signed in as the agent) and sends a WebSocket ping frame every 100 ms;
 *    the app's ws server answers each from this process's event loop, and the child times the pong.
 *    (The live channel rather than /api/video/signal, which wants a video session and a hello.)
 * 4. Load: autocannon (its API) in another CHILD process (its own event loop, not ours), BENCH_CONNECTIONS
 *    connections on GET /api/jobs?page=1&pageSize=20 with the agent's bearer token, from
 *    BENCH_MEDIA_WARMUP seconds before the loaded window until the window's figures are taken.
 * 5. Two windows of BENCH_MEDIA_WINDOW seconds: without load, then with the load running (after
 *    BENCH_MEDIA_WARMUP seconds of it). For each: forwarding delay (arrival at the hub to departure,
 *    the hub's own histogram: p99 = upper bound of its bucket; max = exact when it is a new maximum
 *    of the run, else the bucket bound), the WebSocket ping round trip p50 / p99 / max, this
 *    process's event-loop delay (perf_hooks.monitorEventLoopDelay) p99 / max, CPU, the main thread's
 *    time on a core and waiting for one (the scheduler's schedstat: starvation by other processes
 *    shows there, not as work), frame rates.
 *
 * Targets (bench/targets.ts; BENCH_STRICT=1 fails the run when one is missed): forwarding p99 under
 * load ≤ 20 ms, WebSocket round trip p99 under load ≤ 50 ms.
 *
 * Everything (browser, hub, app, database, children, temporary folders) is stopped and removed on
 * success, error, Ctrl-C and the time limit (BENCH_MEDIA_TIMEOUT, 600 s). Loopback only.
 *
 * Settings (environment): BENCH_JOBS (100000), BENCH_VISIBLE_JOBS (1000), BENCH_CONNECTIONS (50),
 * BENCH_MEDIA_WINDOW (10 s), BENCH_MEDIA_SETTLE (3 s), BENCH_MEDIA_WARMUP (3 s),
 * BENCH_VIDEO_BROWSER_NICE (19: in production the participants' browsers run elsewhere, so here
 * Chromium yields the CPU to this process; 0 lets it compete), BENCH_MEDIA_TIMEOUT (600 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/app.ts';
import { parseConfig } from '#server/config.ts';
import { createDatabase, type Database } from '#server/db/client.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { loadSecretsKey } from '#server/lib/secrets.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { createWeriftSfu } from '#server/providers/video/werift-sfu.ts';
import { seedJobs } from './jobs-seed.ts';
import { readProcessCpuMs } from './proc-cpu.ts';
import { reportTargets } from './targets.ts';
import { compareSnapshots, cores, takeSnapshot, type Snapshot, type WindowFigures } from './video-measure.ts';
import { launchBenchBrowser } from './video-participants.ts';
import { openSession, type BenchSession } from './video-sessions.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const userEmail = 'agent@bench.open-ron.test';
const pingIntervalMs = 100;
/** A ping without its pong after this long is counted as lost. */
const pingLostAfterMs = 5000;

function readNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number (got "${raw}").`);
  return value;
}

const settings = {
  totalJobs: readNumber('BENCH_JOBS', 100_000),
  visibleJobs: readNumber('BENCH_VISIBLE_JOBS', 1000),
  connections: Math.round(readNumber('BENCH_CONNECTIONS', 50)),
  windowMs: readNumber('BENCH_MEDIA_WINDOW', 10) * 1000,
  settleMs: readNumber('BENCH_MEDIA_SETTLE', 3) * 1000,
  warmupMs: readNumber('BENCH_MEDIA_WARMUP', 3) * 1000,
  // Participants' browsers are not on the server in production: by default Chromium yields the CPU.
  browserNice: readNumber('BENCH_VIDEO_BROWSER_NICE', 19),
  timeoutMs: readNumber('BENCH_MEDIA_TIMEOUT', 600) * 1000,
};

// ---------------------------------------------------------------------------------------------
// Clean-up: run once, in reverse order, whatever ends the run

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<unknown>> = [];
const errors: unknown[] = [];
const onError = (error: unknown) => void errors.push(error);

async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error: unknown) => console.error(`clean-up: ${String(error)}`));
  }
}

function killChildrenNow(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Stops everything within 15 s, whatever state the run is in, then exits. */
function abort(code: number): void {
  killChildrenNow();
  const deadline = setTimeout(() => process.exit(code), 15_000);
  void cleanUp().finally(() => {
    clearTimeout(deadline);
    process.exit(code);
  });
}

/**
 * A child in a session of its own (detached): with the kernel's autogroup scheduling each session
 * is a group that gets its share of the CPU, so the load generator and the ping client, which in
 * production run on other machines, do not take theirs out of this process's group.
 */
function startChild(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Figures

/**
 * This process's main thread (the event loop: app, PGlite, hub) from the scheduler's side: ms run on
 * a core and ms spent runnable but waiting for one (/proc/self/task/<pid>/schedstat); null off Linux.
 */
function readMainThreadSchedMs(pid: number = process.pid): { runMs: number; waitMs: number } | null {
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return run === undefined || wait === undefined ? null : { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return null;
  }
}

/**
 * Nice only ranks threads inside one autogroup (a session, with kernel.sched_autogroup_enabled=1),
 * and Playwright starts Chromium in a session of its own: this gives that session's group the
 * browser's niceness too (/proc/<pid>/autogroup), so that BENCH_VIDEO_BROWSER_NICE has its effect.
 * Returns what was done, for the output.
 */
function niceBrowserAutogroups(nice: number): string {
  if (nice === 0) return 'Chromium at nice 0.';
  const autogroupEnabled = (() => {
    try {
      return fs.readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
    } catch {
      return false;
    }
  })();
  if (!autogroupEnabled) return `Chromium at nice ${nice} (no autogroup scheduling here).`;
  const groups = new Set<string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const name = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (parent !== process.pid || !/chrom/i.test(name)) continue;
      fs.writeFileSync(`/proc/${entry}/autogroup`, String(nice));
      groups.add(fs.readFileSync(`/proc/${entry}/autogroup`, 'utf8').trim());
    } catch {
      // a process that ended meanwhile, or no right to renice its group: said below by the count
    }
  }
  return `Chromium at nice ${nice}, and its autogroup too (${groups.size === 0 ? 'could not be set' : [...groups].join(', ')}).`;
}

/** This process's file and socket I/O so far (/proc/self/io): read and write calls, and bytes that reached the disk. */
function readOwnIo(): Record<'syscr' | 'syscw' | 'read_bytes' | 'write_bytes', number> | null {
  try {
    const fields = Object.fromEntries(
      fs
        .readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(': '))
        .map(([key, value]) => [key, Number(value)]),
    ) as Record<string, number>;
    return { syscr: fields.syscr ?? 0, syscw: fields.syscw ?? 0, read_bytes: fields.read_bytes ?? 0, write_bytes: fields.write_bytes ?? 0 };
  } catch {
    return null;
  }
}

/** CPU ms of this benchmark's own children (load generator, ping client), to tell them apart from Chromium's. */
function readChildrenCpuMs(): number {
  let total = 0;
  for (const child of children) total += readProcessCpuMs(child.pid) ?? 0;
  return total;
}

const round = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * fraction) - 1))] ?? NaN;
}

/**
 * The longest forwarding delay in a window, ms: exact when the run's maximum grew in it, else the
 * upper bound of the highest bucket the window filled ("≤").
 */
function windowMaxForward(before: Snapshot, after: Snapshot): string {
  const beforeMax = Math.max(0, ...before.delays.map((h) => h.maxMicros));
  const afterMax = Math.max(0, ...after.delays.map((h) => h.maxMicros));
  if (afterMax > beforeMax) return round(afterMax / 1000, 1);
  const bounds = after.delays[0]?.boundsMicros ?? [];
  let highest = -1;
  after.delays.forEach((histogram, room) => {
    histogram.counts.forEach((count, index) => {
      if (count - (before.delays[room]?.counts[index] ?? 0) > 0) highest = Math.max(highest, index);
    });
  });
  if (highest < 0) return 'n/a';
  const bound = bounds[highest];
  return bound === undefined ? `≤ ${round(afterMax / 1000, 1)}` : `≤ ${round(bound / 1000, 1)}`;
}

// ---------------------------------------------------------------------------------------------
// The WebSocket ping child: its own event loop, so the round trip is the server's (this process's) delay

/** Sends a ping frame every 100 ms and prints one JSON line per pong ({ t: sent at, ms }) or lost ping ({ t, lost }). */
const pingScript = `
const WebSocket = require('ws');
const socket = new WebSocket(process.env.PING_URL, { headers: { authorization: 'Bearer ' + process.env.PING_TOKEN } });
const pending = new Map();
let sequence = 0;
socket.on('open', () => {
  console.log(JSON.stringify({ open: true }));
  setInterval(() => {
    const now = performance.now();
    for (const [id, sent] of pending) {
      if (now - sent.at > ${pingLostAfterMs}) { pending.delete(id); console.log(JSON.stringify({ t: sent.wall, lost: true })); }
    }
    const id = String(++sequence);
    pending.set(id, { at: performance.now(), wall: Date.now() });
    socket.ping(id);
  }, ${pingIntervalMs});
});
socket.on('pong', (data) => {
  const sent = pending.get(data.toString());
  if (!sent) return;
  pending.delete(data.toString());
  console.log(JSON.stringify({ t: sent.wall, ms: performance.now() - sent.at }));
});
socket.on('message', () => {});
socket.on('close', (code, reason) => { console.log(JSON.stringify({ closed: code, reason: reason.toString() })); process.exit(3); });
socket.on('error', (error) => { console.log(JSON.stringify({ error: String(error) })); process.exit(4); });
`;

interface PingSample {
  t: number;
  ms?: number;
  lost?: boolean;
}

interface PingChannel {
  samples: PingSample[];
  closedBecause: string | null;
}

async function startPingChild(url: string, token: string): Promise<PingChannel> {
  const child = startChild(['-e', pingScript], { PING_URL: url, PING_TOKEN: token });
  const channel: PingChannel = { samples: [], closedBecause: null };
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const opened = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let message: PingSample & { open?: boolean; closed?: number; reason?: string; error?: string };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return;
      }
      if (message.open) resolve();
      else if (message.closed !== undefined || message.error !== undefined) {
        channel.closedBecause = message.error ?? `closed ${message.closed} ${message.reason ?? ''}`;
        reject(new Error(`the ping WebSocket ${channel.closedBecause}`));
      } else channel.samples.push(message);
    });
    child.once('exit', (code) => reject(new Error(`the ping child exited (${code}) before its socket opened: ${stderr.trim()}`)));
  });
  cleanups.push(() => waitForExit(child, 5000));
  await Promise.race([opened, sleep(30_000).then(() => Promise.reject(new Error('the ping WebSocket did not open within 30 s')))]);
  return channel;
}

// ---------------------------------------------------------------------------------------------
// The load child: autocannon's API in a process of its own, until told to stop (SIGTERM), then its result as JSON

interface AutocannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
}

const loadScript = `
const autocannon = require('autocannon');
const instance = autocannon(
  { url: process.env.LOAD_URL, connections: Number(process.env.LOAD_CONNECTIONS), duration: Number(process.env.LOAD_MAX_SECONDS), headers: { authorization: 'Bearer ' + process.env.LOAD_TOKEN } },
  (error, result) => {
    if (error) { console.error(String(error)); process.exit(1); }
    console.log(JSON.stringify(result));
    process.exit(0);
  },
);
process.on('SIGTERM', () => instance.stop());
`;

interface Load {
  pid: number | undefined;
  /** Stops the load and returns autocannon's figures for the whole time it ran. */
  stop(): Promise<AutocannonResult>;
}

function startLoad(url: string, token: string, maxSeconds: number): Load {
  const child = startChild(['-e', loadScript], {
    LOAD_URL: url,
    LOAD_TOKEN: token,
    LOAD_CONNECTIONS: String(settings.connections),
    LOAD_MAX_SECONDS: String(maxSeconds),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  cleanups.push(() => waitForExit(child, 5000));
  const done = new Promise<AutocannonResult>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as AutocannonResult);
      } catch {
        reject(new Error(`autocannon exited (${code}) without a result: ${stderr.trim().slice(-500)}`));
      }
    });
  });
  return {
    pid: child.pid,
    stop: () => {
      child.kill('SIGTERM');
      return done;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The app and the hub, in this process

async function startApp(dataDir: string, database: Database, video: VideoProvider): Promise<{ app: FastifyInstance; baseUrl: string }> {
  const config = parseConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' });
  const realtime = createInProcessRealtime();
  const logPath = path.join(dataDir, 'app.log');
  const log = fs.createWriteStream(logPath);
  const app = await buildApp(
    {
      db: database.db,
      dbKind: database.kind,
      config,
      realtime,
      secretsKey: loadSecretsKey(config.secretsKey, dataDir),
      storage: createLocalStorage(path.join(dataDir, 'blobs')),
      video,
    },
    { logStream: log, isEmailDeliveryStarted: false },
  );
  cleanups.push(async () => {
    await realtime.close();
    await new Promise((resolve) => log.end(resolve));
  });
  cleanups.push(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

async function signIn(baseUrl: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: userEmail, password }),
  });
  const body = (await response.json()) as { sessionToken?: string | null };
  if (response.status !== 200 || !body.sessionToken) throw new Error(`sign-in answered ${response.status}: ${JSON.stringify(body)}`);
  return body.sessionToken;
}

// ---------------------------------------------------------------------------------------------
// Windows

interface WindowResult {
  label: string;
  figures: WindowFigures;
  forwardMax: string;
  pings: number[];
  pingsLost: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** The main thread's time on a core and waiting for one during the window, in % of the window. */
  mainRunPercent: number;
  mainWaitPercent: number;
  /** The main thread neither running nor waiting for a core (sleeping: idle, or blocked in a system call), % of the window. */
  mainSleepPercent: number;
  /** Run-queue wait of the load generator's main thread, % of the window (NaN when it is not running). */
  loadWaitPercent: number;
  /** read / write system calls of this process per second, and MB that reached the disk, read / written. */
  io: string;
  /** CPU of the benchmark's children (autocannon, ping client) in % of one core; Chromium's is figures.browserCpuPercent less this. */
  childrenCpuPercent: number;
}

async function measureWindow(
  label: string,
  session: BenchSession,
  ping: PingChannel,
  loop: IntervalHistogram,
  load?: Load,
): Promise<{ result: WindowResult; cannon: AutocannonResult | null }> {
  const loadPid = load?.pid;
  const rooms = [session.room];
  const { participants } = session;
  const before = await takeSnapshot(rooms, participants);
  const from = Date.now();
  const schedBefore = readMainThreadSchedMs();
  const childrenBefore = readChildrenCpuMs();
  const ioBefore = readOwnIo();
  const loadBefore = loadPid === undefined ? null : readMainThreadSchedMs(loadPid);
  loop.reset();
  loop.enable();
  await sleep(settings.windowMs);
  loop.disable();
  const to = Date.now();
  const schedAfter = readMainThreadSchedMs();
  const childrenAfter = readChildrenCpuMs();
  const ioAfter = readOwnIo();
  const loadAfter = loadPid === undefined ? null : readMainThreadSchedMs(loadPid);
  const after = await takeSnapshot(rooms, participants);
  // The load runs until the hub's figures of the window are taken (they are read after the pages' frames).
  const cannon = load ? await load.stop() : null;
  // The pongs of the window's last pings arrive after it; a lost ping is reported after pingLostAfterMs.
  const lastSentAt = to - pingIntervalMs;
  const deadline = Date.now() + pingLostAfterMs + 1000;
  while (Date.now() < deadline && !ping.samples.some((sample) => sample.t >= lastSentAt)) await sleep(50);
  const figures = compareSnapshots(before, after, participants);
  const childrenCpuPercent = ((childrenAfter - childrenBefore) / (to - from)) * 100;
  if (figures.browserCpuPercent !== null) figures.browserCpuPercent -= childrenCpuPercent;
  const inWindow = ping.samples.filter((sample) => sample.t >= from && sample.t < to);
  const result: WindowResult = {
    label,
    figures,
    childrenCpuPercent,
    mainSleepPercent:
      schedBefore && schedAfter ? 100 - ((schedAfter.runMs - schedBefore.runMs + schedAfter.waitMs - schedBefore.waitMs) / (to - from)) * 100 : NaN,
    loadWaitPercent: loadBefore && loadAfter ? ((loadAfter.waitMs - loadBefore.waitMs) / (to - from)) * 100 : NaN,
    io:
      ioBefore && ioAfter
        ? `${round(((ioAfter.syscr - ioBefore.syscr) * 1000) / (to - from))} / ${round(((ioAfter.syscw - ioBefore.syscw) * 1000) / (to - from))}; ${round((ioAfter.read_bytes - ioBefore.read_bytes) / 2 ** 20, 1)} / ${round((ioAfter.write_bytes - ioBefore.write_bytes) / 2 ** 20, 1)}`
        : 'n/a',
    forwardMax: windowMaxForward(before, after),
    pings: inWindow.flatMap((sample) => (sample.ms === undefined ? [] : [sample.ms])),
    pingsLost: inWindow.filter((sample) => sample.lost).length,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    mainRunPercent: schedBefore && schedAfter ? ((schedAfter.runMs - schedBefore.runMs) / (to - from)) * 100 : NaN,
    mainWaitPercent: schedBefore && schedAfter ? ((schedAfter.waitMs - schedBefore.waitMs) / (to - from)) * 100 : NaN,
  };
  return { result, cannon };
}

function printWindows(results: WindowResult[]): void {
  const headers = [
    'window',
    'packets forwarded',
    'forwarding p99 ms',
    'forwarding max ms',
    'WS ping round trip p50 / p99 / max ms',
    'pings answered / lost',
    'event-loop delay p99 / max ms',
    'this process CPU %',
    'main thread on a core / waiting for one / sleeping %',
    'read / write syscalls per s; disk MB read / written',
    'autocannon main thread waiting for a core %',
    'Chromium CPU %',
    'autocannon + ping child CPU %',
    'machine busy %',
    'hub loss %',
    'sent / decoded fps (min decoded)',
  ];
  console.log(`\n| ${headers.join(' | ')} |\n|${headers.map(() => '---|').join('')}`);
  for (const r of results) {
    const f = r.figures;
    console.log(
      `| ${[
        r.label,
        f.forwardCount,
        round(f.forwardP99Ms, 1),
        r.forwardMax,
        `${round(percentile(r.pings, 0.5), 1)} / ${round(percentile(r.pings, 0.99), 1)} / ${round(Math.max(...r.pings), 1)}`,
        `${r.pings.length} / ${r.pingsLost}`,
        `${round(r.loopP99Ms, 1)} / ${round(r.loopMaxMs, 1)}`,
        round(f.hubCpuPercent),
        `${round(r.mainRunPercent)} / ${round(r.mainWaitPercent)} / ${round(r.mainSleepPercent)}`,
        r.io,
        round(r.loadWaitPercent),
        round(f.browserCpuPercent ?? NaN),
        round(r.childrenCpuPercent),
        round(f.machineBusyPercent),
        round(f.hubLossPercent, 2),
        `${round(f.sentFps, 1)} / ${round(f.decodedFps, 1)} (${round(f.minDecodedFps, 1)})`,
      ].join(' | ')} |`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const startedAt = performance.now();
  const cpus = os.cpus();
  console.log(
    `Open RON media-under-load benchmark: ${cores} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`,
  );
  const loadAtStart = loadAverage();
  console.log(`Load average at start: ${loadAtStart}.`);

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-media-load-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  // Also at exit: a clean-up step that hangs (a browser already gone at Ctrl-C) must not leave the folder.
  process.on('exit', () => fs.rmSync(workDir, { recursive: true, force: true }));
  const dataDir = path.join(workDir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });

  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  const database = await createDatabase({ databaseUrl: null, dataDir: path.join(dataDir, 'db') });
  cleanups.push(() => database.close());
  await database.migrate();
  const seedStarted = performance.now();
  const seed = await seedJobs(database.db, {
    totalJobs: settings.totalJobs,
    visibleJobs: settings.visibleJobs,
    otherUsers: 500,
    email: userEmail,
    passwordHash,
  });
  console.log(
    `PGlite in this process, seeded in ${round((performance.now() - seedStarted) / 1000, 1)} s: ${seed.rows.jobs} jobs (${settings.visibleJobs} visible to ${userEmail}), ${seed.rows.users} users, ${seed.rows.participants} participants.`,
  );

  const sfu = createWeriftSfu({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], onError });
  cleanups.push(() => sfu.close());
  const { baseUrl } = await startApp(dataDir, database, sfu);
  const token = await signIn(baseUrl, password);
  const listUrl = `${baseUrl}/api/jobs?page=1&pageSize=20`;
  const listResponse = await fetch(listUrl, { headers: { authorization: `Bearer ${token}` } });
  const list = (await listResponse.json()) as { items?: Array<{ id: string }>; total?: number };
  if (listResponse.status !== 200 || list.total !== settings.visibleJobs) {
    throw new Error(`GET /api/jobs answered ${listResponse.status} with total ${String(list.total)} (expected ${settings.visibleJobs}).`);
  }
  // The live channel's route takes a job id that is a real UUID; the seed's ids are md5 digests, so
  // the agent creates the watched job through the API (it joins the list: one more job visible).
  const created = await fetch(`${baseUrl}/api/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Media load probe', notarizationType: 'jurat' }),
  });
  const job = (await created.json()) as { id?: string };
  if (created.status !== 201 || !job.id) throw new Error(`POST /api/jobs answered ${created.status}: ${JSON.stringify(job)}`);
  const jobId = job.id;
  console.log(
    `App (buildApp, PGlite, werift hub) listening at ${baseUrl} in this process; the agent signed in and sees ${list.total} seeded jobs and the one it created.`,
  );

  const media = await launchBenchBrowser(settings.browserNice);
  cleanups.push(() => media.close());
  const browserNiceness = niceBrowserAutogroups(settings.browserNice);
  const session = await openSession(sfu, media, 'media-load', 3, onError);
  cleanups.push(() => session.close());
  console.log(
    `3-person session forwarding (Chromium ${media.browser.version()}; ${browserNiceness}); joins seen by all within ${round(Math.max(...session.joins.map((j) => j.seesAllMs), ...session.joins.flatMap((j) => j.seenByMs)))} ms.`,
  );

  const liveUrl = `${baseUrl.replace('http', 'ws')}/api/jobs/${jobId}/live`;
  const ping = await startPingChild(liveUrl, token);
  console.log(`Signaling round trip: WebSocket ping frames every ${pingIntervalMs} ms from a child process on the job live channel (GET /api/jobs/:id/live).`);
  await sleep(settings.settleMs);

  const loop = monitorEventLoopDelay({ resolution: 10 });
  const { result: quiet } = await measureWindow('without load', session, ping, loop);
  console.log(`  window without load measured (${round((performance.now() - startedAt) / 1000)} s)`);

  // Stopped right after the window; the limit only bounds it if this process hangs.
  const load = startLoad(listUrl, token, Math.ceil((settings.warmupMs + settings.windowMs) / 1000) + 120);
  await sleep(settings.warmupMs);
  const { result: loaded, cannon } = await measureWindow(`with ${settings.connections} connections on GET /api/jobs`, session, ping, loop, load);
  console.log(`  window with load measured (${round((performance.now() - startedAt) / 1000)} s)`);
  if (!cannon) throw new Error('no result from the load generator');
  if (ping.closedBecause) throw new Error(`the ping WebSocket ended during the run: ${ping.closedBecause}`);

  console.log(`\nForwarding of one 3-person session (${settings.windowMs / 1000} s windows; CPU in % of one core, ${cores} cores = ${cores * 100}%):`);
  printWindows([quiet, loaded]);
  console.log(
    `\nLoad: autocannon (child process), ${settings.connections} connections, GET /api/jobs?page=1&pageSize=20 on PGlite with ${seed.rows.jobs} jobs, ` +
      `${round(cannon.duration, 1)} s, from ${settings.warmupMs / 1000} s before the window to its end: ${round(cannon.requests.average, 1)} req/s, ` +
      `latency p50 ${cannon.latency.p50} ms, p99 ${cannon.latency.p99} ms, max ${cannon.latency.max} ms; ${cannon['2xx']} answers 2xx, ${cannon.non2xx} not 2xx, ${cannon.errors} errors, ${cannon.timeouts} time-outs.`,
  );
  console.log(`Load average at start ${loadAtStart}, at end ${loadAverage()}.`);
  if (errors.length > 0) console.log(`${errors.length} hub/participant error(s) during the run; first: ${String(errors[0])}`);
  if (cannon.non2xx > 0 || cannon.errors > 0) console.log('Warning: some list requests did not succeed; the load was lighter than it looks.');

  reportTargets('media under load', [
    {
      name: 'RTP forwarding delay p99 (hub histogram bucket), jobs list at full load on PGlite',
      measured: loaded.figures.forwardP99Ms,
      kind: 'max',
      limit: 20,
      unit: 'ms',
    },
    { name: 'signaling WebSocket round trip p99 (live channel ping), same load', measured: percentile(loaded.pings, 0.99), kind: 'max', limit: 50, unit: 'ms' },
  ]);
  console.log(`Total run time ${round((performance.now() - startedAt) / 1000)} s.`);
  return process.exitCode === 1 ? 1 : 0;
}

process.on('exit', killChildrenNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => abort(130));
setTimeout(() => {
  console.error(`\nThe benchmark did not finish within ${settings.timeoutMs / 1000} s; stopping.`);
  abort(2);
}, settings.timeoutMs).unref();

main().then(
  async (code) => {
    await cleanUp();
    process.exit(code);
  },
  (error: unknown) => {
    console.error(`\nBenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    abort(1);
  },
);
