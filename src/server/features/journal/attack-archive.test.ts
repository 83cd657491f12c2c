import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '#shared/journal.ts';
import type { NotaryArchive } from '#shared/journal-archives.ts';
import type { Role } from '#shared/roles.ts';
import { auditEvents, documents, jobs, notarizedDocuments, notaryArchives, notaryJournalEntries } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

const run = promisify(execFile);

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let otherNotary: TestUser;
let admin: TestUser;
let dataDir: string;
let jobId = '';
let finalDocumentId = '';
let draftDocumentId = '';
const base = '/api/notary-log/archives';

/** A sealed job of the notary's with two documents; only the first document's journal entry is finalized. */
async function sealTwoDocuments(): Promise<void> {
  const signer = await t.createUser({ roles: ['signer'], name: 'Pat Partial' });
  await kit.saveSignature(signer);
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  jobId = job.id;
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  finalDocumentId = await kit.uploadPdf(notary, job.id);
  draftDocumentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  for (const documentId of [finalDocumentId, draftDocumentId]) {
    const fields = `/api/jobs/${job.id}/documents/${documentId}/fields`;
    const placed = await kit.call(notary, 'POST', fields, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
    expect((await kit.call(signer, 'POST', `${fields}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  }
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(notary, job.id)).status).toBe('completed');
  const drafts = (await kit.call(notary, 'GET', `/api/notary-log/drafts/${job.id}`)).json().items as JournalEntry[];
  const rows = await t.db.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.documentId, finalDocumentId));
  const first = drafts.filter((draft) => rows.some((row) => row.id === draft.id));
  expect(first).toHaveLength(1);
  const res = await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.id}`, {
    entries: first.map((draft) => ({ id: draft.id, signerAddress: '1208 Maple Avenue, Richmond, VA 23220', feeCents: 2500 })),
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function requestAndBuild(owner: TestUser): Promise<NotaryArchive> {
  const asked = await kit.call(owner, 'POST', base, {});
  expect(asked.statusCode, asked.body).toBe(201);
  await t.app.archiveBuilder.runOnce();
  const built = (await kit.call(owner, 'GET', `${base}/${(asked.json() as NotaryArchive).id}`)).json() as NotaryArchive;
  expect(built.status, built.failureReason ?? '').toBe('ready');
  return built;
}

const downloadsOf = async (archiveId: string) =>
  (await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'journal.archive_downloaded'))).filter(
    (event) => (event.data as { archiveId?: string }).archiveId === archiveId,
  ).length;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-attack-archive-'));
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', DATA_DIR: dataDir });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nina Notary' });
  otherNotary = await kit.createNotary({ name: 'Oscar Other' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  await sealTwoDocuments();
}, 240_000);

afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('attacks on the notary’s archive', () => {
  let archive: NotaryArchive;
  let zipPath = '';

  it('holds only finalized acts: a sealed document whose journal entry is still a draft stays out', async () => {
    // Names that would be path tricks if a name ever became a path in the ZIP.
    await t.db.update(documents).set({ name: '../../../etc/passwd\u202eFDP.pdf' }).where(eq(documents.id, finalDocumentId));
    await t.db.update(jobs).set({ title: '..\\..\\C:\\Windows\\evil' }).where(eq(jobs.id, jobId));
    archive = await requestAndBuild(notary);
    zipPath = path.join(dataDir, 'archives', `${archive.id}.zip`);
    const listed = (await run('zipinfo', ['-1', zipPath])).stdout.trim().split('\n');
    expect(listed.every((name) => !name.includes('..') && !name.startsWith('/') && !name.includes('\\'))).toBe(true);
    const outputs = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId));
    const finalOutput = outputs.find((output) => output.documentId === finalDocumentId);
    const draftOutput = outputs.find((output) => output.documentId === draftDocumentId);
    expect(listed).toContain(`jobs/${jobId}/documents/${finalOutput?.id}.pdf`);
    expect(listed).not.toContain(`jobs/${jobId}/documents/${draftOutput?.id}.pdf`);
    const { stdout } = await run('unzip', ['-p', zipPath, `jobs/${jobId}/job.json`]);
    expect(JSON.parse(stdout).notarizedDocuments.map((item: { documentId: string }) => item.documentId)).toEqual([finalDocumentId]);
    const manifest = JSON.parse((await run('unzip', ['-p', zipPath, 'manifest.json'])).stdout) as { files: Array<{ path: string }> };
    expect(manifest.files.map((entry) => entry.path)).not.toContain(`jobs/${jobId}/documents/${draftOutput?.id}.pdf`);
    // No key travels with the certificates.
    const everything = (await run('unzip', ['-p', zipPath], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })).stdout;
    expect(everything).not.toContain('PRIVATE KEY');
  });

  it('refuses every role but notary and administrator, anonymous callers, and another notary', async () => {
    const others: Role[] = ['signer', 'title', 'title_agent', 'witness', 'observer', 'billing', 'finance'];
    const paths = [`${base}/${archive.id}`, `${base}/${archive.id}/download`];
    for (const role of others) {
      const user = await t.createUser({ roles: [role] });
      expect((await kit.call(user, 'GET', base)).statusCode, role).toBe(403);
      expect((await kit.call(user, 'GET', `${base}?notaryId=${notary.id}`)).statusCode, role).toBe(403);
      expect((await kit.call(user, 'POST', base, { notaryId: notary.id })).statusCode, role).toBe(403);
      for (const url of paths) expect((await kit.call(user, 'GET', url)).statusCode, `${role} ${url}`).toBe(403);
      expect((await kit.call(user, 'DELETE', paths[0] ?? '')).statusCode, role).toBe(403);
    }
    for (const url of [base, ...paths]) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: paths[0] })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: base, payload: {} })).statusCode).toBe(401);
    for (const url of paths) expect((await kit.call(otherNotary, 'GET', url)).statusCode).toBe(404);
    expect((await kit.call(otherNotary, 'DELETE', paths[0] ?? '')).statusCode).toBe(404);
    // Guessed ids: a random one and a malformed one.
    expect((await kit.call(notary, 'GET', `${base}/00000000-0000-4000-8000-000000000000/download`)).statusCode).toBe(404);
    const malformed = await kit.call(notary, 'GET', `${base}/..%2F..%2Fetc%2Fpasswd/download`);
    expect(malformed.statusCode).toBe(400);
    // An administrator names someone who is no notary, or nobody.
    const signer = await t.createUser({ roles: ['signer'] });
    for (const notaryId of [signer.id, '00000000-0000-4000-8000-000000000000']) {
      expect((await kit.call(admin, 'POST', base, { notaryId })).statusCode).toBe(404);
    }
  });

  it('refuses bad input with a sentence, never a 500', async () => {
    for (const payload of [
      { commissionState: 'VA', commissionNumber: 'VA\u0000-1' },
      { commissionState: 'VA', commissionNumber: '\ud800' },
      { commissionState: 'VA', commissionNumber: 'x'.repeat(100_000) },
      { notaryId: '../../x' },
      { commissionState: ['VA'] },
    ]) {
      const res = await kit.call(notary, 'POST', base, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ message: expect.any(String) });
    }
    const wrongType = await t.app.inject({
      method: 'POST',
      url: base,
      headers: { ...(await kit.headersFor(notary)), 'content-type': 'text/plain' },
      payload: 'commissionState=VA',
    });
    expect(wrongType.statusCode).toBeGreaterThanOrEqual(400);
    expect(wrongType.statusCode).toBeLessThan(500);
  });

  it('answers absurd ranges without a 500 and serves no byte outside the file', async () => {
    const url = `${base}/${archive.id}/download`;
    const size = archive.sizeBytes ?? 0;
    const cases: Array<[string, number]> = [
      ['bytes=-0', 416],
      ['bytes=99999999999999999999999999-', 416],
      [`bytes=${size}-`, 416],
      [`bytes=${'9'.repeat(400)}-`, 416],
      ['bytes=-99999999999999999999999999', 206],
      ['bytes=0-99999999999999999999999999', 206],
      ['bytes=0-1,4-5', 200],
      ['bytes=-5--1', 200],
      ['bytes=abc', 200],
      ['items=0-1', 200],
    ];
    for (const [range, status] of cases) {
      const res = await kit.call(notary, 'GET', url, undefined, { range });
      expect(res.statusCode, range).toBe(status);
      if (status !== 416) expect(res.rawPayload.length).toBeLessThanOrEqual(size);
    }
  });

  it('records every download that delivers the start of the file, whatever Range or If-Range it was asked with', async () => {
    const url = `${base}/${archive.id}/download`;
    const size = archive.sizeBytes ?? 0;
    const asks: Array<Record<string, string>> = [
      { range: `bytes=-${size}` },
      { range: 'bytes=-99999999999' },
      { range: 'bytes=00-' },
      { range: 'bytes=5-,0-4' },
      { range: 'bytes=5-', 'if-range': '"not-this-file"' },
      { range: 'bytes=5-', 'if-range': 'Sat, 28 Nov 2026 00:00:00 GMT' },
    ];
    for (const headers of asks) {
      const before = await downloadsOf(archive.id);
      const res = await kit.call(notary, 'GET', url, undefined, headers);
      expect([200, 206]).toContain(res.statusCode);
      expect(res.rawPayload.length, JSON.stringify(headers)).toBe(size);
      expect(await downloadsOf(archive.id), JSON.stringify(headers)).toBe(before + 1);
    }
    // A HEAD is no download, and leaves the file closed.
    const headBefore = await downloadsOf(archive.id);
    const head = await t.app.inject({ method: 'HEAD', url, headers: await kit.headersFor(notary) });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(size));
    expect(await downloadsOf(archive.id)).toBe(headBefore);
    // A resumed piece is still not a new download.
    const before = await downloadsOf(archive.id);
    expect((await kit.call(notary, 'GET', url, undefined, { range: 'bytes=5-', 'if-range': `"${archive.sha256}"` })).statusCode).toBe(206);
    expect(await downloadsOf(archive.id)).toBe(before);
  });

  it('asks for one archive at a time even when five requests race', async () => {
    // The five race each other, not the builder: the first request wakes it, and on a loaded machine
    // it finished that archive before the last request was checked, which then rightly queued a
    // second (found by the PostgreSQL suite: 201, 201, 409, 409, 409). The builder is held meanwhile.
    await t.app.archiveBuilder.stop();
    let answers: Awaited<ReturnType<typeof kit.call>>[];
    try {
      answers = await Promise.all(Array.from({ length: 5 }, () => kit.call(notary, 'POST', base, {})));
    } finally {
      t.app.archiveBuilder.start();
    }
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
    const queued = answers.find((res) => res.statusCode === 201)?.json() as NotaryArchive;
    // Deleted while queued, then the builder runs: nothing is built, no file is left.
    const [deleted] = await Promise.all([kit.call(notary, 'DELETE', `${base}/${queued.id}`), t.app.archiveBuilder.runOnce()]);
    expect([200, 409]).toContain(deleted.statusCode);
    if (deleted.statusCode === 409) {
      await t.app.archiveBuilder.runOnce();
      expect((await kit.call(notary, 'DELETE', `${base}/${queued.id}`)).statusCode).toBe(200);
    }
    expect(fs.readdirSync(path.join(dataDir, 'archives')).filter((name) => name.startsWith(queued.id))).toEqual([]);
  });

  it('serves whole bytes or a plain refusal when the archive is deleted while it is downloaded', async () => {
    // The race is a matter of timing: a few rounds, each a new archive.
    for (let round = 0; round < 6; round += 1) {
      const built = await requestAndBuild(notary);
      const url = `${base}/${built.id}/download`;
      const [download, deleted] = await Promise.all([kit.call(notary, 'GET', url), kit.call(notary, 'DELETE', `${base}/${built.id}`)]);
      expect(deleted.statusCode).toBe(200);
      expect([200, 404], download.body.slice(0, 200)).toContain(download.statusCode);
      if (download.statusCode === 200) expect(download.rawPayload.length).toBe(built.sizeBytes);
    }
    expect(fs.readdirSync(path.join(dataDir, 'archives')).filter((name) => name.endsWith('.zip'))).toEqual([`${archive.id}.zip`]);
  });

  it('does not serve an archive past its time, even before the clean-up has run', async () => {
    const built = await requestAndBuild(notary);
    await t.db
      .update(notaryArchives)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(and(eq(notaryArchives.id, built.id), eq(notaryArchives.status, 'ready')));
    const res = await kit.call(notary, 'GET', `${base}/${built.id}/download`);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ error: 'link_expired', message: expect.stringContaining('expired') });
    const shown = (await kit.call(notary, 'GET', `${base}/${built.id}`)).json() as NotaryArchive;
    expect(shown.downloadUrl).toBeNull();
  });
});
