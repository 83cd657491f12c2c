/**
 * Benchmark of what ID uploads cost everyone else: the p99 of GET /api/system/health while three
 * signers upload hostile ID photos at once (2000 × 2000 noise JPEGs as passports, whose OCR runs
 * until the analysis time bound), on PGlite and, with BENCH_DATABASE_URL, on PostgreSQL.
 *
 *   npm run bench:identity-stall
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<a fresh database> npm run bench:identity-stall
 *
 * The app is built in this process (as `npm start` runs it) and called with inject; a health check
 * is sent every BENCH_HEALTH_EVERY_MS (20) while the uploads run, each timed alone. Target: p99
 * under 50 ms (bench/targets.ts). The analysis time bound is IDENTITY_ANALYSIS_TIMEOUT_MS (20 s).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { resumeTokenHeader } from '#shared/identity.ts';
import { buildApp } from '#server/app.ts';
import { parseConfig } from '#server/config.ts';
import { createDatabase } from '#server/db/client.ts';
import { identityChecks, jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import { stopCredentialAnalysis } from '#server/features/identity/credential/credential-analysis.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { reportTargets, type Target } from './targets.ts';

const healthEveryMs = Number(process.env.BENCH_HEALTH_EVERY_MS ?? 20);
const uploaders = 3;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

function multipart(content: Buffer): { body: Buffer; type: string } {
  const boundary = `----ron${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="documentType"\r\n\r\npassport\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="passport"; filename="p.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

async function measure(label: string, databaseUrl: string | null): Promise<Target> {
  const database = await createDatabase({ databaseUrl, dataDir: null });
  await database.migrate();
  const secretsKey = randomBytes(32);
  const blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-blobs-'));
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WEB_DIST_DIR: '/nonexistent-web-build', MFA_REQUIRED_ROLES: 'none' });
  const app = await buildApp(
    { db: database.db, dbKind: database.kind, config, realtime: createInProcessRealtime(), secretsKey, storage: createLocalStorage(blobRoot) },
    { logger: false },
  );
  await app.ready();

  // Three signers, each with an open identity check and a resume link (the phone's way in).
  const tokens: { checkId: string; token: string }[] = [];
  for (let index = 0; index < uploaders; index += 1) {
    const [user] = await database.db
      .insert(users)
      .values({ email: `bench-signer-${index}-${randomUUID()}@example.test`, name: `Bench Signer ${index}`, roles: ['signer'] })
      .returning();
    const [job] = await database.db
      .insert(jobs)
      .values({ title: `Bench job ${index}`, notarizationType: 'acknowledgment', status: 'ready', createdBy: user?.id })
      .returning();
    const [participant] = await database.db
      .insert(jobParticipants)
      .values({ jobId: job?.id ?? '', userId: user?.id, name: user?.name ?? '', email: user?.email ?? '' })
      .returning();
    const token = createToken();
    const now = new Date();
    const statement = {
      legalName: 'Jane Marie Sample',
      birthDate: '1985-07-04',
      address: { street: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701' },
    };
    const [check] = await database.db
      .insert(identityChecks)
      .values({
        jobId: job?.id ?? '',
        jobParticipantId: participant?.id ?? '',
        userId: user?.id,
        policyCode: 'RULONA',
        statementSealed: encryptSecret(secretsKey, JSON.stringify(statement)),
        createdAt: now,
        expiresAt: new Date(now.getTime() + 24 * 3600_000),
        purgeAfter: new Date(now.getTime() + 365 * 24 * 3600_000),
        resumeTokenHash: hashToken(token),
        resumeExpiresAt: new Date(now.getTime() + 3600_000),
      })
      .returning();
    tokens.push({ checkId: check?.id ?? '', token });
  }

  const noise = await sharp(randomBytes(2000 * 2000 * 3), { raw: { width: 2000, height: 2000, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  const health = async () => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: '/api/system/health' });
    if (res.statusCode !== 200) throw new Error(`health answered ${res.statusCode}`);
    return performance.now() - started;
  };
  await health();

  const uploadStarted = performance.now();
  let done = 0;
  const uploads = tokens.map(async ({ checkId, token }) => {
    const { body, type } = multipart(noise);
    const res = await app.inject({
      method: 'POST',
      url: `/api/identity/${checkId}/credential`,
      headers: { 'content-type': type, [resumeTokenHeader]: token },
      payload: body,
    });
    done += 1;
    return res;
  });
  const samples: number[] = [];
  while (done < uploaders) {
    samples.push(await health());
    await new Promise((resolve) => setTimeout(resolve, healthEveryMs));
  }
  const results = await Promise.all(uploads);
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  const outcomes = results.map((res) =>
    res.statusCode === 200 ? (res.json() as { credential: { status: string } }).credential.status : `HTTP ${res.statusCode}`,
  );
  const p50 = percentile(samples, 50);
  const p99 = percentile(samples, 99);
  console.log(
    `| ${label} | ${samples.length} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${Math.max(...samples).toFixed(1)} | ${uploadSeconds.toFixed(1)} | ${outcomes.join(', ')} |`,
  );
  await app.close();
  await database.close();
  fs.rmSync(blobRoot, { recursive: true, force: true });
  return { name: `GET /api/system/health p99 during ${uploaders} hostile ID uploads, ${label}, ms`, measured: p99, kind: 'max', limit: 50, unit: 'ms' };
}

console.log(
  `Open RON ID-upload stall benchmark: ${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${new Date().toISOString()}`,
);
console.log(
  `Load average before: ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}; analysis threads: ${Math.max(1, os.availableParallelism() - 1)}.`,
);
console.log('');
console.log('| database | health checks | p50 ms | p99 ms | slowest ms | uploads took s | upload results |');
console.log('|---|---|---|---|---|---|---|');
const targets = [await measure('PGlite', null)];
if (process.env.BENCH_DATABASE_URL) targets.push(await measure('PostgreSQL', process.env.BENCH_DATABASE_URL));
else console.log('BENCH_DATABASE_URL is not set: PostgreSQL is not measured.');
await stopCredentialAnalysis();
console.log('');
console.log(
  `Load average after: ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
reportTargets('identity-stall', targets);
