/**
 * Benchmark of Notarize Now's matching (decision 051): 50 notaries online, 200 instant requests
 * arriving evenly over 60 s, each notary accepting an offer 3 s after it appears. Measured per
 * request: the time from POST /api/gnw/instant to the notary's accept answering 200. The target: a
 * median within 1 s of the simulated 3 s. Checked afterwards in the database: no request ever had two
 * offers open at once, nor any notary two (the open intervals, from offered_at to answered_at, or to
 * expires_at for one never answered, never overlap), and nobody was offered a request twice.
 *
 *   npm run bench:gnw                                                        (PGlite)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:gnw   (PGlite, then PostgreSQL)
 *
 * How: the app listens on 127.0.0.1 in this process with the matcher's one-second sweep running, as
 * main.ts starts it. Notaries and requesters are rows (one password hash for all); each signs in
 * with POST /api/auth/login, and each notary goes online with the real toggle and beats every 30 s.
 * Each request is a job with its requester as signer, one document row (never read here), the
 * request in setup and its estimate held (a payments row: the card is not what is measured). Each
 * simulated notary listens on its own channel (GET /api/notifications/live, a WebSocket) and on
 * `offers-changed` fetches GET /api/gnw/offers, as the dashboard does, with the dashboard's 5 s
 * poll besides; it accepts each new offer 3 s after it first saw it.
 *
 * Settings (environment): BENCH_NOTARIES (50), BENCH_REQUESTS (200), BENCH_ARRIVAL_SECONDS (60),
 * BENCH_ACCEPT_MS (3000), DATABASE_URL (adds PostgreSQL), BENCH_SKIP_PGLITE (1: PostgreSQL only).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { buildApp } from '#server/app.ts';
import { parseConfig } from '#server/config.ts';
import { createDatabase, type Database } from '#server/db/client.ts';
import { documents, instantOffers, instantRequests, jobParticipants, jobs, notaryProfiles, payments, users } from '#server/db/schema/index.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { startGnwMatcher } from '#server/tasks/gnw-matcher.ts';
import { cleanUp, cleanups, readNumber } from './bench-kit.ts';
import { reportTargets, type Target } from './targets.ts';

const password = `bench-${randomBytes(8).toString('hex')}`;

async function openBackend(kind: 'pglite' | 'postgres', workDir: string, adminUrl: string | null): Promise<{ database: Database; label: string }> {
  if (kind === 'pglite') {
    const database = await createDatabase({ databaseUrl: null, dataDir: path.join(workDir, 'db') });
    cleanups.push(() => database.close());
    return { database, label: 'PGlite' };
  }
  const name = `open_ron_bench_gnw_${process.pid}_${Date.now()}`;
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

interface Settings {
  notaries: number;
  requests: number;
  arrivalSeconds: number;
  acceptMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * share) - 1))]!;
}

/** Whether any two of these [start, end) intervals overlap; the pairs that do, counted. */
function countOverlaps(intervals: Array<{ start: number; end: number }>): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let overlaps = 0;
  let latestEnd = Number.NEGATIVE_INFINITY;
  for (const interval of sorted) {
    if (interval.start < latestEnd) overlaps += 1;
    latestEnd = Math.max(latestEnd, interval.end);
  }
  return overlaps;
}

