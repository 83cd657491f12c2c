import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { journalPdfMaxEntries, type JournalEntry } from '#shared/journal.ts';
import { auditEvents, notaryJournalAddenda, notaryJournalEntries, notaryProfiles } from '#server/db/schema/index.ts';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

const run = promisify(execFile);

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => t?.close());

/**
 * A recorded, filled and sealed job of `owner`'s with one signer, personally known to the notary (or
 * identified through a credible witness when asked): a notarial act. Unless `isRecorded` is false:
 * then the job is put in session without a live session and nothing is filled, and it is sealed, but
 * not as a notarial act (a practice run).
 */
async function sealedJob(owner: TestUser, options: { signerName?: string; byCredibleWitness?: boolean; isRecorded?: boolean } = {}) {
  const signer = await t.createUser({ roles: ['signer'], name: options.signerName ?? 'Sam Signer' });
  await kit.saveSignature(signer);
  const job = await kit.createJob(owner, { notaryId: owner.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(owner, job.id);
  await kit.moveJob(owner, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  if (options.isRecorded === false) {
    await kit.moveJob(owner, job.id, ['in_session']);
    expect((await kit.sealJob(owner, job.id)).status).toBe('completed');
    return { jobId: job.id, signer, recordingId: null };
  }
  const recording = await kit.startRecordedSession(owner, job.id, [signer]);
  if (options.byCredibleWitness) {
    const bypass = await kit.call(owner, 'POST', `/api/jobs/${job.id}/signers/${participantId}/id-bypass`, {
      enabled: true,
      method: 'credible_witness',
      reason: 'Wendy Witness vouched for the signer on camera',
    });
    expect(bypass.statusCode, bypass.body).toBe(200);
  }
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(owner, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(owner, job.id)).status).toBe('completed');
  return { jobId: job.id, signer, recordingId: recording.recordingId };
}

async function draftOf(owner: TestUser, jobId: string): Promise<JournalEntry> {
  const [draft] = (await kit.call(owner, 'GET', `/api/notary-log/drafts/${jobId}`)).json().items as JournalEntry[];
  if (!draft) throw new Error('no draft');
  return draft;
}

async function finalize(owner: TestUser, jobId: string, entry: Record<string, unknown>) {
  return kit.call(owner, 'POST', `/api/notary-log/finalize/${jobId}`, { entries: [entry] });
}

async function setState(owner: TestUser, state: string) {
  await t.db.update(notaryProfiles).set({ commissionState: state }).where(eq(notaryProfiles.userId, owner.id));
}

async function auditOf(action: string, actorId: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.actorId, actorId)));
}

async function pdfText(pdf: Buffer): Promise<string> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'journal-pdf-'));
  try {
    const file = path.join(directory, 'journal.pdf');
    await fs.promises.writeFile(file, pdf);
    return (await run('pdftotext', ['-layout', file, '-'])).stdout;
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}

