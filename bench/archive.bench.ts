/**
 * Benchmark of the notary's archive (decision 059): the export rate (MB/s) of one
 * commission's records for N sessions, N = 1,000 by default, on PGlite.
 *
 *   node --import tsx bench/archive.bench.ts
 *   BENCH_SESSIONS=1000 BENCH_SEGMENTS=3 BENCH_SEGMENT_MB=1.5 node --import tsx bench/archive.bench.ts
 *
 * How: a temporary DATA_DIR holds a PGlite database migrated by the app's createDatabase().migrate().
 * One notary (commission TX) has N sealed jobs, seeded with set-based SQL: each with a signer, a
 * document, one sealed PDF of BENCH_PDF_KB (its own random bytes, so its own blob), a finalized
 * journal entry with an addendum every tenth, twenty audit events, a finalized session with a
 * recording of BENCH_SEGMENTS segments of BENCH_SEGMENT_MB each. The segment files are a few random
 * blobs shared by every session (storage is addressed by SHA-256, so they cost the disk once);
 * the archive still reads and writes each segment in full. The archive is then queued and built by
 * the app's own ArchiveBuilder (tasks/archive-builder.ts) in this process, timed from claim to
 * ready, and its size divided by that time is the rate. The archive is checked with `unzip -tq`.
 *
 * Settings (environment): BENCH_SESSIONS (1000), BENCH_SEGMENTS (3), BENCH_SEGMENT_MB (1.5),
 * BENCH_PDF_KB (200).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { createDatabase } from '#server/db/client.ts';
import { notaryArchives, notaryProfiles, users } from '#server/db/schema/index.ts';
import { getOrIssuePlatformSignerCredentials } from '#server/providers/signing/certificates.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { ArchiveBuilder } from '#server/tasks/archive-builder.ts';
import { reportTargets } from './targets.ts';

const sessions = Number(process.env.BENCH_SESSIONS ?? 1000);
const segmentsPerSession = Number(process.env.BENCH_SEGMENTS ?? 3);
const segmentBytes = Math.round(Number(process.env.BENCH_SEGMENT_MB ?? 1.5) * 1024 * 1024);
const pdfBytes = Math.round(Number(process.env.BENCH_PDF_KB ?? 200) * 1024);
const megabyte = 1024 * 1024;

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-archive-'));
const cleanups: Array<() => Promise<void>> = [async () => fs.rmSync(workDir, { recursive: true, force: true })];
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

function storeBlob(root: string, bytes: Buffer): string {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const directory = path.join(root, sha256.slice(0, 2), sha256.slice(2, 4));
  fs.mkdirSync(directory, { recursive: true });
  fs.writeFileSync(path.join(directory, sha256), bytes);
  return sha256;
}

async function main() {
  const database = await createDatabase({ databaseUrl: null, dataDir: path.join(workDir, 'db') });
  cleanups.push(() => database.close());
  await database.migrate();
  const { db } = database;
  const blobRoot = path.join(workDir, 'blobs');

  const seedStarted = performance.now();
  const [notary] = await db
    .insert(users)
    .values({ email: 'notary@bench.open-ron.test', name: 'Bench Notary', roles: ['notary'] })
    .returning({ id: users.id });
  if (!notary) throw new Error('no notary');
  await db.insert(notaryProfiles).values({
    userId: notary.id,
    commissionState: 'TX',
    commissionNumber: '13245768-9',
    commissionExpiresOn: '2030-12-31',
    county: 'Travis',
    approvalStatus: 'approved',
  });
  const segmentKeys = Array.from({ length: segmentsPerSession }, () => storeBlob(blobRoot, randomBytes(segmentBytes)));
  const pdfKeys: string[] = [];
  for (let index = 0; index < sessions; index += 1) pdfKeys.push(storeBlob(blobRoot, randomBytes(pdfBytes)));
  const facts = JSON.stringify({
    actKey: 'acknowledgment',
    actLabel: 'Acknowledgment',
    notaryName: 'Bench Notary',
    commissionState: 'TX',
    commissionNumber: '13245768-9',
    commissionExpiresOn: '2030-12-31',
    county: 'Travis',
    notarizedAt: '2026-01-01T00:00:00.000Z',
  });
  const notaryId = notary.id;
  await db.execute(sql`
    insert into jobs (id, title, notarization_type, status, notary_id, created_by, created_at, updated_at)
    select md5('job' || n)::uuid, 'Deed of trust ' || n, 'acknowledgment', 'completed', ${notaryId}::uuid, ${notaryId}::uuid,
      timestamptz '2026-01-01' + n * interval '1 hour', timestamptz '2026-01-01' + n * interval '1 hour' + interval '40 minutes'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into job_participants (id, job_id, name, email, role)
    select md5('participant' || n)::uuid, md5('job' || n)::uuid, 'Signer ' || n, 'signer' || n || '@example.test', 'signer'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into documents (id, job_id, name, page_count, size_bytes, sha256, storage_key, status)
    select md5('document' || n)::uuid, md5('job' || n)::uuid, 'Deed of trust ' || n || '.pdf', 4, ${pdfBytes}::int, md5('original' || n), md5('original' || n), 'completed'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into notarized_documents (id, job_id, document_id, storage_key, sha256, size_bytes, page_count, notary_id, public_facts, is_notarial_act, created_at)
    select md5('sealed' || n)::uuid, md5('job' || n)::uuid, md5('document' || n)::uuid, keys.key, keys.key, ${pdfBytes}::int, 5, ${notaryId}::uuid,
      ${facts}::jsonb, true, timestamptz '2026-01-01' + n * interval '1 hour' + interval '40 minutes'
    from unnest(${`{${pdfKeys.join(',')}}`}::text[]) with ordinality as keys(key, n)`);
  await db.execute(sql`
    insert into notary_journal_entries (id, notary_id, job_id, document_id, participant_id, status, content, created_at, finalized_at, kept_until)
    select md5('entry' || n)::uuid, ${notaryId}::uuid, md5('job' || n)::uuid, md5('document' || n)::uuid, md5('participant' || n)::uuid, 'final',
      jsonb_build_object('notarizedAt', '2026-01-01T00:00:00.000Z', 'actType', 'Acknowledgment', 'documentName', 'Deed of trust ' || n || '.pdf',
        'documentType', 'Deed of trust', 'documentDate', '2026-01-01', 'documentSha256', md5('sealed' || n), 'signerName', 'Signer ' || n,
        'signerEmail', 'signer' || n || '@example.test', 'signerAddress', n || ' Congress Avenue, Austin, TX 78701',
        'identityMethod', 'Credential analysis passed; knowledge-based questions passed; confirmed by the notary', 'isIdentityProven', true,
        'identityEvidence', null, 'isIdentifiedByCredibleWitness', false, 'credibleWitnesses', '[]'::jsonb, 'witnesses', '[]'::jsonb,
        'recordingReference', 'recording ' || n, 'feeCents', 2500, 'notes', null, 'commissionState', 'TX'),
      timestamptz '2026-01-01' + n * interval '1 hour', timestamptz '2026-01-01' + n * interval '1 hour' + interval '45 minutes', timestamptz '2036-01-01'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into notary_journal_addenda (entry_id, text, created_by)
    select md5('entry' || n)::uuid, 'The fee was waived.', ${notaryId}::uuid from generate_series(1, ${sessions}::int) as n where n % 10 = 0`);
  await db.execute(sql`
    insert into audit_events (scope, job_id, actor_id, action, ip_address, user_agent, data, created_at, previous_hash, hash)
    select 'job:' || md5('job' || n)::uuid, md5('job' || n)::uuid, ${notaryId}::uuid, 'field.filled', '127.0.0.1', 'Mozilla/5.0 (bench)',
      jsonb_build_object('fieldId', md5('field' || n || '-' || e), 'documentName', 'Deed of trust ' || n || '.pdf'),
      timestamptz '2026-01-01' + n * interval '1 hour' + e * interval '1 minute', md5('h' || n || '-' || (e - 1)), md5('h' || n || '-' || e)
    from generate_series(1, ${sessions}::int) as n, generate_series(1, 20) as e`);
  await db.execute(sql`
    insert into video_sessions (id, job_id, status, created_by, started_at, finalized_at)
    select md5('session' || n)::uuid, md5('job' || n)::uuid, 'finalized', ${notaryId}::uuid,
      timestamptz '2026-01-01' + n * interval '1 hour', timestamptz '2026-01-01' + n * interval '1 hour' + interval '40 minutes'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into recordings (id, session_id, job_id, started_by, status, started_at, stopped_at)
    select md5('recording' || n)::uuid, md5('session' || n)::uuid, md5('job' || n)::uuid, ${notaryId}::uuid, 'stopped',
      timestamptz '2026-01-01' + n * interval '1 hour', timestamptz '2026-01-01' + n * interval '1 hour' + interval '30 minutes'
    from generate_series(1, ${sessions}::int) as n`);
  await db.execute(sql`
    insert into recording_segments (recording_id, participant_id, sequence, sha256, bytes, started_at, ended_at, storage_key)
    select md5('recording' || n)::uuid, case when s % 2 = 0 then 'notary' else md5('participant' || n)::uuid::text end, s - 1, keys.key, ${segmentBytes}::bigint,
      timestamptz '2026-01-01' + n * interval '1 hour' + (s - 1) * interval '10 minutes', timestamptz '2026-01-01' + n * interval '1 hour' + s * interval '10 minutes', keys.key
    from generate_series(1, ${sessions}::int) as n, unnest(${`{${segmentKeys.join(',')}}`}::text[]) with ordinality as keys(key, s)`);
  for (const table of ['jobs', 'notarized_documents', 'notary_journal_entries', 'audit_events', 'recording_segments', 'recordings']) {
    await db.execute(sql.raw(`analyze ${table}`));
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const log = { error: (object: unknown, message: string) => console.error(message, object) };
  const secretsKey = randomBytes(32);
  const builder = new ArchiveBuilder({ db, storage: createLocalStorage(blobRoot), secretsKey, config: { dataDir: workDir, tsaUrl: null } }, log, {
    pollMs: 60_000,
  });
  // The platform's signer is made once per installation: made before the clock starts, as on any server that ever signed.
  const [archive] = await db.insert(notaryArchives).values({ notaryId, commissionState: 'TX', commissionNumber: '13245768-9' }).returning();
  if (!archive) throw new Error('no archive row');
  await getOrIssuePlatformSignerCredentials(db, secretsKey);
  const started = performance.now();
  const built = await builder.runOnce();
  const seconds = (performance.now() - started) / 1000;
  const [row] = await db.select().from(notaryArchives).where(eq(notaryArchives.id, archive.id));
  if (built !== 1 || row?.status !== 'ready' || row.sizeBytes === null)
    throw new Error(`the archive was not built: ${row?.status} ${row?.failureReason ?? ''}`);
  const filePath = path.join(workDir, 'archives', `${archive.id}.zip`);
  await promisify(execFile)('unzip', ['-tq', filePath], { maxBuffer: 64 * 1024 * 1024 });
  const megabytes = row.sizeBytes / megabyte;
  const rate = megabytes / seconds;
  console.log(
    `\nThe notary's archive, PGlite, ${sessions} sessions (${segmentsPerSession} segments of ${(segmentBytes / megabyte).toFixed(1)} MB and one ${pdfBytes / 1024} KB PDF each)`,
  );
  console.log(`seeded in ${seedSeconds.toFixed(1)} s; ${row.filesTotal} files, ${megabytes.toFixed(0)} MB`);
  console.log(
    `built in ${seconds.toFixed(1)} s: ${rate.toFixed(1)} MB/s (load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')})`,
  );
  reportTargets('archive', [{ name: `archive export rate, ${sessions} sessions, PGlite`, measured: rate, kind: 'min', limit: 20, unit: 'MB/s' }]);
}

try {
  await main();
} finally {
  await cleanUp();
}
