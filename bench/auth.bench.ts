/**
 * Load benchmark of sign-in and `/api/auth/me`, measured beside a bare Fastify route in the same run.
 *
 *   npm run bench
 *
 * Starts, as child processes on loopback only: the bare Fastify server (bench/bare-server.ts), the
 * real app on a fresh embedded PGlite at LOG_LEVEL=warn, the same app at LOG_LEVEL=info (to show
 * what per-request logging costs) and, when BENCH_DATABASE_URL is set, the app on PostgreSQL. Each
 * app is started with `--demo`; the printed demo password signs in signer@demo.open-ron.test.
 * autocannon runs here, in this process, against one server at a time; the bare route is measured
 * first and again last, and "vs bare" divides by the mean of the two. Each row also reports the
 * server's CPU time per request (from /proc) and how much of the CPU other processes used, since a
 * busy machine distorts the figures. Every child is stopped on exit, on error and on Ctrl-C, and the
 * temporary data folders are removed.
 *
 * Settings (environment): BENCH_DURATION (seconds, 10), BENCH_WARMUP (seconds, 2),
 * BENCH_CONNECTIONS (100), BENCH_LOGIN_CONNECTIONS (10), BENCH_INFO_LOG (1; 0 skips the info-level
 * run), BENCH_DATABASE_URL (a loopback PostgreSQL database the app may migrate and seed),
 * BENCH_STRICT (1 exits non-zero when a target is missed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { children, findFreePort, killChildrenNow, readNumber, stopChild, tailOf } from './bench-kit.ts';
import { readMachineBusyMs, readProcessCpuMs } from './proc-cpu.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demoEmail = 'signer@demo.open-ron.test';
const targets = { minimumRatioToBare: 0.4, maximumP99Ms: 20 };
const unlimited = '1000000000';
const startupTimeoutMs = 60_000;
const overallTimeoutMs = 180_000;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

interface Settings {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  loginConnections: number;
  isStrict: boolean;
  hasInfoLogRun: boolean;
  databaseUrl: string | null;
}

interface Server {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  logPath: string;
}

interface AppServer extends Server {
  token: string;
  password: string;
}

interface Scenario {
  route: string;
  server: string;
  pid: number | undefined;
  method: 'GET' | 'POST';
  url: string;
  connections: number;
  headers?: Record<string, string>;
  body?: string;
  hasTarget: boolean;
  isBaseline?: boolean;
}

interface Measurement {
  scenario: Scenario;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total2xx: number;
  /** CPU time the server process spent per request, in microseconds (null off Linux). */
  serverCpuMicroseconds: number | null;
  /** Share of the machine's CPU used by processes other than this benchmark and its servers. */
  otherCpuShare: number;
}

interface CpuSnapshot {
  at: number;
  machineBusyMs: number;
  ownMs: number;
  serverMs: number | null;
}

const workDirs = new Set<string>();

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const databaseUrl = env.BENCH_DATABASE_URL ? env.BENCH_DATABASE_URL : null;
  if (databaseUrl) {
    const host = new URL(databaseUrl).hostname;
    if (!loopbackHosts.has(host)) throw new Error(`BENCH_DATABASE_URL must point at a loopback host (got "${host}").`);
  }
  return {
    durationSeconds: readNumber(env, 'BENCH_DURATION', 10),
    warmupSeconds: readNumber(env, 'BENCH_WARMUP', 2),
    connections: Math.round(readNumber(env, 'BENCH_CONNECTIONS', 100)),
    loginConnections: Math.round(readNumber(env, 'BENCH_LOGIN_CONNECTIONS', 10)),
    isStrict: env.BENCH_STRICT === '1',
    hasInfoLogRun: env.BENCH_INFO_LOG !== '0',
    databaseUrl,
  };
}

