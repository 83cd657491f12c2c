/**
 * Runs every benchmark of the project, one after another (they measure the whole machine, never two
 * at once), and sums up. With BENCH_STRICT=1 each benchmark exits non-zero when one of its targets
 * is missed (bench/targets.ts), and so does this run.
 *
 *   npm run bench:all
 *   BENCH_STRICT=1 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:all
 *
 * BENCH_DATABASE_URL (a PostgreSQL server a fresh database can be created on) is needed for the
 * PostgreSQL rows; without it they are not measured, which BENCH_STRICT=1 counts as a miss.
 * BENCH_ONLY=jobs,notarize runs only the named ones.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Step {
  name: string;
  command: string[];
  env?: Record<string, string>;
}

const steps: Step[] = [
  { name: 'auth', command: ['--import', 'tsx', 'bench/auth.bench.ts'] },
  // the list at 10,000, 100,000 and 1,000,000 jobs (the growth target: within 2x of 100,000), PGlite and PostgreSQL
  { name: 'jobs', command: ['--import', 'tsx', 'bench/jobs.bench.ts'], env: { BENCH_PGLITE: '1', BENCH_JOBS: '10000,100000,1000000' } },
  { name: 'upload', command: ['--import', 'tsx', 'bench/upload.bench.ts'] },
  { name: 'notarize', command: ['--import', 'tsx', 'bench/notarize.bench.ts'] },
  { name: 'media-load', command: ['--expose-gc', '--import', 'tsx', 'bench/media-load.bench.ts'] },
  { name: 'video', command: ['--expose-gc', '--import', 'tsx', 'bench/video.bench.ts'] },
  { name: 'identity', command: ['--import', 'tsx', 'bench/identity.bench.ts'] },
  // the health check's p99 while three signers upload hostile ID photos, PGlite and PostgreSQL
  { name: 'identity-stall', command: ['--import', 'tsx', 'bench/identity-stall.bench.ts'] },
  { name: 'journal', command: ['--expose-gc', '--import', 'tsx', 'bench/journal.bench.ts'] },
  // the notary's archive of 1,000 sessions' records, MB/s (decision 059)
  { name: 'archive', command: ['--import', 'tsx', 'bench/archive.bench.ts'] },
  // the offline verifier over a generated archive of 40 sessions' records, MB/s (decision 060)
  { name: 'verify', command: ['--import', 'tsx', 'bench/verify.bench.ts'] },
  { name: 'billing', command: ['--expose-gc', '--import', 'tsx', 'bench/billing.bench.ts'] },
  { name: 'durability', command: ['--import', 'tsx', 'bench/durability.bench.ts'] },
  // Notarize Now: 50 notaries, 200 instant requests over a minute, accept after 3 s (decision 051)
  { name: 'gnw', command: ['--import', 'tsx', 'bench/gnw-matching.bench.ts'] },
];

function run(step: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, step.command, { cwd: root, stdio: 'inherit', env: { ...process.env, ...step.env } });
    const stop = () => child.kill('SIGINT');
    process.once('SIGINT', stop);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', stop);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const only = process.env.BENCH_ONLY?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = only?.filter((name) => !steps.some((step) => step.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`BENCH_ONLY names no benchmark: ${unknown.join(', ')} (known: ${steps.map((step) => step.name).join(', ')})`);
  process.exit(2);
}
if (!process.env.BENCH_DATABASE_URL) console.log('BENCH_DATABASE_URL is not set: the PostgreSQL rows are not measured.');
console.log(
  `Open RON benchmarks: ${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${new Date().toISOString()}, load ${os.loadavg()[0]?.toFixed(2)}`,
);

const results: { name: string; code: number; seconds: number }[] = [];
for (const step of steps.filter((candidate) => !only || only.includes(candidate.name))) {
  console.log(`\n=== ${step.name} ===\n`);
  const startedAt = Date.now();
  const code = await run(step);
  results.push({ name: step.name, code, seconds: (Date.now() - startedAt) / 1000 });
  if (code === 130 || code === 128) break;
}

console.log('\n| benchmark | result | seconds |\n|---|---|---|');
for (const result of results) console.log(`| ${result.name} | ${result.code === 0 ? 'ok' : `exit ${result.code}`} | ${result.seconds.toFixed(0)} |`);
const failed = results.filter((result) => result.code !== 0);
console.log(
  failed.length === 0
    ? '\nEvery benchmark ran and met its targets.'
    : `\n${failed.length} benchmark(s) failed or missed a target: ${failed.map((result) => result.name).join(', ')}.`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
