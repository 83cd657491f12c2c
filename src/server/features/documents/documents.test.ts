import { createHash, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentMessages, type JobDocument } from '#shared/documents.ts';
import type { Job } from '#shared/jobs.ts';
import { emailOutbox } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let agent: TestUser;
let notary: TestUser;
let onePage: Buffer;
let twoPages: Buffer;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t);
  [onePage, twoPages] = [await makePdf(1, 'Deed'), await makePdf(2, 'Rider')];
});
afterAll(async () => t?.close());

const headersFor = (user: TestUser) => t.headersFor(user);

async function call(
  user: TestUser,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.app.inject({ method, url, headers: { ...(await headersFor(user)), ...headers }, ...(payload ? { payload } : {}) });
}

async function createJob(
  signers: Array<{ name: string; email: string }> = [{ name: 'Sam Signer', email: `sam-${randomUUID().slice(0, 8)}@example.test` }],
): Promise<Job> {
  const res = await call(agent, 'POST', '/api/jobs', { title: 'Closing', notarizationType: 'acknowledgment', signers, notaryId: notary.id });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function upload(jobId: string, files: Array<{ name: string; content: Buffer }>, fields: Record<string, string> = {}, url = 'documents', user = agent) {
  const body = buildMultipart(files, fields);
  return t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/${url}`, headers: { ...(await headersFor(user)), ...body.headers }, payload: body.payload });
}

async function uploadOne(jobId: string, name = 'deed.pdf', content = onePage): Promise<JobDocument> {
  const res = await upload(jobId, [{ name, content }]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().items[0] as JobDocument;
}

async function listDocuments(jobId: string, user = agent): Promise<JobDocument[]> {
  const res = await call(user, 'GET', `/api/jobs/${jobId}/documents`);
  expect(res.statusCode).toBe(200);
  return res.json().items;
}

async function auditTrail(jobId: string): Promise<Array<{ action: string; data: Record<string, unknown> }>> {
  return (await call(agent, 'GET', `/api/jobs/${jobId}/audit`)).json().events;
}

async function moveTo(job: Job, statuses: string[], user = agent) {
  for (const status of statuses) {
    const current = (await call(user, 'GET', `/api/jobs/${job.id}`)).json() as Job;
    expect((await call(user, 'PATCH', `/api/jobs/${job.id}`, { status, version: current.version })).statusCode).toBe(200);
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('uploading documents', () => {
  it('stores a PDF with its page count, size and hash, and records the upload', async () => {
    const job = await createJob();
    expect(await listDocuments(job.id)).toEqual([]);
    const res = await upload(job.id, [{ name: 'rider.pdf', content: twoPages }], { tag: 'reference' });
    expect(res.statusCode).toBe(201);
    const [document] = res.json().items as JobDocument[];
    expect(document).toEqual({
      id: expect.any(String),
      jobId: job.id,
      name: 'rider.pdf',
      tag: 'reference',
      position: 0,
      pageCount: 2,
      sizeBytes: twoPages.length,
      sha256: sha256(twoPages),
      version: 1,
      status: 'uploaded',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await listDocuments(job.id)).toEqual([document]);
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({
      action: 'document.uploaded',
      data: { documentId: document?.id, name: 'rider.pdf', sha256: sha256(twoPages), pageCount: 2, sizeBytes: twoPages.length, tag: 'reference' },
    });
  });

  it('takes a tag sent after the file, and keeps only the file’s own name', async () => {
    const job = await createJob();
    const body = buildMultipart([{ name: 'C:\\Users\\me\\Desktop\\deed.pdf', content: onePage }], { tag: 'identification' }, { fieldsLast: true });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...(await headersFor(agent)), ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({ name: 'deed.pdf', tag: 'identification' });
  });

  it('refuses an unknown tag and stores nothing', async () => {
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'deed.pdf', content: onePage }], { tag: 'secret' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Choose a document tag.' });
    expect(await listDocuments(job.id)).toEqual([]);
  });

  it('answers 415 to a JSON body on the single upload', async () => {
    const job = await createJob();
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/documents`, { name: 'deed.pdf' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error: 'unsupported_media_type', message: expect.stringContaining('multipart/form-data') });
  });

  it('adds a batch after the documents already there, in the order sent', async () => {
    const job = await createJob();
    await uploadOne(job.id, 'first.pdf');
    const res = await upload(
      job.id,
      [
        { name: 'second.pdf', content: twoPages },
        { name: 'third.pdf', content: onePage },
      ],
      {},
      'documents/batch',
    );
    expect(res.statusCode).toBe(201);
    expect(res.json().items.map((item: JobDocument) => [item.name, item.position, item.tag])).toEqual([
      ['second.pdf', 1, 'signing'],
      ['third.pdf', 2, 'signing'],
    ]);
    expect((await listDocuments(job.id)).map((item) => item.name)).toEqual(['first.pdf', 'second.pdf', 'third.pdf']);
  });

  it('gives simultaneous uploads to one job distinct positions', async () => {
    const job = await createJob();
    const results = await Promise.all(['a.pdf', 'b.pdf', 'c.pdf'].map((name) => upload(job.id, [{ name, content: onePage }])));
    expect(results.map((res) => res.statusCode)).toEqual([201, 201, 201]);
    expect((await listDocuments(job.id)).map((item) => item.position)).toEqual([0, 1, 2]);
  });

  it('answers a batch without files with 400 no_file, whether or not it is multipart', async () => {
    const job = await createJob();
    const json = await call(agent, 'POST', `/api/jobs/${job.id}/documents/batch`, { files: [] });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual({ error: 'no_file', message: documentMessages.noFiles });
    const fieldsOnly = await upload(job.id, [], { tag: 'signing' }, 'documents/batch');
    expect(fieldsOnly.statusCode).toBe(400);
    expect(fieldsOnly.json()).toEqual({ error: 'no_file', message: documentMessages.noFiles });
  });
});