/** Runs a TypeScript entry point with node + tsx; its output goes to a file so this process never drains it. */
function startChild(name: string, workDir: string, script: string, args: string[], env: Record<string, string>): { child: ChildProcess; logPath: string } {
  const logPath = path.join(workDir, `${name}.log`);
  const fd = fs.openSync(logPath, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd],
  });
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
  const { child, logPath } = startChild('bare', workDir, 'bench/bare-server.ts', [], { PORT: String(port) });
  await waitForOutput('bare fastify', child, logPath, /listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return { name: 'bare', baseUrl: `http://127.0.0.1:${port}`, child, logPath };
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function startApp(name: string, workDir: string, env: Record<string, string>): Promise<AppServer> {
  const port = await findFreePort();
  const dataDir = path.join(workDir, name);
  fs.mkdirSync(dataDir);
  const { child, logPath } = startChild(name, workDir, 'src/server/main.ts', ['--demo'], {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    DATABASE_URL: '',
    REDIS_URL: '',
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: unlimited,
    LOGIN_MAX_FAILURES_PER_ACCOUNT: unlimited,
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: unlimited,
    ...env,
  });
  const [, password] = await waitForOutput(name, child, logPath, /Open RON is running at [\s\S]*?password: (\S+)\n/);
  if (!password) throw new Error(`${name} printed no demo password`);
  const baseUrl = `http://127.0.0.1:${port}`;
  const signedIn = (await postJson(`${baseUrl}/api/auth/login`, { email: demoEmail, password })) as { sessionToken?: string | null };
  if (!signedIn.sessionToken) throw new Error(`${name}: sign-in returned no session token`);
  const me = await fetch(`${baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${signedIn.sessionToken}` } });
  if (me.status !== 200) throw new Error(`${name}: /api/auth/me with the new token answered ${me.status}`);
  return { name, baseUrl, child, logPath, token: signedIn.sessionToken, password };
}

/** The last resort on Ctrl-C, a time-out or an uncaught error: no waiting, no graceful close. */
function killAllNow(): void {
  killChildrenNow();
  for (const dir of workDirs) fs.rmSync(dir, { recursive: true, force: true });
  workDirs.clear();
}

function takeCpuSnapshot(serverPid: number | undefined): CpuSnapshot {
  const machineBusyMs = readMachineBusyMs();
  const own = process.cpuUsage();
  const childrenMs = [...children].reduce((sum, child) => sum + (readProcessCpuMs(child.pid) ?? 0), 0);
  return { at: Date.now(), machineBusyMs, ownMs: (own.user + own.system) / 1000 + childrenMs, serverMs: readProcessCpuMs(serverPid) };
}

