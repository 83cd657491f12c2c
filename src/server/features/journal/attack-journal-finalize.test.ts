import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '#shared/journal.ts';
import { auditEvents, notaryJournalEntries } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

/** Finalizing the journal attacked: after a notary replacement, with unprintable text, twice at once. */

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

/**
 * A job first given to `first`, replaced by `sealer` before the session, sealed by `sealer`. With
 * `firstDrafts`, `first` stores the job's journal drafts before the replacement.
 */
async function sealedAfterReplacement(first: TestUser, sealer: TestUser, options: { firstDrafts?: boolean; signerName?: string } = {}) {
  const agent = await t.createUser({ roles: ['title_agent'] });
  const signer = await t.createUser({ roles: ['signer'], ...(options.signerName ? { name: options.signerName } : {}) });
  await kit.saveSignature(signer);
  const job = await kit.createJob(agent, { notaryId: first.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(agent, job.id);
  await kit.moveJob(agent, job.id, ['ready']);
  if (options.firstDrafts) {
    const early = await kit.call(first, 'POST', `/api/notary-log/drafts/${job.id}`);
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json().items).toHaveLength(1);
  }
  if (first.id !== sealer.id) expect((await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: sealer.id })).statusCode).toBe(200);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(sealer, job.id, [signer]);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(sealer, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(sealer, job.id)).status).toBe('completed');
  const drafts = await kit.call(sealer, 'GET', `/api/notary-log/drafts/${job.id}`);
  expect(drafts.statusCode, drafts.body).toBe(200);
  const [draft] = drafts.json().items as JournalEntry[];
  return { jobId: job.id, draftId: draft?.id ?? '', signerName: signer.name };
}

const finalize = (person: TestUser, jobId: string, entry: Record<string, unknown>) =>
  kit.call(person, 'POST', `/api/notary-log/finalize/${jobId}`, { entries: [entry] });
const entryRow = async (id: string) => (await t.db.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.id, id)))[0];