async function runBackend(kind: 'pglite' | 'postgres', settings: Settings, adminUrl: string | null): Promise<Target[]> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-gnw-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const { database, label } = await openBackend(kind, workDir, adminUrl);
  await database.migrate();
  const db = database.db;
  const passwordHash = await hashPassword(password);
  const run = randomUUID().slice(0, 8);

  // Notaries: approved, commission in force, nothing else.
  const notaryRows = await db
    .insert(users)
    .values(
      Array.from({ length: settings.notaries }, (_, index) => ({
        email: `notary${index}-${run}@bench.test`,
        name: `Bench Notary ${index}`,
        roles: ['notary' as const],
        passwordHash,
      })),
    )
    .returning({ id: users.id, email: users.email });
  await db.insert(notaryProfiles).values(
    notaryRows.map((row, index) => ({
      userId: row.id,
      commissionState: 'VA',
      commissionNumber: `VA-B${index}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
      approvalStatus: 'approved' as const,
      approvedAt: new Date(),
    })),
  );
  // Requesters, each with a job, a document, a request in setup and the estimate held.
  const requesterRows = await db
    .insert(users)
    .values(
      Array.from({ length: settings.requests }, (_, index) => ({
        email: `person${index}-${run}@bench.test`,
        name: `Bench Person ${index}`,
        roles: ['signer' as const],
        passwordHash,
      })),
    )
    .returning({ id: users.id, email: users.email, name: users.name });
  const requests: Array<{ requester: (typeof requesterRows)[number]; jobId: string }> = [];
  for (const requester of requesterRows) {
    const [job] = await db
      .insert(jobs)
      .values({ title: 'Bench affidavit', notarizationType: 'acknowledgment', createdBy: requester.id })
      .returning({ id: jobs.id });
    if (!job) throw new Error('job insert returned nothing');
    await db
      .insert(jobParticipants)
      .values({ jobId: job.id, userId: requester.id, name: requester.name, email: requester.email, role: 'signer', invitedAt: new Date() });
    await db
      .insert(documents)
      .values({ jobId: job.id, name: 'affidavit.pdf', pageCount: 1, sizeBytes: 1000, sha256: '0'.repeat(64), storageKey: `bench-${job.id}` });
    await db
      .insert(instantRequests)
      .values({ jobId: job.id, requestedBy: requester.id, act: 'acknowledgment', signerState: 'TX', step: 'payment', estimateCents: 3900 });
    await db.insert(payments).values({
      jobId: job.id,
      provider: 'stripe',
      externalId: `pi_bench_${job.id.replace(/-/g, '')}`,
      amountCents: 3900,
      status: 'held',
      idempotencyKey: `bench-hold-${job.id}`,
      createdBy: requester.id,
    });
    requests.push({ requester, jobId: job.id });
  }

  const config = parseConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATA_DIR: workDir,
    WEB_DIST_DIR: '/nonexistent-web-build',
    MFA_REQUIRED_ROLES: 'none',
    PUBLIC_URL: 'http://127.0.0.1',
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '100000',
  });
  const realtime = createInProcessRealtime();
  const app = await buildApp(
    { db, dbKind: database.kind, config, realtime, secretsKey: randomBytes(32), storage: createLocalStorage(path.join(workDir, 'blobs')) },
    { logger: false, isEmailDeliveryStarted: false },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const matcher = startGnwMatcher({ db, realtime, log: app.log });
  cleanups.push(() => matcher.stop());
  const { port } = app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  async function call(token: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }
  async function signIn(email: string): Promise<string> {
    const response = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const token = ((await response.json()) as { sessionToken?: string }).sessionToken;
    if (!token) throw new Error(`sign-in of ${email} answered ${response.status}`);
    return token;
  }

  const notaryTokens: string[] = [];
  for (const row of notaryRows) notaryTokens.push(await signIn(row.email));
  const requesterTokens: string[] = [];
  for (const request of requests) requesterTokens.push(await signIn(request.requester.email));
  console.log(`  ${label}: ${settings.notaries} notaries and ${settings.requests} requests seeded and signed in`);

  // The notaries: online, beating, listening; each new offer accepted acceptMs after it was first seen.
  const acceptedAt = new Map<string, number>();
  const acceptRefusals: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets: WebSocket[] = [];
  let isRunning = true;
  await Promise.all(
    notaryTokens.map(async (token, index) => {
      const sessionId = `bench-browser-${index}`;
      const on = await call(token, 'POST', '/api/notary-availability/toggle', { is_available: true, session_id: sessionId });
      if (on.status !== 200 || on.json.is_available !== true) throw new Error(`notary ${index} could not go online: ${JSON.stringify(on.json)}`);
      const seen = new Set<string>();
      const fetchOffers = async () => {
        if (!isRunning) return;
        const listed = await call(token, 'GET', '/api/gnw/offers');
        for (const offer of (listed.json.items ?? []) as Array<{ id: string; jobId: string }>) {
          if (seen.has(offer.id)) continue;
          seen.add(offer.id);
          const timer = setTimeout(() => {
            timers.delete(timer);
            void call(token, 'POST', `/api/gnw/offers/${offer.id}/accept`, {}).then((answer) => {
              if (answer.status === 200) acceptedAt.set(offer.jobId, performance.now());
              else acceptRefusals.push(`${answer.status} ${String(answer.json.message)}`);
            });
          }, settings.acceptMs);
          timers.add(timer);
        }
      };
      const socket = new WebSocket(`ws://127.0.0.1:${port}/api/notifications/live`, { headers: { authorization: `Bearer ${token}` } });
      sockets.push(socket);
      socket.on('message', (data) => {
        if (String(data).includes('offers-changed')) void fetchOffers().catch(() => undefined);
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('message', () => resolve());
        socket.once('error', reject);
      });
      const poll = setInterval(() => void fetchOffers().catch(() => undefined), 5000);
      const beat = setInterval(() => void call(token, 'POST', '/api/notary-availability/heartbeat', { session_id: sessionId }).catch(() => undefined), 30_000);
      cleanups.push(async () => {
        clearInterval(poll);
        clearInterval(beat);
      });
    }),
  );

  // The requests, evenly over the arrival window.
  const startedAt = new Map<string, number>();
  const startRefusals: string[] = [];
  const spacingMs = (settings.arrivalSeconds * 1000) / settings.requests;
  const benchStart = performance.now();
  await Promise.all(
    requests.map(async (request, index) => {
      await sleep(index * spacingMs - (performance.now() - benchStart));
      startedAt.set(request.jobId, performance.now());
      const answer = await call(requesterTokens[index]!, 'POST', '/api/gnw/instant', { jobId: request.jobId });
      if (answer.status !== 200) startRefusals.push(`${answer.status} ${String(answer.json.message)}`);
    }),
  );
  // Everyone answered, or 60 s more passed.
  const deadline = performance.now() + 60_000;
  while (acceptedAt.size < settings.requests && performance.now() < deadline) await sleep(250);
  isRunning = false;
  for (const timer of timers) clearTimeout(timer);
  for (const socket of sockets) socket.close();
  const arrivalSeconds = (performance.now() - benchStart) / 1000;

  const waits = requests.flatMap((request) => {
    const from = startedAt.get(request.jobId);
    const to = acceptedAt.get(request.jobId);
    return from !== undefined && to !== undefined ? [to - from] : [];
  });
  waits.sort((a, b) => a - b);
  const median = percentile(waits, 0.5);
  const p95 = percentile(waits, 0.95);

  // The database's account of every offer: open intervals per request and per notary never overlap.
  const offers = await db.select().from(instantOffers);
  const end = (offer: (typeof offers)[number]) => (offer.answeredAt ?? offer.expiresAt).getTime();
  const byRequest = new Map<string, Array<{ start: number; end: number }>>();
  const byNotary = new Map<string, Array<{ start: number; end: number }>>();
  const pairs = new Set<string>();
  let repeated = 0;
  for (const offer of offers) {
    const interval = { start: offer.offeredAt.getTime(), end: end(offer) };
    byRequest.set(offer.requestId ?? '', [...(byRequest.get(offer.requestId ?? '') ?? []), interval]);
    byNotary.set(offer.userId, [...(byNotary.get(offer.userId) ?? []), interval]);
    const pair = `${offer.requestId}/${offer.userId}`;
    if (pairs.has(pair)) repeated += 1;
    pairs.add(pair);
  }
  const requestOverlaps = [...byRequest.values()].reduce((sum, intervals) => sum + countOverlaps(intervals), 0);
  const notaryOverlaps = [...byNotary.values()].reduce((sum, intervals) => sum + countOverlaps(intervals), 0);
  const statuses = offers.reduce<Record<string, number>>((counts, offer) => ({ ...counts, [offer.status]: (counts[offer.status] ?? 0) + 1 }), {});
  const matched = (await db.select({ status: instantRequests.status }).from(instantRequests)).filter((row) => row.status === 'matched').length;

  console.log(
    `  ${label}: ${waits.length} of ${settings.requests} requests accepted (${matched} matched in the database) in ${arrivalSeconds.toFixed(1)} s; ` +
      `instant to accept: median ${(median / 1000).toFixed(2)} s, p95 ${(p95 / 1000).toFixed(2)} s, min ${((waits[0] ?? Number.NaN) / 1000).toFixed(2)} s, max ${((waits.at(-1) ?? Number.NaN) / 1000).toFixed(2)} s`,
  );
  console.log(
    `  ${label}: ${offers.length} offers (${Object.entries(statuses)
      .map(([status, total]) => `${total} ${status}`)
      .join(', ')}); overlapping open offers: ${requestOverlaps} per request, ${notaryOverlaps} per notary; offered twice: ${repeated}`,
  );
  if (startRefusals.length > 0) console.log(`  ${label}: starts refused: ${startRefusals.slice(0, 5).join('; ')}`);
  if (acceptRefusals.length > 0) console.log(`  ${label}: accepts refused (${acceptRefusals.length}): ${acceptRefusals.slice(0, 5).join('; ')}`);
  await matcher.stop();

  return [
    {
      name: `instant to accept, median, ${settings.notaries} notaries, ${settings.requests} requests over ${settings.arrivalSeconds} s, ${label}`,
      measured: median / 1000,
      kind: 'max',
      limit: (settings.acceptMs + 1000) / 1000,
      unit: 's',
    },
    { name: `requests accepted, ${label}`, measured: waits.length, kind: 'min', limit: settings.requests, unit: '' },
    { name: `two offers open at once for one request, ${label}`, measured: requestOverlaps, kind: 'max', limit: 0, unit: '' },
    { name: `two offers open at once for one notary, ${label}`, measured: notaryOverlaps, kind: 'max', limit: 0, unit: '' },
    { name: `a request offered to one notary twice, ${label}`, measured: repeated, kind: 'max', limit: 0, unit: '' },
  ];
}