async function runAutocannon(scenario: Scenario, durationSeconds: number): Promise<autocannon.Result> {
  const result = await autocannon({
    url: scenario.url,
    method: scenario.method,
    connections: scenario.connections,
    duration: durationSeconds,
    headers: scenario.headers ?? {},
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(
      `${scenario.method} ${scenario.route} on ${scenario.server}: ${result.non2xx} non-2xx responses ` +
        `(4xx ${result['4xx']}, 5xx ${result['5xx']}), ${result.errors} errors, ${result.timeouts} timeouts out of ${result.requests.total}.`,
    );
  }
  return result;
}

async function measure(scenario: Scenario, settings: Settings): Promise<Measurement> {
  process.stdout.write(`  ${scenario.method} ${scenario.route} on ${scenario.server}, ${scenario.connections} connections ... `);
  await runAutocannon(scenario, settings.warmupSeconds);
  const before = takeCpuSnapshot(scenario.pid);
  const result = await runAutocannon(scenario, settings.durationSeconds);
  const after = takeCpuSnapshot(scenario.pid);
  const capacityMs = (after.at - before.at) * os.cpus().length;
  const otherMs = after.machineBusyMs - before.machineBusyMs - (after.ownMs - before.ownMs);
  const measurement: Measurement = {
    scenario,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total2xx: result['2xx'],
    serverCpuMicroseconds:
      after.serverMs === null || before.serverMs === null || result['2xx'] === 0 ? null : ((after.serverMs - before.serverMs) * 1000) / result['2xx'],
    otherCpuShare: capacityMs > 0 ? Math.min(1, Math.max(0, otherMs / capacityMs)) : 0,
  };
  console.log(
    `${Math.round(measurement.requestsPerSecond)} req/s, p50 ${measurement.p50Ms} ms, p99 ${measurement.p99Ms} ms` +
      (measurement.serverCpuMicroseconds === null ? '' : `, server CPU ${Math.round(measurement.serverCpuMicroseconds)} µs/request`) +
      `, other processes ${Math.round(measurement.otherCpuShare * 100)}% of the CPU`,
  );
  return measurement;
}

/** The ratio is taken against the mean of the bare runs (one before the app rows, one after) so drift during the run cancels out. */
function formatTable(measurements: Measurement[], bareRequestsPerSecond: number): { table: string; hasFailure: boolean } {
  let hasFailure = false;
  const header = [
    'Route',
    'Server',
    'Conn.',
    'req/s',
    'p50 ms',
    'p99 ms',
    'vs bare',
    'Server CPU µs/req',
    'Other load',
    'Target (>= 40% of bare, p99 < 20 ms)',
  ];
  const rows = measurements.map((m) => {
    const ratio = m.requestsPerSecond / bareRequestsPerSecond;
    let verdict = m.scenario.isBaseline ? 'baseline' : 'no target';
    if (m.scenario.hasTarget) {
      const isRatioMet = ratio >= targets.minimumRatioToBare;
      const isP99Met = m.p99Ms < targets.maximumP99Ms;
      if (!isRatioMet || !isP99Met) hasFailure = true;
      verdict = isRatioMet && isP99Met ? 'PASS' : `FAIL (${[isRatioMet ? '' : 'throughput', isP99Met ? '' : 'p99'].filter(Boolean).join(', ')})`;
    }
    return [
      `${m.scenario.method} ${m.scenario.route}`,
      m.scenario.server,
      String(m.scenario.connections),
      String(Math.round(m.requestsPerSecond)),
      String(m.p50Ms),
      String(m.p99Ms),
      `${(ratio * 100).toFixed(1)}%`,
      m.serverCpuMicroseconds === null ? 'n/a' : String(Math.round(m.serverCpuMicroseconds)),
      `${Math.round(m.otherCpuShare * 100)}%`,
      verdict,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const table = [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
  return { table, hasFailure };
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-bench-'));
  workDirs.add(workDir);
  try {
    const cpus = os.cpus();
    console.log(`Open RON auth benchmark: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`);
    console.log(`${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per row; autocannon runs in this process.`);
    console.log('Starting the bare Fastify server and the app (fresh PGlite, --demo) as child processes ...');

    const appRuns: { name: string; label: string; env: Record<string, string>; hasLogin: boolean }[] = [
      { name: 'app-pglite-warn', label: 'app, PGlite, LOG_LEVEL=warn', env: { LOG_LEVEL: 'warn' }, hasLogin: true },
    ];
    if (settings.hasInfoLogRun) {
      appRuns.push({ name: 'app-pglite-info', label: 'app, PGlite, LOG_LEVEL=info', env: { LOG_LEVEL: 'info' }, hasLogin: false });
    }
    if (settings.databaseUrl) {
      appRuns.push({
        name: 'app-postgres-warn',
        label: 'app, PostgreSQL, LOG_LEVEL=warn',
        env: { LOG_LEVEL: 'warn', DATABASE_URL: settings.databaseUrl },
        hasLogin: true,
      });
    }
    const started = await Promise.all([startBareServer(workDir), ...appRuns.map((run) => startApp(run.name, workDir, run.env))]);
    const [bareServer, ...apps] = started as [Server, ...AppServer[]];
    console.log('Ready. Measuring:');

    const bareScenario: Scenario = {
      route: '/bare',
      server: 'bare Fastify 5',
      pid: bareServer.child.pid,
      method: 'GET',
      url: `${bareServer.baseUrl}/bare`,
      connections: settings.connections,
      hasTarget: false,
      isBaseline: true,
    };
    const scenarios: Scenario[] = [bareScenario];
    appRuns.forEach((run, index) => {
      const app = apps[index];
      if (!app) return;
      scenarios.push({
        route: '/api/auth/me',
        server: run.label,
        pid: app.child.pid,
        method: 'GET',
        url: `${app.baseUrl}/api/auth/me`,
        connections: settings.connections,
        headers: { authorization: `Bearer ${app.token}` },
        hasTarget: true,
      });
    });
    appRuns.forEach((run, index) => {
      const app = apps[index];
      if (!app || !run.hasLogin) return;
      scenarios.push({
        route: '/api/auth/login',
        server: run.label,
        pid: app.child.pid,
        method: 'POST',
        url: `${app.baseUrl}/api/auth/login`,
        connections: settings.loginConnections,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: demoEmail, password: app.password }),
        hasTarget: false,
      });
    });

    scenarios.push({ ...bareScenario, server: 'bare Fastify 5 (again)' });

    const measurements: Measurement[] = [];
    for (const scenario of scenarios) measurements.push(await measure(scenario, settings));
    const bareRuns = measurements.filter((m) => m.scenario.isBaseline).map((m) => m.requestsPerSecond);
    if (bareRuns.length === 0) throw new Error('the bare route was not measured');
    const bareRequestsPerSecond = bareRuns.reduce((sum, value) => sum + value, 0) / bareRuns.length;
    const { table, hasFailure } = formatTable(measurements, bareRequestsPerSecond);
    console.log(`\n${table}\n`);
    console.log(`"vs bare" divides by the mean of the ${bareRuns.length} bare runs (${bareRuns.map((value) => Math.round(value)).join(' and ')} req/s).`);
    if (bareRuns.length > 1 && (Math.max(...bareRuns) - Math.min(...bareRuns)) / bareRequestsPerSecond > 0.15) {
      console.log('Warning: the two bare runs differ by more than 15%: the machine was not steady during the run. Rerun before quoting the ratio.');
    }
    console.log(
      `req/s is autocannon's mean of per-second samples; p50/p99 are its latency percentiles (1 ms resolution). ` +
        `Sign-in uses ${settings.loginConnections} connections: argon2id makes each request CPU-bound. ` +
        `Login limits were raised for the benchmark (LOGIN_MAX_ATTEMPTS_PER_ADDRESS, LOGIN_MAX_FAILURES_PER_ACCOUNT).`,
    );
    const busiest = Math.max(...measurements.map((m) => m.otherCpuShare));
    if (busiest > 0.1) {
      console.log(
        `Warning: other processes used up to ${Math.round(busiest * 100)}% of the CPU during a row; the figures are disturbed. Rerun on a quiet machine.`,
      );
    }
    if (hasFailure) {
      console.log(settings.isStrict ? 'A target was missed (BENCH_STRICT=1: failing).' : 'A target was missed (set BENCH_STRICT=1 to fail the run).');
      return settings.isStrict ? 1 : 0;
    }
    console.log('All targets met.');
    return 0;
  } finally {
    await Promise.all([...children].map(stopChild));
    fs.rmSync(workDir, { recursive: true, force: true });
    workDirs.delete(workDir);
  }
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllNow();
    process.exit(130);
  });
}
setTimeout(() => {
  console.error(`\nThe benchmark did not finish within ${overallTimeoutMs / 1000} s; stopping.`);
  killAllNow();
  process.exit(2);
}, overallTimeoutMs).unref();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\nBenchmark failed: ${error instanceof Error ? error.message : String(error)}`);
    killAllNow();
    process.exit(1);
  },
);