describe('finalizing the journal', () => {
  it('belongs to the notary who sealed: the replaced notary can neither read the draft nor finalize it', async () => {
    const first = await kit.createNotary({ name: 'Fred First' });
    const sealer = await kit.createNotary({ name: 'Sue Sealer' });
    const job = await sealedAfterReplacement(first, sealer);
    expect((await kit.call(first, 'GET', `/api/notary-log/drafts/${job.jobId}`)).statusCode).toBe(404);
    const refused = await finalize(first, job.jobId, { id: job.draftId, signerAddress: '1 Main St, Richmond, VA', feeCents: 0 });
    expect([403, 404], refused.body).toContain(refused.statusCode);
    expect((await entryRow(job.draftId))?.status).toBe('draft');
    const done = await finalize(sealer, job.jobId, { id: job.draftId, signerAddress: '1 Main St, Richmond, VA', feeCents: 0 });
    expect(done.statusCode, done.body).toBe(200);
    expect((await kit.call(first, 'GET', '/api/notary-log/export.csv')).body).not.toContain(job.draftId);
  });

  it('lands in the journal of the notary who performed the act, even when the first notary drafted it before the job moved', async () => {
    const nora = await kit.createNotary({ name: 'Nora Notary' });
    const nigel = await kit.createNotary({ name: 'Nigel Notary' });
    const job = await sealedAfterReplacement(nora, nigel, { firstDrafts: true, signerName: 'Moved Mabel' });
    const address = '44 Moved Lane, Richmond, VA 23220';
    // Nora is no longer the job's notary: she neither reads nor finalizes its entries.
    expect((await kit.call(nora, 'GET', `/api/notary-log/drafts/${job.jobId}`)).statusCode).toBe(404);
    const refused = await finalize(nora, job.jobId, { id: job.draftId, signerAddress: address, feeCents: 0 });
    expect([403, 404], refused.body).toContain(refused.statusCode);
    expect((await entryRow(job.draftId))?.status).toBe('draft');

    const done = await finalize(nigel, job.jobId, { id: job.draftId, signerAddress: address, feeCents: 0 });
    expect(done.statusCode, done.body).toBe(200);
    expect((await entryRow(job.draftId))?.notaryId).toBe(nigel.id);

    const noraList = await kit.call(nora, 'GET', '/api/notary-log');
    expect(noraList.statusCode).toBe(200);
    expect((noraList.json().items as JournalEntry[]).map((entry) => entry.id)).not.toContain(job.draftId);
    for (const format of ['csv', 'json']) {
      const noraExport = await kit.call(nora, 'GET', `/api/notary-log/export.${format}`);
      expect(noraExport.statusCode).toBe(200);
      expect(noraExport.body).not.toContain(job.signerName);
      expect(noraExport.body).not.toContain(address);
      const nigelExport = await kit.call(nigel, 'GET', `/api/notary-log/export.${format}`);
      expect(nigelExport.statusCode).toBe(200);
      expect(nigelExport.body).toContain(job.signerName);
      expect(nigelExport.body).toContain(address);
    }
    const nigelList = await kit.call(nigel, 'GET', '/api/notary-log');
    expect((nigelList.json().items as JournalEntry[]).map((entry) => entry.id)).toContain(job.draftId);

    const addendumUrl = `/api/notary-log/entries/${job.draftId}/addenda`;
    expect((await kit.call(nora, 'POST', addendumUrl, { text: 'Not my act' })).statusCode).toBe(404);
    const amended = await kit.call(nigel, 'POST', addendumUrl, { text: 'The signer called to confirm the address.' });
    expect(amended.statusCode, amended.body).toBe(201);
  });

  it('refuses text no font prints, a NUL, a lone surrogate and a direction override with 400, and the draft stays a draft', async () => {
    const notary = await kit.createNotary();
    const job = await sealedAfterReplacement(notary, notary);
    const hostile = ['Lives at 🏠 1 Main St', '1 Main St\u0000', '1 Main St \ud800', '1 Main St\u202Etsil', 'x'.repeat(100_000)];
    for (const text of hostile) {
      for (const entry of [
        { signerAddress: text },
        { signerAddress: '1 Main St, Richmond, VA', notes: text },
        { signerAddress: '1 Main St', documentType: text },
      ]) {
        const res = await finalize(notary, job.jobId, { id: job.draftId, feeCents: 0, ...entry });
        expect([400, 413], `${JSON.stringify(entry).slice(0, 60)}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
        expect(typeof res.json().message).toBe('string');
      }
    }
    expect((await entryRow(job.draftId))?.status).toBe('draft');
    expect((await finalize(notary, job.jobId, { id: job.draftId, signerAddress: '1 Main St, Richmond, VA', feeCents: 0 })).statusCode).toBe(200);
    for (const text of ['Corrected\u0000 fee', 'Corrected \ud800', 'Fee\u202Eeef']) {
      const res = await kit.call(notary, 'POST', `/api/notary-log/entries/${job.draftId}/addenda`, { text });
      expect(res.statusCode, `${JSON.stringify(text)}: ${res.body.slice(0, 200)}`).toBe(400);
    }
  });

  it('finalizes once when two requests race: one 200, the other refused, one audit event', async () => {
    const notary = await kit.createNotary();
    const job = await sealedAfterReplacement(notary, notary);
    const results = await Promise.all([
      finalize(notary, job.jobId, { id: job.draftId, signerAddress: '1 Main St, Richmond, VA', feeCents: 0 }),
      finalize(notary, job.jobId, { id: job.draftId, signerAddress: '2 Forged Rd, Richmond, VA', feeCents: 0 }),
    ]);
    expect(results.map((res) => res.statusCode).sort(), results.map((res) => res.body.slice(0, 200)).join(' | ')).toEqual([200, 409]);
    const winner = results.find((res) => res.statusCode === 200)?.json().items[0] as JournalEntry;
    expect((await entryRow(job.draftId))?.content.signerAddress).toBe(winner.content.signerAddress);
    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, job.jobId), eq(auditEvents.action, 'journal.finalized')));
    expect(events).toHaveLength(1);
  });
});