describe('prepare-notary-log', () => {
  it('stores the drafts it prepares and answers with them, for the job’s notary and (on record) an admin only', async () => {
    const job = await sealedJob(notary);
    const url = `/api/jobs/${job.jobId}/prepare-notary-log`;
    const prepared = await kit.call(notary, 'POST', url);
    expect(prepared.statusCode, prepared.body).toBe(200);
    const [entry] = prepared.json().entries;
    const draft = await draftOf(notary, job.jobId);
    expect(entry).toMatchObject({
      entryId: draft.id,
      status: 'draft',
      jobId: job.jobId,
      actType: 'Acknowledgment',
      signerName: 'Sam Signer',
      signerAddress: null,
      identityMethod: 'Personally known to the notary (the notary’s statement: Identity step not under test here)',
      isIdentityProven: true,
      isIdentifiedByCredibleWitness: false,
      credibleWitnesses: [],
      witnesses: [],
      feeCents: null,
      notes: null,
    });
    expect(entry.notarizedAt).toBe(draft.content.notarizedAt);
    expect(entry.notarizedSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(entry.recordingReference).toContain(job.recordingId);
    // Preparing again keeps one entry per signer and document.
    expect((await kit.call(notary, 'POST', url)).json().entries.map((item: { entryId: string }) => item.entryId)).toEqual([draft.id]);

    expect((await kit.call(job.signer, 'POST', url)).statusCode).toBe(403);
    expect((await kit.call(await kit.createNotary(), 'POST', url)).statusCode).toBe(404);
    expect((await kit.call(notary, 'POST', '/api/jobs/not-a-uuid/prepare-notary-log')).statusCode).toBe(400);
    const byAdmin = await kit.call(admin, 'POST', url);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect((await auditOf('journal.read_by_admin', admin.id)).some((event) => event.jobId === job.jobId)).toBe(true);
  });

  it('drafts a credible witness identification, whose witness’s name and address the notary must give', async () => {
    const job = await sealedJob(notary, { signerName: 'Carla Credible', byCredibleWitness: true });
    const draft = await draftOf(notary, job.jobId);
    expect(draft.content).toMatchObject({ isIdentifiedByCredibleWitness: true, isIdentityProven: true });
    expect(draft.content.identityMethod).toContain('Identified through a credible witness');
    const lacking = await finalize(notary, job.jobId, { id: draft.id, signerAddress: '1 Main St, Richmond, VA 23220', feeCents: 2500 });
    expect(lacking.statusCode).toBe(400);
    expect(lacking.json()).toMatchObject({
      error: 'journal_fields_missing',
      message: expect.stringContaining('the name and address of each credible witness'),
    });
    const done = await finalize(notary, job.jobId, {
      id: draft.id,
      signerAddress: '1 Main St, Richmond, VA 23220',
      feeCents: 2500,
      credibleWitnesses: [{ name: 'Wendy Witness', address: '9 Oak Lane, Richmond, VA 23221' }],
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().items[0].content).toMatchObject({
      credibleWitnesses: [{ name: 'Wendy Witness', address: '9 Oak Lane, Richmond, VA 23221' }],
      commissionState: 'VA',
    });
  });
});

describe('finalizing under the commissioning state’s journal rules', () => {
  it('asks a Texas notary for the document’s date and a Florida notary for its type, with the rule, and keeps Florida’s entries ten years', async () => {
    const texan = await kit.createNotary({ name: 'Tex Notary' });
    const job = await sealedJob(texan);
    await setState(texan, 'TX');
    const draft = await draftOf(texan, job.jobId);
    const refused = await finalize(texan, job.jobId, { id: draft.id, signerAddress: '500 Congress Ave, Austin, TX 78701', feeCents: 600 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'journal_fields_missing', detail: { entries: [{ id: draft.id, missing: ['documentDate'] }] } });
    expect(refused.json().message).toBe(
      'Texas’s journal needs the date of the document (Tex. Gov’t Code § 406.014(a) (date of the instrument, residence of the signer, the fee) and 1 Tex. Admin. Code § 87.50). Complete the entry and finalize again.',
    );
    // Nothing was half-written: the entry is still a draft.
    expect((await draftOf(texan, job.jobId)).status).toBe('draft');
    expect(
      (await finalize(texan, job.jobId, { id: draft.id, signerAddress: '500 Congress Ave, Austin, TX 78701', feeCents: 600, documentDate: '23/11/2026' }))
        .statusCode,
    ).toBe(400);
    const done = await finalize(texan, job.jobId, {
      id: draft.id,
      signerAddress: '500 Congress Ave, Austin, TX 78701',
      feeCents: 600,
      documentDate: '2026-11-20',
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().items[0].content).toMatchObject({ documentDate: '2026-11-20', commissionState: 'TX' });

    const floridian = await kit.createNotary({ name: 'Flo Notary' });
    const flJob = await sealedJob(floridian);
    await setState(floridian, 'FL');
    const flDraft = await draftOf(floridian, flJob.jobId);
    const noType = await finalize(floridian, flJob.jobId, { id: flDraft.id, signerAddress: '1 Ocean Dr, Miami, FL 33139' });
    expect(noType.json().message).toContain('Florida’s journal needs the fee charged (0 when none), the type of document (Fla. Stat. § 117.245');
    const flDone = await finalize(floridian, flJob.jobId, {
      id: flDraft.id,
      signerAddress: '1 Ocean Dr, Miami, FL 33139',
      feeCents: 0,
      documentType: 'Warranty deed',
    });
    expect(flDone.statusCode, flDone.body).toBe(200);
    const [final] = flDone.json().items as JournalEntry[];
    expect(new Date(final?.keptUntil ?? '').getUTCFullYear()).toBe(new Date(final?.finalizedAt ?? '').getUTCFullYear() + 10);
  });
});

describe('deleting an entry', () => {
  it('is refused before the retention ends, with the date and the rule, and allowed after it with the addenda, on record', async () => {
    const job = await sealedJob(notary, { signerName: 'Dora Delete' });
    const draft = await draftOf(notary, job.jobId);
    const url = `/api/notary-log/entries/${draft.id}`;
    expect((await kit.call(notary, 'DELETE', url)).json()).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining('A draft is not in the journal yet'),
    });
    const [final] = (await finalize(notary, job.jobId, { id: draft.id, signerAddress: '1 Main St, Richmond, VA 23220', feeCents: 2500 })).json()
      .items as JournalEntry[];
    expect((await kit.call(notary, 'POST', `${url}/addenda`, { text: 'The fee was refunded.' })).statusCode).toBe(201);
    const keptUntil = new Date(final?.keptUntil ?? '');

    const early = await kit.call(notary, 'DELETE', url);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({
      error: 'journal_retention',
      message: `This entry must be kept until ${keptUntil.toISOString().slice(0, 10)} (5 years: Va. Code § 47.1-14); it can be deleted after that.`,
    });
    expect((await kit.call(job.signer, 'DELETE', url)).statusCode).toBe(403);
    expect((await kit.call(await kit.createNotary(), 'DELETE', url)).statusCode).toBe(404);
    expect((await kit.call(notary, 'DELETE', '/api/notary-log/entries/not-a-uuid')).statusCode).toBe(400);

    // A day before the end it is still kept; the day after, it goes.
    vi.useFakeTimers({ toFake: ['Date'], now: keptUntil.getTime() - 86_400_000 });
    const headers = await t.signInAs(notary);
    expect((await t.app.inject({ method: 'DELETE', url, headers })).statusCode).toBe(409);
    vi.setSystemTime(keptUntil.getTime() + 86_400_000);
    const later = await t.signInAs(notary);
    const deleted = await t.app.inject({ method: 'DELETE', url, headers: later });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ deleted: true, addenda: 1 });
    vi.useRealTimers();
    expect(await t.db.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.id, draft.id))).toHaveLength(0);
    expect(await t.db.select().from(notaryJournalAddenda).where(eq(notaryJournalAddenda.entryId, draft.id))).toHaveLength(0);
    const [event] = await auditOf('journal.entry_deleted', notary.id);
    expect(event?.data).toMatchObject({ entryId: draft.id, addenda: 1, byAdmin: false });
    expect((await kit.call(notary, 'DELETE', url)).statusCode).toBe(404);
  });

  it('lets an administrator delete an entry whose retention ended, on record, and never one still kept', async () => {
    const job = await sealedJob(notary, { signerName: 'Adam Admin-Deleted' });
    const draft = await draftOf(notary, job.jobId);
    const [final] = (await finalize(notary, job.jobId, { id: draft.id, signerAddress: '1 Main St, Richmond, VA 23220', feeCents: 0 })).json()
      .items as JournalEntry[];
    const url = `/api/notary-log/entries/${draft.id}`;
    expect((await kit.call(admin, 'DELETE', url)).statusCode).toBe(409);
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(final?.keptUntil ?? '').getTime() + 1000 });
    const deleted = await t.app.inject({ method: 'DELETE', url, headers: await t.signInAs(admin) });
    expect(deleted.statusCode, deleted.body).toBe(200);
    vi.useRealTimers();
    const [event] = await auditOf('journal.entry_deleted', admin.id);
    expect(event?.data).toMatchObject({ entryId: draft.id, notaryId: notary.id, byAdmin: true });
  });
});

