import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField, type JournalEntry } from '#shared/journal.ts';
import { auditEvents, notarizedDocuments, notaryJournalEntries } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
});
afterAll(async () => t?.close());

/**
 * A recorded, filled and sealed job of Nora's with one signer, personally known to her: a notarial
 * act, whose journal draft is made by the seal. Unless `isRecorded` is false: then the job is put in
 * session without a live session and nothing is filled, and it is sealed, but not as a notarial act
 * (a practice run).
 */
async function sealedJob(signerName = 'Sam Signer', { isRecorded = true } = {}) {
  const signer = await t.createUser({ roles: ['signer'], name: signerName });
  await kit.saveSignature(signer);
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  if (!isRecorded) {
    await kit.moveJob(notary, job.id, ['in_session']);
    expect((await kit.sealJob(notary, job.id)).status).toBe('completed');
    return { jobId: job.id, signer, recordingId: null };
  }
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  const sealed = await kit.sealJob(notary, job.id);
  expect(sealed.status).toBe('completed');
  return { jobId: job.id, signer, recordingId: recording.recordingId };
}

async function drafts(person: TestUser, jobId: string) {
  return kit.call(person, 'GET', `/api/notary-log/drafts/${jobId}`);
}

describe('journal drafts', () => {
  it('are made when the job is sealed, from what the platform recorded, and shown to its notary only', async () => {
    const job = await sealedJob();
    const res = await drafts(notary, job.jobId);
    expect(res.statusCode, res.body).toBe(200);
    const [entry] = res.json().items as JournalEntry[];
    expect(entry).toMatchObject({ status: 'draft', isTest: false, finalizedAt: null, addenda: [] });
    expect(entry?.content).toMatchObject({
      actType: 'Acknowledgment',
      signerName: 'Sam Signer',
      signerAddress: null,
      identityMethod: 'Personally known to the notary (the notary’s statement: Identity step not under test here)',
    });
    expect(entry?.content.notarizedAt).not.toBeNull();
    expect(entry?.content.recordingReference).toContain(job.recordingId);
    expect((await drafts(job.signer, job.jobId)).statusCode).toBe(403);
    const otherNotary = await kit.createNotary();
    expect((await drafts(otherNotary, job.jobId)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/notary-log/drafts/${job.jobId}` })).statusCode).toBe(401);
    expect((await drafts(notary, 'not-a-uuid')).statusCode).toBe(400);
  });
});

describe('finalizing', () => {
  it('needs the signer’s address, then makes the entry final for good; corrections are addenda', async () => {
    const job = await sealedJob();
    const [draft] = (await drafts(notary, job.jobId)).json().items as JournalEntry[];
    const url = `/api/notary-log/finalize/${job.jobId}`;
    const noAddress = await kit.call(notary, 'POST', url, { entries: [{ id: draft?.id }] });
    expect(noAddress.statusCode).toBe(400);
    expect(noAddress.body).toContain('Give the signer’s address.');
    const unknown = await kit.call(notary, 'POST', url, {
      entries: [{ id: '00000000-0000-4000-8000-000000000000', signerAddress: '1 Main St, Richmond, VA 23220' }],
    });
    expect(unknown.statusCode).toBe(404);
    expect((await kit.call(job.signer, 'POST', url, { entries: [{ id: draft?.id, signerAddress: '1 Main St' }] })).statusCode).toBe(403);

    const done = await kit.call(notary, 'POST', url, {
      entries: [{ id: draft?.id, signerAddress: '1208 Maple Avenue, Richmond, VA 23220', feeCents: 2500, notes: 'Signed willingly' }],
    });
    expect(done.statusCode, done.body).toBe(200);
    const [final] = done.json().items as JournalEntry[];
    expect(final).toMatchObject({
      status: 'final',
      content: { signerAddress: '1208 Maple Avenue, Richmond, VA 23220', feeCents: 2500, notes: 'Signed willingly' },
    });
    // Virginia keeps it five years.
    expect(new Date(final?.keptUntil ?? '').getUTCFullYear()).toBe(new Date(final?.finalizedAt ?? '').getUTCFullYear() + 5);

    const again = await kit.call(notary, 'POST', url, { entries: [{ id: draft?.id, signerAddress: 'Somewhere else entirely' }] });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'journal_entry_final' });
    // Preparing again leaves a final entry as it is.
    await kit.call(notary, 'POST', `/api/notary-log/drafts/${job.jobId}`);
    const [row] = await t.db
      .select()
      .from(notaryJournalEntries)
      .where(eq(notaryJournalEntries.id, draft?.id ?? ''));
    expect(row?.content.signerAddress).toBe('1208 Maple Avenue, Richmond, VA 23220');

    const addendumUrl = `/api/notary-log/entries/${draft?.id}/addenda`;
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'POST', addendumUrl, { text: 'Not mine to amend' })).statusCode).toBe(404);
    expect((await kit.call(notary, 'POST', addendumUrl, { text: '' })).statusCode).toBe(400);
    const amended = await kit.call(notary, 'POST', addendumUrl, { text: 'The fee was waived afterwards.' });
    expect(amended.statusCode, amended.body).toBe(201);
    expect(amended.json()).toMatchObject({ content: { feeCents: 2500 }, addenda: [{ text: 'The fee was waived afterwards.' }] });
  });
});

describe('test entries', () => {
  it('are never made of a notarial act: its entries stay in the journal and its exports', async () => {
    const job = await sealedJob('Rhea Real');
    const [draft] = (await drafts(notary, job.jobId)).json().items as JournalEntry[];
    expect(
      (
        await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
          entries: [{ id: draft?.id, signerAddress: '9 Oak St, Richmond, VA', feeCents: 0 }],
        })
      ).statusCode,
    ).toBe(200);
    // Sealed with a recorded session and the signer personally known to the notary: a notarial act.
    expect(
      await t.db.select({ isNotarialAct: notarizedDocuments.isNotarialAct }).from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.jobId)),
    ).toEqual([{ isNotarialAct: true }]);
    const marked = await kit.call(notary, 'POST', `/api/notary-log/mark-test/${job.jobId}`);
    expect(marked.statusCode).toBe(409);
    expect(marked.json()).toMatchObject({ error: 'journal_notarial_act', message: expect.stringContaining('notarial act') });
    const [row] = await t.db
      .select()
      .from(notaryJournalEntries)
      .where(eq(notaryJournalEntries.id, draft?.id ?? ''));
    expect(row?.isTest).toBe(false);
    expect((await kit.call(notary, 'GET', '/api/notary-log/export.csv')).body).toContain('Rhea Real');
  });
});

describe('the journal and its export', () => {
  it('lists the notary’s own final entries with filters, leaves test entries out unless asked, and exports CSV that a spreadsheet cannot run', async () => {
    const first = await sealedJob('Fiona First');
    // A practice run: sealed without a recorded session, so not a notarial act, and it may be a test.
    const second = await sealedJob('Gus Second', { isRecorded: false });
    // A practice job is marked as a test before its entries are final (a final entry never changes).
    expect((await kit.call(notary, 'POST', `/api/notary-log/mark-test/${second.jobId}`)).json()).toEqual({ marked: 1 });
    for (const job of [first, second]) {
      const [draft] = (await drafts(notary, job.jobId)).json().items as JournalEntry[];
      const notes = job === first ? '=HYPERLINK("http://evil.example","click")' : 'plain, with "quotes"';
      expect(
        (
          await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
            entries: [{ id: draft?.id, signerAddress: '5 Elm St, Richmond, VA', feeCents: 0, notes }],
          })
        ).statusCode,
      ).toBe(200);
    }

    const list = await kit.call(notary, 'GET', '/api/notary-log?signer=fiona');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((entry: JournalEntry) => entry.content.signerName)).toEqual(['Fiona First']);
    const all = (await kit.call(notary, 'GET', '/api/notary-log')).json();
    expect(all.items.map((entry: JournalEntry) => entry.content.signerName)).not.toContain('Gus Second');
    expect((await kit.call(notary, 'GET', '/api/notary-log?includeTest=true')).json().items.map((entry: JournalEntry) => entry.content.signerName)).toContain(
      'Gus Second',
    );
    expect((await kit.call(notary, 'GET', '/api/notary-log?from=yesterday')).statusCode).toBe(400);
    // A search is one line of text: a NUL (which PostgreSQL's text cannot hold) is refused, not a 500
    for (const query of ['signer=fi%00ona', 'act=%00']) {
      const refused = await kit.call(notary, 'GET', `/api/notary-log?${query}`);
      expect(refused.statusCode, query).toBe(400);
      expect(refused.json(), query).toMatchObject({
        error: 'validation_failed',
        message: 'Search with one line of text, without control characters or text-direction overrides.',
      });
    }
    expect((await kit.call(first.signer, 'GET', '/api/notary-log')).statusCode).toBe(403);

    const csv = await kit.call(notary, 'GET', '/api/notary-log/export.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.split('\r\n').filter(Boolean);
    expect(lines[0]).toMatch(/^Finalized at,Finalized,Notarized at,Notarized,Act,/);
    // Beside each ISO column (kept for programs that read the file) a date as people read it
    const fiona = lines.find((line) => line.includes('Fiona First')) ?? '';
    expect(fiona).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z,"?\d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} UTC"?,/);
    expect(lines.some((line) => line.includes('Gus Second'))).toBe(false);
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    const withTest = await kit.call(notary, 'GET', '/api/notary-log/export.csv?includeTest=true');
    expect(withTest.body).toContain('"plain, with ""quotes"""');

    // An admin reads another notary's journal only by naming it, and it is on record.
    const admin = await t.createUser({ roles: ['admin'] });
    const read = await kit.call(admin, 'GET', `/api/notary-log?notaryId=${notary.id}`);
    expect(read.json().total).toBeGreaterThanOrEqual(1);
    const audit = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'journal.read_by_admin'), eq(auditEvents.actorId, admin.id)));
    expect(audit).toHaveLength(1);
    expect((await kit.call(notary, 'GET', `/api/notary-log?notaryId=${admin.id}`)).statusCode).toBe(403);
  });

  it('quotes and defuses every field the RFC 4180 way', () => {
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('+cmd')).toBe("'+cmd");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(2500)).toBe('2500');
  });
});
