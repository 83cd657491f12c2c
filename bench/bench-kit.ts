/**
 * What the HTTP benchmarks share (bench/auth.bench.ts, bench/jobs.bench.ts, bench/upload.bench.ts): the child processes
 * they start and stop, the clean-ups run once on success, failure, Ctrl-C or time-out, and small
 * helpers for settings and timing.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const children = new Set<ChildProcess>();
/** Run once, on success, failure, Ctrl-C or time-out: stop the children, drop databases, remove temp folders. */
export const cleanups: Array<() => Promise<void>> = [];

export async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => console.error(`clean-up: ${String(error)}`));
}

export function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}").`);
  return value;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

export async function findFreePort(): Promise<number> {
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

export function tailOf(logPath: string, lines = 20): string {
  try {
    return fs.readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export function killChildrenNow(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
