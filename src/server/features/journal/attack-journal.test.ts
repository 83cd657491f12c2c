import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '#shared/journal.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let intruder: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  intruder = await kit.createNotary({ name: 'Ivan Intruder' });
});
afterAll(async () => t?.close());

/** A sealed job of Nora's with one signer; the seal makes the journal draft. */
async function sealedJob(signerName: string) {
  const signer = await t.createUser({ roles: ['signer'], name: signerName });
  await kit.saveSignature(signer);
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(notary, job.id)).status).toBe('completed');
  const [draft] = (await kit.call(notary, 'GET', `/api/notary-log/drafts/${job.id}`)).json().items as JournalEntry[];
  return { jobId: job.id, draftId: draft?.id ?? '' };
}

describe('attacks on the notary journal', () => {
  it('keeps the recorded signer name when a finalize request smuggles in other fields', async () => {
    const job = await sealedJob('Rita Recorded');
    const res = await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
      entries: [{ id: job.draftId, signerAddress: '1 Main St, Richmond, VA', feeCents: 0, signerName: 'Forged Name', status: 'draft', isTest: true }],
    });
    if (res.statusCode === 200) {
      const [entry] = res.json().items as JournalEntry[];
      expect(entry).toMatchObject({ status: 'final', isTest: false, content: { signerName: 'Rita Recorded' } });
    } else {
      expect(res.statusCode).toBe(400);
    }
  });

  it('refuses another notary finalizing, amending or deleting Nora’s entries', async () => {
    const job = await sealedJob('Otto Owned');
    expect(
      (await kit.call(intruder, 'POST', `/api/notary-log/finalize/${job.jobId}`, { entries: [{ id: job.draftId, signerAddress: '2 Elm St' }] })).statusCode,
    ).toBe(404);
    expect(
      (
        await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
          entries: [{ id: job.draftId, signerAddress: '2 Elm St, Richmond, VA', feeCents: 0 }],
        })
      ).statusCode,
    ).toBe(200);
    expect((await kit.call(intruder, 'POST', `/api/notary-log/entries/${job.draftId}/addenda`, { text: 'Tampered' })).statusCode).toBe(404);
    expect((await kit.call(intruder, 'DELETE', `/api/notary-log/entries/${job.draftId}`)).statusCode).toBe(404);
    expect((await kit.call(intruder, 'GET', '/api/notary-log/export.csv')).body).not.toContain('Otto Owned');
  });

  it('refuses deleting a final entry before its retention ends', async () => {
    const job = await sealedJob('Dora Deleted');
    expect(
      (
        await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
          entries: [{ id: job.draftId, signerAddress: '3 Oak St, Richmond, VA', feeCents: 0 }],
        })
      ).statusCode,
    ).toBe(200);
    const res = await kit.call(notary, 'DELETE', `/api/notary-log/entries/${job.draftId}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('journal_retention');
  });

  it('writes no CSV cell that a spreadsheet would run, from the signer name, address, notes or addenda', async () => {
    const job = await sealedJob('=HYPERLINK("http://evil.example","x")');
    const done = await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
      entries: [{ id: job.draftId, signerAddress: '+1 Main St', notes: '@SUM(A1:A9)', feeCents: 0 }],
    });
    expect(done.statusCode, done.body).toBe(200);
    expect((await kit.call(notary, 'POST', `/api/notary-log/entries/${job.draftId}/addenda`, { text: '-2+3 fee waived' })).statusCode).toBe(201);
    const csv = await kit.call(notary, 'GET', '/api/notary-log/export.csv');
    expect(csv.statusCode).toBe(200);
    const cells = csv.body
      .split(/\r\n/)
      .flatMap((line) => line.split(','))
      .map((cell) => cell.replace(/^"/, ''));
    for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('does not let a notary hide a final entry from the journal and its exports by marking the job a test afterwards', async () => {
    const job = await sealedJob('Hector Hidden');
    expect(
      (
        await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.jobId}`, {
          entries: [{ id: job.draftId, signerAddress: '4 Pine St, Richmond, VA', feeCents: 0 }],
        })
      ).statusCode,
    ).toBe(200);
    await kit.call(notary, 'POST', `/api/notary-log/mark-test/${job.jobId}`);
    expect((await kit.call(notary, 'GET', '/api/notary-log/export.csv')).body).toContain('Hector Hidden');
    expect((await kit.call(notary, 'DELETE', `/api/notary-log/entries/${job.draftId}`)).statusCode).toBe(409);
  });

  it('does not let a draft of a sealed act vanish for good: deleting it is refused, or preparing again brings it back', async () => {
    const job = await sealedJob('Della Draft');
    const deleted = await kit.call(notary, 'DELETE', `/api/notary-log/entries/${job.draftId}`);
    if (deleted.statusCode === 200) {
      await kit.call(notary, 'POST', `/api/notary-log/drafts/${job.jobId}`);
      const items = (await kit.call(notary, 'GET', `/api/notary-log/drafts/${job.jobId}`)).json().items as JournalEntry[];
      expect(items.map((entry) => entry.content.signerName)).toContain('Della Draft');
    } else {
      expect(deleted.statusCode).toBe(409);
    }
  });
});