describe('the JSON and signed PDF exports', () => {
  it('export every final entry with its addenda, leave test entries out unless asked, and prove each other', async () => {
    const exporter = await kit.createNotary({ name: 'Erin Exporter' });
    const kept = await sealedJob(exporter, { signerName: '=Evil Formula' });
    // A practice run: sealed without a recorded session, so not a notarial act, and it may be a test.
    const test = await sealedJob(exporter, { signerName: 'Tess Test', isRecorded: false });
    // A practice job is marked as a test before its entries are final (a final entry never changes).
    expect((await kit.call(exporter, 'POST', `/api/notary-log/mark-test/${test.jobId}`)).statusCode).toBe(200);
    for (const job of [kept, test]) {
      const draft = await draftOf(exporter, job.jobId);
      expect(
        (await finalize(exporter, job.jobId, { id: draft.id, signerAddress: '12 Pine St, Richmond, VA 23220', feeCents: 1000, notes: 'Signed willingly' }))
          .statusCode,
      ).toBe(200);
    }
    const keptEntry = (await kit.call(exporter, 'GET', '/api/notary-log?signer=evil')).json().items[0] as JournalEntry;
    expect((await kit.call(exporter, 'POST', `/api/notary-log/entries/${keptEntry.id}/addenda`, { text: 'Corrected the ZIP code to 23221.' })).statusCode).toBe(
      201,
    );

    const json = await kit.call(exporter, 'GET', '/api/notary-log/export.json');
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toBe('attachment; filename="notary-journal.json"');
    const body = json.json();
    expect(body).toMatchObject({
      format: 'open-ron-notary-journal',
      version: 1,
      notary: { id: exporter.id, name: 'Erin Exporter', commissionState: 'VA' },
      selection: { includeTest: false },
    });
    expect(body.entries).toHaveLength(1);
    expect(body.entries[0]).toMatchObject({
      id: keptEntry.id,
      status: 'final',
      content: { signerName: '=Evil Formula', signerAddress: '12 Pine St, Richmond, VA 23220', feeCents: 1000 },
      addenda: [{ text: 'Corrected the ZIP code to 23221.' }],
    });
    const withTest = (await kit.call(exporter, 'GET', '/api/notary-log/export.json?includeTest=true')).json();
    expect(withTest.entries.map((entry: JournalEntry) => entry.content.signerName).sort()).toEqual(['=Evil Formula', 'Tess Test']);
    // The same journal gives the same bytes.
    expect((await kit.call(exporter, 'GET', '/api/notary-log/export.json')).body).toBe(json.body);

    const csv = await kit.call(exporter, 'GET', '/api/notary-log/export.csv');
    expect(csv.body).toContain("'=Evil Formula");
    expect(csv.body).not.toMatch(/(^|,)=Evil/m);

    const pdf = await kit.call(exporter, 'GET', '/api/notary-log/export.pdf');
    expect(pdf.statusCode, pdf.body.slice(0, 300)).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="notary-journal.pdf"');
    const bytes = pdf.rawPayload;
    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    // Nothing listens at PUBLIC_URL, where the certificate names its OCSP responder: pdfsig checks the chain only.
    const report = await verifyWithPdfsig(bytes, caPem, { isRevocationCheckedOnline: false });
    expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, isTotal: true, hasDigestMismatch: false, signatureCount: 1 });
    expect(report.output).toContain('Erin Exporter');
    const text = await pdfText(bytes);
    expect(text).toContain('Electronic notary journal');
    expect(text).toContain(createHash('sha256').update(json.rawPayload).digest('hex'));
    expect(text).toContain('=Evil Formula');
    expect(text).toContain('Corrected the ZIP code to 23221.');
    expect(text).toContain('Entries: 1');
    expect(text).not.toContain('Tess Test');
    expect(text).toMatch(/Signed by: Erin Exporter.s notary certificate \(serial [0-9a-f]+\)/);
  });

  it('are the notary’s own: others are refused, an admin reads them on record, and bad input is a 400', async () => {
    const job = await sealedJob(notary, { signerName: 'Olga Own' });
    const draft = await draftOf(notary, job.jobId);
    expect((await finalize(notary, job.jobId, { id: draft.id, signerAddress: '1 Main St, Richmond, VA 23220', feeCents: 0 })).statusCode).toBe(200);
    const title = await t.createUser({ roles: ['title'] });
    for (const url of ['/api/notary-log/export.json', '/api/notary-log/export.pdf']) {
      expect((await kit.call(job.signer, 'GET', url)).statusCode).toBe(403);
      expect((await kit.call(title, 'GET', url)).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
      expect((await kit.call(notary, 'GET', `${url}?from=yesterday`)).statusCode).toBe(400);
      expect((await kit.call(notary, 'GET', `${url}?notaryId=${admin.id}`)).statusCode).toBe(403);
    }
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'GET', `/api/notary-log/export.json?notaryId=${notary.id}`)).statusCode).toBe(403);
    expect((await kit.call(otherNotary, 'GET', '/api/notary-log/export.json')).json().entries).toEqual([]);

    const before = (await auditOf('journal.read_by_admin', admin.id)).length;
    const read = await kit.call(admin, 'GET', `/api/notary-log/export.json?notaryId=${notary.id}`);
    expect(read.json().entries.some((entry: JournalEntry) => entry.content.signerName === 'Olga Own')).toBe(true);
    const pdf = await kit.call(admin, 'GET', `/api/notary-log/export.pdf?notaryId=${notary.id}`);
    expect(pdf.statusCode).toBe(200);
    expect((await auditOf('journal.read_by_admin', admin.id)).length).toBe(before + 2);
  });

  it('prints a signer named in Vietnamese and an address in Cyrillic on the journal PDF as they were written, and refuses an address no font can print', async () => {
    const owner = await kit.createNotary({ name: 'Trần Văn Hùng' });
    const job = await sealedJob(owner, { signerName: 'Nguyễn Thị Ánh' });
    const draft = await draftOf(owner, job.jobId);
    const unprintable = await finalize(owner, job.jobId, { id: draft.id, signerAddress: 'ул. Ленина 5 🏠, Москва', feeCents: 0 });
    expect(unprintable.statusCode).toBe(400);
    expect(unprintable.json()).toMatchObject({ error: 'unprintable_text', message: expect.stringContaining('(🏠, U+1F3E0)') });
    expect((await finalize(owner, job.jobId, { id: draft.id, signerAddress: 'ул. Ленина 5, Москва', feeCents: 0 })).statusCode).toBe(200);
    const pdf = await kit.call(owner, 'GET', '/api/notary-log/export.pdf');
    expect(pdf.statusCode, pdf.body.slice(0, 300)).toBe(200);
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Notary: Trần Văn Hùng');
    expect(text).toContain('Signer: Nguyễn Thị Ánh');
    expect(text).toContain('address: ул. Ленина 5, Москва');
    expect(text).not.toContain('?');
  });

  it('signs with the platform’s own certificate (from the platform CA) when the notary has no live one, and sends a journal too large for one PDF to date ranges', async () => {
    const leaver = await kit.createNotary({ name: 'Leo Leaver' });
    const job = await sealedJob(leaver);
    const draft = await draftOf(leaver, job.jobId);
    expect((await finalize(leaver, job.jobId, { id: draft.id, signerAddress: '1 Main St, Richmond, VA 23220', feeCents: 0 })).statusCode).toBe(200);
    // The commission lapsed: the notary's certificate can no longer be issued, the journal is still theirs.
    await t.db.update(notaryProfiles).set({ commissionExpiresOn: '2020-01-31' }).where(eq(notaryProfiles.userId, leaver.id));
    const pdf = await kit.call(leaver, 'GET', '/api/notary-log/export.pdf');
    expect(pdf.statusCode, pdf.body.slice(0, 300)).toBe(200);
    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    const report = await verifyWithPdfsig(pdf.rawPayload, caPem, { isRevocationCheckedOnline: false });
    expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
    expect(await pdfText(pdf.rawPayload)).toMatch(/Signed by: the Open RON platform.s certificate as the journal.s custodian \(serial [0-9a-f]+;/);

    await t.db.execute(sql`
      insert into notary_journal_entries (notary_id, status, content, finalized_at, kept_until)
      select ${leaver.id}::uuid, 'final', jsonb_build_object('actType', 'Jurat', 'documentName', 'bulk.pdf', 'signerName', 'Bulk ' || n, 'signerEmail', 'bulk@example.com', 'identityMethod', 'Personally known'),
        now() - (n || ' minutes')::interval, now() + interval '5 years'
      from generate_series(1, ${journalPdfMaxEntries}::int) as n`);
    const tooLarge = await kit.call(leaver, 'GET', '/api/notary-log/export.pdf');
    expect(tooLarge.statusCode).toBe(409);
    expect(tooLarge.json()).toMatchObject({
      error: 'journal_too_large_for_pdf',
      message: expect.stringContaining('export it by date range (From and To) in several PDFs'),
    });
    const json = (await kit.call(leaver, 'GET', '/api/notary-log/export.json')).json();
    expect(json.entries).toHaveLength(journalPdfMaxEntries + 1);
  });
});
