/**
 * The offline verifier's rate (decision 060): MB/s of an archive checked from a file on
 * disk, as `npx open-ron-verify` reads it (the browser reads the same way through File.slice).
 *
 *   node --import tsx bench/verify.bench.ts
 *   BENCH_SESSIONS=40 BENCH_SEGMENTS=3 BENCH_SEGMENT_MB=1.5 node --import tsx bench/verify.bench.ts
 *
 * The archive: the agreed format, built as the verifier's tests build it (test/archive-fixtures.ts)
 * on a migrated in-memory PGlite: the platform CA, a notary certificate, real sealed PDFs (PAdES
 * B-B, B-T through a local OpenSSL TSA, B-LT with the CA's OCSP answer in a DSS) given to each
 * session in turn, a real audit trail per session, BENCH_SEGMENTS recording segments of
 * BENCH_SEGMENT_MB random bytes each per session with their segments.json, a signed manifest.
 * Only verifyArchive is timed. Target: at least 20 MB/s (a 2 GB archive in under two minutes).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifyArchive, type RandomAccessSource } from '#shared/archive-verify/index.ts';
import { createDatabase } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { createArchiveScenario, packArchive, startTestTsa, type ArchiveFile } from '../test/archive-fixtures.ts';
import { reportTargets } from './targets.ts';

const sessions = Number(process.env.BENCH_SESSIONS ?? 40);
const segmentsPerSession = Number(process.env.BENCH_SEGMENTS ?? 3);
const segmentBytes = Math.round(Number(process.env.BENCH_SEGMENT_MB ?? 1.5) * 1024 * 1024);
const megabyte = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-bench-verify-'));
  const database = await createDatabase({ databaseUrl: null, dataDir: null });
  const tsa = await startTestTsa(workDir);
  try {
    await database.migrate();
    const [user] = await database.db
      .insert(users)
      .values({ email: 'nora.bench@example.test', name: 'Nora Notary', roles: ['notary'] })
      .returning({ id: users.id });
    if (!user) throw new Error('no user');
    const identity = {
      userId: user.id,
      name: 'Nora Notary',
      email: 'nora.bench@example.test',
      commissionState: 'TX',
      commissionNumber: '13245768-9',
      commissionExpiresOn: '2030-06-30',
    };
    const scenario = await createArchiveScenario(database.db, randomBytes(32), identity, workDir, tsa.url);
    const shared = scenario.files.filter((file) => !file.path.startsWith('jobs/'));
    const pdfs = scenario.files.filter((file) => file.kind === 'notarized_document');
    const audit = scenario.files.find((file) => file.path === scenario.paths.jobAudit) as ArchiveFile;
    const files: ArchiveFile[] = [...shared.filter((file) => file.kind !== 'account_audit')];
    for (let session = 0; session < sessions; session++) {
      const jobId = randomUUID();
      const folder = `jobs/${jobId}`;
      const pdf = pdfs[session % pdfs.length] as ArchiveFile;
      files.push({ path: `${folder}/job.json`, kind: 'job', jobId, bytes: Buffer.from(JSON.stringify({ id: jobId, title: `Session ${session + 1}` })) });
      files.push({ path: `${folder}/audit.json`, kind: 'audit_trail', jobId, bytes: audit.bytes });
      files.push({ path: `${folder}/documents/${randomUUID()}.pdf`, kind: 'notarized_document', jobId, bytes: pdf.bytes });
      const segments = Array.from({ length: segmentsPerSession }, () => ({ id: randomUUID(), bytes: randomBytes(segmentBytes) }));
      for (const segment of segments) files.push({ path: `${folder}/recordings/${segment.id}.webm`, kind: 'recording_segment', jobId, bytes: segment.bytes });
      const index = segments.map((segment) => ({
        id: segment.id,
        sizeBytes: segment.bytes.length,
        sha256: sha256(segment.bytes),
        path: `${folder}/recordings/${segment.id}.webm`,
      }));
      files.push({ path: `${folder}/recordings/segments.json`, kind: 'recording_index', jobId, bytes: Buffer.from(JSON.stringify(index)) });
    }
    files.push(...shared.filter((file) => file.kind === 'account_audit'));
    const { zip } = await packArchive(files, scenario.notary, scenario.signer);
    const archivePath = path.join(workDir, 'archive.zip');
    fs.writeFileSync(archivePath, zip);
    const handle = await fs.promises.open(archivePath, 'r');
    const source: RandomAccessSource = {
      size: zip.length,
      read: async (offset, length) => {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, zip.length - offset)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        return new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
      },
    };
    const started = performance.now();
    const report = await verifyArchive(source, 'archive.zip');
    const seconds = (performance.now() - started) / 1000;
    await handle.close();
    if (!report.isValid) throw new Error(`the generated archive did not pass: ${report.findings.find((finding) => !finding.ok)?.sentence}`);
    const rate = zip.length / megabyte / seconds;
    console.log(
      `verified ${files.length + 2} files, ${(zip.length / megabyte).toFixed(0)} MB (${sessions} sessions, ${sessions} signed PDFs, ${sessions * segmentsPerSession} segments) in ${seconds.toFixed(2)} s: ${rate.toFixed(1)} MB/s`,
    );
    reportTargets('verify', [{ name: `archive verification rate, ${sessions} sessions, from disk`, measured: rate, kind: 'min', limit: 20, unit: 'MB/s' }]);
  } finally {
    await tsa.close();
    await database.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
