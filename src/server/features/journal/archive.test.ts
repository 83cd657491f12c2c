import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '#shared/journal.ts';
import type { NotaryArchive, NotaryArchiveList } from '#shared/journal-archives.ts';
import { auditEvents, notarizedDocuments, notaryArchives } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { ArchiveInterrupted, buildNotaryArchive } from './archive-build.ts';
import { recordMedia } from '#test/live-session.ts';

const run = promisify(execFile);

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let otherNotary: TestUser;
let admin: TestUser;
let dataDir: string;
let workDir: string;
const finalized: Array<{ jobId: string; entryIds: string[] }> = [];
let draftJobId = '';
let otherJobId = '';

/** A recorded, filled and sealed job of `owner`'s with one signer (as journal.test.ts makes them); returns its job id. */
async function sealedJob(owner: TestUser, signerName: string): Promise<string> {
  const signer = await t.createUser({ roles: ['signer'], name: signerName });
  await kit.saveSignature(signer);
  const job = await kit.createJob(owner, { notaryId: owner.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(owner, job.id);
  await kit.moveJob(owner, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(owner, job.id, [signer]);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(owner, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(owner, job.id)).status).toBe('completed');
  return job.id;
}

async function finalize(owner: TestUser, jobId: string): Promise<string[]> {
  const drafts = (await kit.call(owner, 'GET', `/api/notary-log/drafts/${jobId}`)).json().items as JournalEntry[];
  const res = await kit.call(owner, 'POST', `/api/notary-log/finalize/${jobId}`, {
    entries: drafts.map((draft) => ({ id: draft.id, signerAddress: '1208 Maple Avenue, Richmond, VA 23220', feeCents: 2500 })),
  });
  expect(res.statusCode, res.body).toBe(200);
  return drafts.map((draft) => draft.id);
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-archive-data-'));
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-archive-test-'));
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', DATA_DIR: dataDir });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  otherNotary = await kit.createNotary({ name: 'Otto Other' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  for (const name of ['Sam Signer', 'Sue Signer']) {
    const jobId = await sealedJob(notary, name);
    finalized.push({ jobId, entryIds: await finalize(notary, jobId) });
  }
  // Sealed, but its entry is still a draft: not in the journal yet, so not in the archive.
  draftJobId = await sealedJob(notary, 'Dan Draft');
  otherJobId = await sealedJob(otherNotary, 'Olga Other');
  await finalize(otherNotary, otherJobId);
}, 240_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(workDir, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The same canonical JSON and hash as audit.service.ts computeHash: what an offline verifier recomputes. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

interface AuditJson {
  scope: string;
  isExcerpt?: boolean;
  events: Array<Record<string, unknown> & { hash: string; previousHash: string | null }>;
}

function checkChain(trail: AuditJson, { isLinked }: { isLinked: boolean }) {
  let previous: string | null = null;
  for (const event of trail.events) {
    const { id, scope, jobId, actorId, action, ipAddress, userAgent, data, createdAt, previousHash } = event;
    const hash = sha256(canonicalJson({ id, scope, jobId, actorId, action, ipAddress, userAgent, data, createdAt, previousHash }));
    expect(hash, `event ${String(id)} of ${trail.scope}`).toBe(event.hash);
    if (isLinked) expect(previousHash).toBe(previous);
    previous = event.hash;
  }
}

async function buildAndWait(archiveId: string): Promise<NotaryArchive> {
  await t.app.archiveBuilder.runOnce();
  const res = await kit.call(notary, 'GET', `/api/notary-log/archives/${archiveId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as NotaryArchive;
}

describe('the notary’s archive of a commission', () => {
  let archive: NotaryArchive;
  let zipBytes: Buffer;

  it('is asked for once at a time: a second request while one is building answers 409 with a sentence', async () => {
    const [first, second] = await Promise.all([
      kit.call(notary, 'POST', '/api/notary-log/archives', {}),
      kit.call(notary, 'POST', '/api/notary-log/archives', {}),
    ]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses).toEqual([201, 409]);
    const refused = first.statusCode === 409 ? first : second;
    expect(refused.json()).toMatchObject({ error: 'conflict', message: expect.stringContaining('being built already') });
    archive = (first.statusCode === 201 ? first : second).json() as NotaryArchive;
    expect(archive.commissionState).toBe('VA');
    // Who asked, for whom: in the account trail.
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'journal.archive_requested'), eq(auditEvents.actorId, notary.id)));
    expect(event).toMatchObject({ scope: 'account', data: { notaryId: notary.id, archiveId: archive.id, isOnBehalf: false } });
  });

  it('is built in the background into a ZIP whose manifest names every file with its SHA-256, and is signed by the platform', async () => {
    archive = await buildAndWait(archive.id);
    expect(archive).toMatchObject({ status: 'ready', failureReason: null, downloadUrl: `/api/notary-log/archives/${archive.id}/download` });
    expect(archive.filesDone).toBe(archive.filesTotal);
    expect(archive.bytesDone).toBe(archive.bytesTotal);
    expect(Date.parse(archive.expiresAt ?? '') - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);

    const res = await kit.call(notary, 'GET', `/api/notary-log/archives/${archive.id}/download`);
    expect(res.statusCode).toBe(200);
    zipBytes = res.rawPayload;
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(Number(res.headers['content-length'])).toBe(zipBytes.length);
    expect(res.headers.etag).toBe(`"${archive.sha256}"`);
    expect(sha256(zipBytes)).toBe(archive.sha256);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="open-ron-archive-VA-VA-[\w-]+-\d{4}-\d{2}-\d{2}-\d{4}\.zip"$/);

    const zipPath = path.join(workDir, 'archive.zip');
    fs.writeFileSync(zipPath, zipBytes);
    await run('unzip', ['-t', '-q', zipPath]);
    const listed = (await run('zipinfo', ['-1', zipPath])).stdout.trim().split('\n');
    const out = path.join(workDir, 'unzipped');
    await run('unzip', ['-q', zipPath, '-d', out]);
    const read = (name: string) => fs.readFileSync(path.join(out, name));
    const manifest = JSON.parse(read('manifest.json').toString('utf8')) as {
      format: string;
      notary: { id: string; commissionState: string };
      counts: Record<string, number>;
      files: Array<{ path: string; kind: string; sha256: string; sizeBytes: number; recordedAt: string; jobId: string | null; title: string }>;
    };
    expect(manifest.format).toBe('open-ron-archive/1');
    expect(manifest.notary).toMatchObject({ id: notary.id, commissionState: 'VA' });
    expect(manifest.counts).toEqual({ journalEntries: 2, jobs: 2, documents: 2, recordingSegments: expect.any(Number) });
    // Every entry but the manifest and its signature is listed, and nothing else; the manifest comes last.
    expect([...listed].sort()).toEqual([...manifest.files.map((file) => file.path), 'manifest.json', 'manifest.json.p7s'].sort());
    expect(listed.slice(-2)).toEqual(['manifest.json', 'manifest.json.p7s']);
    expect(listed[0]).toBe('README.txt');
    for (const file of manifest.files) {
      expect(file.path).toMatch(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/);
      const bytes = read(file.path);
      expect(sha256(bytes), file.path).toBe(file.sha256);
      expect(bytes.length, file.path).toBe(file.sizeBytes);
      expect(Number.isNaN(Date.parse(file.recordedAt))).toBe(false);
    }
    const kinds = new Set(manifest.files.map((file) => file.kind));
    for (const kind of [
      'readme',
      'certificate',
      'journal',
      'job',
      'audit_trail',
      'notarized_document',
      'recording_segment',
      'recording_index',
      'account_audit',
    ]) {
      expect(kinds, kind).toContain(kind);
    }

    // The signature verifies against the CA in the archive.
    await run('openssl', [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      path.join(out, 'manifest.json.p7s'),
      '-content',
      path.join(out, 'manifest.json'),
      '-CAfile',
      path.join(out, 'certificates/platform-ca.pem'),
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ]);

    // Only this notary's finalized entries and acts: not the draft, not the other notary's.
    const entries = JSON.parse(read('journal/entries.json').toString('utf8')) as { entries: Array<{ id: string; jobId: string; status: string }> };
    expect(entries.entries.map((entry) => entry.id).sort()).toEqual(finalized.flatMap((act) => act.entryIds).sort());
    expect(entries.entries.every((entry) => entry.status === 'final')).toBe(true);
    const jobDirectories = fs.readdirSync(path.join(out, 'jobs')).sort();
    expect(jobDirectories).toEqual(finalized.map((act) => act.jobId).sort());
    expect(jobDirectories).not.toContain(draftJobId);
    expect(jobDirectories).not.toContain(otherJobId);
    expect(read('journal/journal.csv').toString('utf8').split('\r\n').filter(Boolean)).toHaveLength(3);

    for (const { jobId } of finalized) {
      const [output] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId));
      expect(sha256(read(`jobs/${jobId}/documents/${output?.id}.pdf`))).toBe(output?.sha256);
      const job = JSON.parse(read(`jobs/${jobId}/job.json`).toString('utf8')) as { participants: Array<{ name: string; role: string }> };
      expect(job.participants.map((person) => person.role)).toEqual(['signer']);
      checkChain(JSON.parse(read(`jobs/${jobId}/audit.json`).toString('utf8')) as AuditJson, { isLinked: true });
      const segments = JSON.parse(read(`jobs/${jobId}/recordings/segments.json`).toString('utf8')) as Array<{
        sha256: string;
        path: string;
        participantRole: string;
      }>;
      expect(segments.length).toBeGreaterThan(0);
      expect(new Set(segments.map((segment) => segment.participantRole))).toEqual(new Set(['signer', 'notary']));
      for (const segment of segments) {
        expect(sha256(read(segment.path))).toBe(segment.sha256);
        expect(manifest.files.find((file) => file.path === segment.path)?.sha256).toBe(segment.sha256);
      }
    }
    const account = JSON.parse(read('account/audit.json').toString('utf8')) as AuditJson;
    expect(account).toMatchObject({ scope: 'account', isExcerpt: true });
    expect(account.events.some((event) => event.action === 'journal.archive_requested')).toBe(true);
    checkChain(account, { isLinked: false });
    // The certificate that sealed the acts is there, with its chain.
    const certificates = manifest.files.filter((file) => file.kind === 'certificate' && file.path !== 'certificates/platform-ca.pem');
    expect(certificates.length).toBeGreaterThan(0);
    expect(
      read(certificates[0]?.path ?? '')
        .toString('utf8')
        .match(/BEGIN CERTIFICATE/g),
    ).toHaveLength(2);
  });

  it('resumes a download cut in the middle with Range and If-Range, giving the same bytes', async () => {
    const url = `/api/notary-log/archives/${archive.id}/download`;
    const half = Math.floor(zipBytes.length / 2);
    const etag = `"${archive.sha256}"`;
    const first = await kit.call(notary, 'GET', url, undefined, { range: `bytes=0-${half - 1}` });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-${half - 1}/${zipBytes.length}`);
    expect(first.rawPayload.length).toBe(half);
    const rest = await kit.call(notary, 'GET', url, undefined, { range: `bytes=${half}-`, 'if-range': etag });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes ${half}-${zipBytes.length - 1}/${zipBytes.length}`);
    expect(Number(rest.headers['content-length'])).toBe(zipBytes.length - half);
    expect(sha256(Buffer.concat([first.rawPayload, rest.rawPayload]))).toBe(archive.sha256);
    // Each download is on record once, when it starts: the full one and the cut one, not the resumed piece.
    const downloads = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'journal.archive_downloaded'), eq(auditEvents.actorId, notary.id)));
    expect(downloads).toHaveLength(2);
    expect(downloads[0]?.data).toMatchObject({ archiveId: archive.id, notaryId: notary.id });
    // Another file's validator: the whole file, not a piece of this one.
    const changed = await kit.call(notary, 'GET', url, undefined, { range: `bytes=${half}-`, 'if-range': '"0000"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.rawPayload.length).toBe(zipBytes.length);
    const outside = await kit.call(notary, 'GET', url, undefined, { range: `bytes=${zipBytes.length + 10}-` });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${zipBytes.length}`);
    expect(outside.json()).toMatchObject({ error: 'range_not_satisfiable', message: expect.any(String) });
  });

  it('is refused to everyone but the notary and administrators, another notary too', async () => {
    const url = `/api/notary-log/archives/${archive.id}`;
    for (const path of [url, `${url}/download`]) {
      const res = await kit.call(otherNotary, 'GET', path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found', message: expect.any(String) });
    }
    expect((await kit.call(otherNotary, 'DELETE', url)).statusCode).toBe(404);
    expect((await kit.call(otherNotary, 'GET', `/api/notary-log/archives?notaryId=${notary.id}`)).statusCode).toBe(403);
    expect((await kit.call(otherNotary, 'POST', '/api/notary-log/archives', { notaryId: notary.id })).statusCode).toBe(403);
    const signer = await t.createUser({ roles: ['signer'] });
    expect((await kit.call(signer, 'GET', url)).statusCode).toBe(403);
    expect((await kit.call(signer, 'GET', '/api/notary-log/archives')).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `${url}/download` })).statusCode).toBe(401);
    // The other notary's own list holds none of Nora's archives.
    const own = (await kit.call(otherNotary, 'GET', '/api/notary-log/archives')).json() as NotaryArchiveList;
    expect(own.items).toEqual([]);
  });

  it('lets an administrator export a notary’s records on their behalf, on record', async () => {
    const list = await kit.call(admin, 'GET', `/api/notary-log/archives?notaryId=${notary.id}`);
    expect(list.statusCode, list.body).toBe(200);
    const { commissions, items } = list.json() as NotaryArchiveList;
    expect(items.map((item) => item.id)).toContain(archive.id);
    expect(commissions).toEqual([expect.objectContaining({ state: 'VA', isCurrent: true, entryCount: 2 })]);
    const asked = await kit.call(admin, 'POST', '/api/notary-log/archives', { notaryId: notary.id });
    expect(asked.statusCode, asked.body).toBe(201);
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'journal.archive_requested'), eq(auditEvents.actorId, admin.id)));
    expect(event?.data).toMatchObject({ notaryId: notary.id, userId: notary.id, isOnBehalf: true });
    const built = await buildAndWait((asked.json() as NotaryArchive).id);
    expect(built.status).toBe('ready');
    const download = await kit.call(admin, 'GET', `/api/notary-log/archives/${built.id}/download`);
    expect(download.statusCode).toBe(200);
    expect((await kit.call(notary, 'DELETE', `/api/notary-log/archives/${built.id}`)).statusCode).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'archives', `${built.id}.zip`))).toBe(false);
    expect((await kit.call(notary, 'GET', `/api/notary-log/archives/${built.id}`)).statusCode).toBe(404);
  });

  it('asks for a commission its journal holds entries of, and refuses another', async () => {
    const res = await kit.call(notary, 'POST', '/api/notary-log/archives', { commissionState: 'TX', commissionNumber: '12345' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toContain('No journal entry was made under that commission');
  });

  it('fails with a sentence and leaves no file when a stored file cannot be read', async () => {
    const [output] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, otherJobId));
    const asked = await kit.call(otherNotary, 'POST', '/api/notary-log/archives', {});
    expect(asked.statusCode, asked.body).toBe(201);
    // The sealed PDF's blob goes missing before the builder reads it.
    const key = output?.storageKey ?? '';
    fs.rmSync(path.join(t.blobRoot, key.slice(0, 2), key.slice(2, 4), key));
    await t.app.archiveBuilder.runOnce();
    const id = (asked.json() as NotaryArchive).id;
    const failed = (await kit.call(otherNotary, 'GET', `/api/notary-log/archives/${id}`)).json() as NotaryArchive;
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toMatch(/^The sealed document “deed\.pdf” of “Deed of trust” could not be read from storage\./);
    expect(fs.readdirSync(path.join(dataDir, 'archives')).filter((name) => name.startsWith(id))).toEqual([]);
    expect((await kit.call(otherNotary, 'GET', `/api/notary-log/archives/${id}/download`)).statusCode).toBe(409);
  });

  it('marks a build whose server stopped as failed once its lease lapses, and never deletes one being built', async () => {
    const [stalled] = await t.db
      .insert(notaryArchives)
      .values({
        notaryId: otherNotary.id,
        commissionState: 'VA',
        commissionNumber: 'VA-1',
        status: 'building',
        startedAt: new Date(Date.now() - 3600_000),
        expiresAt: new Date(Date.now() - 60_000),
      })
      .returning();
    const url = `/api/notary-log/archives/${stalled?.id}`;
    const refused = await kit.call(otherNotary, 'DELETE', url);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain('being built');
    // While it counts as building, no second archive is queued for that notary.
    expect((await kit.call(otherNotary, 'POST', '/api/notary-log/archives', {})).statusCode).toBe(409);
    await t.app.archiveBuilder.cleanUp(new Date());
    const failed = (await kit.call(otherNotary, 'GET', url)).json() as NotaryArchive;
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'The server stopped while it built this archive. Ask for it again.' });
    expect((await kit.call(otherNotary, 'DELETE', url)).statusCode).toBe(200);
  });

  it('stops between two files when the server stops, leaving no partial file', async () => {
    const [row] = await t.db
      .insert(notaryArchives)
      .values({ notaryId: notary.id, commissionState: 'VA', commissionNumber: archive.commissionNumber, status: 'building', startedAt: new Date() })
      .returning();
    if (!row) throw new Error('no archive row');
    let checks = 0;
    const deps = { db: t.db, storage: createLocalStorage(t.blobRoot), secretsKey: t.secretsKey, config: { dataDir, tsaUrl: null } };
    await expect(buildNotaryArchive(deps, row, { isStopping: () => ++checks > 5 })).rejects.toBeInstanceOf(ArchiveInterrupted);
    expect(fs.readdirSync(path.join(dataDir, 'archives')).filter((name) => name.startsWith(row.id))).toEqual([]);
    await t.db.delete(notaryArchives).where(eq(notaryArchives.id, row.id));
  });

  it('expires a finished archive after its time: the file goes, the row says so', async () => {
    const now = new Date(Date.now() + 8 * 24 * 3600_000);
    expect(await t.app.archiveBuilder.cleanUp(now)).toBeGreaterThan(0);
    const expired = (await kit.call(notary, 'GET', `/api/notary-log/archives/${archive.id}`)).json() as NotaryArchive;
    expect(expired).toMatchObject({ status: 'expired', downloadUrl: null });
    expect(fs.existsSync(path.join(dataDir, 'archives', `${archive.id}.zip`))).toBe(false);
    const gone = await kit.call(notary, 'GET', `/api/notary-log/archives/${archive.id}/download`);
    expect(gone.statusCode).toBe(410);
  });
});