async function main() {
  const settings: Settings = {
    notaries: readNumber(process.env, 'BENCH_NOTARIES', 50),
    requests: readNumber(process.env, 'BENCH_REQUESTS', 200),
    arrivalSeconds: readNumber(process.env, 'BENCH_ARRIVAL_SECONDS', 60),
    acceptMs: readNumber(process.env, 'BENCH_ACCEPT_MS', 3000),
  };
  const adminUrl = process.env.DATABASE_URL ?? null;
  if (adminUrl && !/@(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(adminUrl))
    throw new Error('DATABASE_URL must be a loopback server: the benchmark creates and drops a database there.');
  console.log(
    `Notarize Now matching benchmark: ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(2)}, ` +
      `${settings.notaries} notaries, ${settings.requests} requests over ${settings.arrivalSeconds} s, accept after ${settings.acceptMs} ms`,
  );
  const targets: Target[] = [];
  const backends: Array<'pglite' | 'postgres'> = [
    ...(process.env.BENCH_SKIP_PGLITE === '1' ? [] : ['pglite' as const]),
    ...(adminUrl ? ['postgres' as const] : []),
  ];
  for (const kind of backends) {
    targets.push(...(await runBackend(kind, settings, adminUrl)));
    await cleanUp();
  }
  reportTargets('the Notarize Now matching benchmark', targets);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