describe('PATCH /api/jobs/:id/documents/reorder', () => {
  it('puts the documents in the order given', async () => {
    const job = await createJob();
    const [a, b, c] = [await uploadOne(job.id, 'a.pdf'), await uploadOne(job.id, 'b.pdf'), await uploadOne(job.id, 'c.pdf')];
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/reorder`, { order: [c.id, a.id, b.id] });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((item: JobDocument) => [item.name, item.position])).toEqual([
      ['c.pdf', 0],
      ['a.pdf', 1],
      ['b.pdf', 2],
    ]);
    expect((await listDocuments(job.id)).map((item) => item.name)).toEqual(['c.pdf', 'a.pdf', 'b.pdf']);
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({ action: 'documents.reordered', data: { order: [c.id, a.id, b.id] } });
  });

  it('refuses an order that does not list every document exactly once, and keeps the old one', async () => {
    const job = await createJob();
    const [a, b] = [await uploadOne(job.id, 'a.pdf'), await uploadOne(job.id, 'b.pdf')];
    const foreign = await uploadOne((await createJob()).id, 'foreign.pdf');
    for (const order of [[a.id], [a.id, a.id], [a.id, foreign.id], [a.id, b.id, foreign.id]]) {
      const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/reorder`, { order });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'bad_request', message: 'The order must list every document of the job exactly once.', detail: { expected: 2 } });
    }
    const empty = await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/reorder`, { order: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'validation_failed', message: 'Send the new order of the documents.' });
    expect((await listDocuments(job.id)).map((item) => item.name)).toEqual(['a.pdf', 'b.pdf']);
  });
});

describe('PATCH /api/jobs/:id/documents/:docId', () => {
  it('renames and retags a document at the version the client saw, and answers the new ETag', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const res = await call(
      agent,
      'PATCH',
      `/api/jobs/${job.id}/documents/${document.id}`,
      { name: 'Deed (signed copy).pdf', tag: 'supporting', clientSnapshotVersion: 1 },
      { 'if-match': '"1"' },
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.json()).toMatchObject({ id: document.id, name: 'Deed (signed copy).pdf', tag: 'supporting', version: 2 });
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({
      action: 'document.updated',
      data: { documentId: document.id, changes: { name: 'Deed (signed copy).pdf', tag: 'supporting' }, version: 2 },
    });
    const weak = await call(
      agent,
      'PATCH',
      `/api/jobs/${job.id}/documents/${document.id}`,
      { tag: 'signing', clientSnapshotVersion: 2 },
      { 'if-match': 'W/"2"' },
    );
    expect(weak.statusCode).toBe(200);
    expect(weak.json()).toMatchObject({ tag: 'signing', version: 3 });
  });

  it('answers 428 without an If-Match header and changes nothing', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/${document.id}`, { name: 'No header.pdf', clientSnapshotVersion: 1 });
    expect(res.statusCode).toBe(428);
    expect(res.json()).toEqual({ error: 'precondition_required', message: 'Send the If-Match header with the document version you edited.' });
    expect(await listDocuments(job.id)).toEqual([document]);
  });

  it.each([
    ['the If-Match header', '"1"', 2],
    ['the client snapshot version', '"2"', 1],
  ])('answers 412 when %s is stale, and changes nothing', async (_label, ifMatch, clientSnapshotVersion) => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const first = await call(
      agent,
      'PATCH',
      `/api/jobs/${job.id}/documents/${document.id}`,
      { name: 'First edit.pdf', clientSnapshotVersion: 1 },
      { 'if-match': '"1"' },
    );
    expect(first.statusCode).toBe(200);
    const eventCount = (await auditTrail(job.id)).length;

    const stale = await call(
      agent,
      'PATCH',
      `/api/jobs/${job.id}/documents/${document.id}`,
      { name: 'Lost edit.pdf', clientSnapshotVersion },
      { 'if-match': ifMatch },
    );
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toEqual({ error: 'stale_version', message: documentMessages.stale, detail: { currentVersion: 2 } });
    expect(await listDocuments(job.id)).toEqual([first.json()]);
    expect(await auditTrail(job.id)).toHaveLength(eventCount);
  });

  it('refuses an edit that changes nothing, and answers 404 for a document of another job', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const empty = await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/${document.id}`, { clientSnapshotVersion: 1 }, { 'if-match': '"1"' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'validation_failed', message: 'Nothing to change.' });
    const otherJob = await createJob();
    const foreign = await call(
      agent,
      'PATCH',
      `/api/jobs/${otherJob.id}/documents/${document.id}`,
      { name: 'x.pdf', clientSnapshotVersion: 1 },
      { 'if-match': '"1"' },
    );
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'not_found', message: 'No document with that id on this job.' });
  });
});

describe('DELETE /api/jobs/:id/documents/:docId', () => {
  it('needs the current version in If-Match', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const missing = await call(agent, 'DELETE', `/api/jobs/${job.id}/documents/${document.id}`);
    expect(missing.statusCode).toBe(428);
    const stale = await call(agent, 'DELETE', `/api/jobs/${job.id}/documents/${document.id}`, undefined, { 'if-match': '"7"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ error: 'stale_version', detail: { currentVersion: 1 } });
    expect(await listDocuments(job.id)).toHaveLength(1);
  });

  it('removes the document, its file link and records it', async () => {
    const job = await createJob();
    const [kept, removed] = [await uploadOne(job.id, 'kept.pdf'), await uploadOne(job.id, 'removed.pdf')];
    const res = await call(agent, 'DELETE', `/api/jobs/${job.id}/documents/${removed.id}`, undefined, { 'if-match': '"1"' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(await listDocuments(job.id)).toEqual([kept]);
    expect((await call(agent, 'GET', `/api/jobs/${job.id}/documents/${removed.id}/file`)).statusCode).toBe(404);
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({ action: 'document.deleted', data: { documentId: removed.id, name: 'removed.pdf' } });
  });
});

describe('POST /api/jobs/:id/documents/:docId/flush', () => {
  it('applies the edit sent on page unload when nobody changed the document meanwhile', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/documents/${document.id}/flush`, { name: 'Saved on unload.pdf', clientSnapshotVersion: 1 });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ isApplied: true, currentVersion: 2 });
    expect((await listDocuments(job.id))[0]).toMatchObject({ name: 'Saved on unload.pdf', version: 2 });
  });

  it('drops a stale edit, says so with 202 and the current version, and changes nothing', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    await call(agent, 'PATCH', `/api/jobs/${job.id}/documents/${document.id}`, { name: 'Newer.pdf', clientSnapshotVersion: 1 }, { 'if-match': '"1"' });
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/documents/${document.id}/flush`, { name: 'Older.pdf', clientSnapshotVersion: 1 });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ isApplied: false, currentVersion: 2 });
    expect((await listDocuments(job.id))[0]).toMatchObject({ name: 'Newer.pdf', version: 2 });
  });
});

describe('POST /api/jobs/:id/documents/:docId/complete', () => {
  it('lets the notary complete a document during the session, once', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    await moveTo(job, ['ready']);
    await moveTo(job, ['in_session'], notary);
    const res = await call(notary, 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: document.id, status: 'completed', version: 2 });
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({ action: 'document.completed', data: { documentId: document.id, sha256: document.sha256 } });
    const again = await call(notary, 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'conflict', message: 'This document is already complete.' });
  });

  it('lets an administrator complete one too', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    await moveTo(job, ['ready']);
    const res = await call(await t.createUser({ roles: ['admin'] }), 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('completed');
  });

  it('refuses the title agent who owns the job', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    await moveTo(job, ['ready']);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary or an administrator may complete a document.' });
    expect((await listDocuments(job.id))[0]?.status).toBe('uploaded');
  });

  it('refuses while the job is still a draft', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const res = await call(notary, 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'job_locked', message: 'Documents cannot be completed while the job is draft.' });
  });
});

describe('GET /api/jobs/:id/documents/:docId/file', () => {
  it('returns the exact bytes uploaded, as an inline PDF that is not cached', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id, 'rider; final.pdf', twoPages);
    const res = await call(agent, 'GET', `/api/jobs/${job.id}/documents/${document.id}/file`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(twoPages)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(twoPages.length),
      'content-disposition': 'inline; filename="rider_ final.pdf"',
      'cache-control': 'private, no-store',
    });
  });

  it('serves a participant who accepted the invitation, and nobody outside the job', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: signer.name, email: signer.email }]);
    const document = await uploadOne(job.id);
    const stranger = await t.createUser({ roles: ['signer'] });
    const hidden = await call(stranger, 'GET', `/api/jobs/${job.id}/documents/${document.id}/file`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ error: 'not_found', message: 'No job with that id, or you may not see it.' });

    const inviteToken = await findInviteToken(signer.email);
    expect((await call(signer, 'POST', `/api/invites/${inviteToken}/accept`)).statusCode).toBe(200);
    const seen = await call(signer, 'GET', `/api/jobs/${job.id}/documents/${document.id}/file`);
    expect(seen.statusCode).toBe(200);
    expect(seen.rawPayload.equals(onePage)).toBe(true);
  });

  it('answers 404 for a document that is not on the job', async () => {
    const job = await createJob();
    const res = await call(agent, 'GET', `/api/jobs/${job.id}/documents/${randomUUID()}/file`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No document with that id on this job.' });
  });
});

describe('POST and DELETE /api/jobs/:id/audit/assets', () => {
  it('tags a document as an audit asset (once, however often asked) and untags it, recording both', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const added = await call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: document.id });
    expect(added.statusCode).toBe(200);
    expect(added.json()).toEqual({ ok: true });
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({ action: 'audit_asset.added', data: { documentId: document.id, tag: 'id_front' } });
    const eventCount = (await auditTrail(job.id)).length;
    const again = await call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: document.id });
    expect(again.statusCode).toBe(200);
    expect(await auditTrail(job.id)).toHaveLength(eventCount);

    const removed = await call(agent, 'DELETE', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: document.id });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ ok: true });
    expect((await auditTrail(job.id)).at(-1)).toMatchObject({ action: 'audit_asset.removed', data: { documentId: document.id, tag: 'id_front' } });
  });

  it('answers 404 when removing a tag the document does not carry, and records nothing', async () => {
    const job = await createJob();
    const document = await uploadOne(job.id);
    const eventCount = (await auditTrail(job.id)).length;
    const res = await call(agent, 'DELETE', `/api/jobs/${job.id}/audit/assets`, { tag: 'never_added', docId: document.id });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'That document does not carry that audit tag.' });
    expect(await auditTrail(job.id)).toHaveLength(eventCount);
  });

  it('answers 404 for a document of another job and 400 for a bad id or an empty tag', async () => {
    const job = await createJob();
    const foreign = await uploadOne((await createJob()).id);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: foreign.id });
    expect(res.statusCode).toBe(404);
    const badId = await call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: 'doc-1' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ error: 'validation_failed', message: 'docId must be a UUID.' });
    const noTag = await call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: ' ', docId: foreign.id });
    expect(noTag.statusCode).toBe(400);
    expect(noTag.json()).toMatchObject({ error: 'validation_failed', message: 'Give the asset a tag.' });
  });
});

async function findInviteToken(address: string): Promise<string> {
  const [mail] = await t.db.select({ textBody: emailOutbox.textBody }).from(emailOutbox).where(eq(emailOutbox.toAddress, address));
  const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no invitation emailed to ${address}`);
  return token;
}
