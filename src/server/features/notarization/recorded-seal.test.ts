import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFields, notarizedDocuments, recordings, videoSessionParticipants } from '#server/db/schema/index.ts';
import { formatRecordSpan } from '#shared/dates.ts';
import { findUncovered } from '#server/features/video/recording/recording-gaps.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let signer: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  await kit.saveSignature(signer);
});
afterAll(async () => t?.close());

/** A ready job with Sam on it (accepted) and one signature field for him; recorded unless told otherwise. */
async function prepareJob(options: { isRecorded?: boolean } = { isRecorded: true }) {
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = options.isRecorded ? await kit.startRecordedSession(notary, job.id, [signer]) : null;
  if (!recording) await kit.moveJob(notary, job.id, ['in_session']);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect(placed.statusCode, placed.body).toBe(201);
  const fieldId = placed.json().id as string;
  const complete = async () => expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
  const seal = () => kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
  return { jobId: job.id, documentId, participantId, fieldId, base, recording, complete, seal };
}

async function auditText(sealed: { json(): { items: Array<{ downloadUrl: string }> } }): Promise<string> {
  const download = await kit.call(notary, 'GET', sealed.json().items[0]?.downloadUrl ?? '');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-seal-'));
  try {
    fs.writeFileSync(path.join(directory, 'out.pdf'), download.rawPayload);
    const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', path.join(directory, 'out.pdf'), '-']);
    return stdout.replace(/\s+/g, ' ').slice(stdout.replace(/\s+/g, ' ').indexOf('AUDIT CERTIFICATE'));
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

const notSealed = async (jobId: string) => {
  expect((await kit.getJob(notary, jobId)).status).toBe('in_session');
  expect(await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId))).toEqual([]);
};

describe('complete-job rests on the recording', () => {
  it('refuses to seal while the recording has stored no media, and seals once the hub stored every participant’s segments', async () => {
    const job = await prepareJob();
    expect((await kit.call(signer, 'POST', `${job.base}/${job.fieldId}/fill`, { version: 1 })).statusCode).toBe(200);
    await job.complete();
    const refused = await job.seal();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'not_recorded',
      message: 'The session’s recording stored no media: there is nothing to seal the act on. The job cannot be sealed.',
    });
    await notSealed(job.jobId);

    expect(await recordMedia(t, job.recording?.recordingId ?? '', [job.participantId, 'notary'])).toBeGreaterThan(0);
    const sealed = await job.seal();
    expect(sealed.statusCode, sealed.body).toBe(200);
    // Recorded, and the signer personally known to the notary (the fixtures' bypass): a notarial act.
    expect(sealed.json().items[0]).toMatchObject({ isNotarialAct: true, notNotarialReasons: [] });
  });

  it('refuses a job whose fields were filled with no recording at all (filled before this rule), and one filled before its recording started', async () => {
    const unrecorded = await prepareJob({ isRecorded: false });
    // Fills from before the rule: the database holds them; no route fills without a recording now.
    await t.db.update(documentFields).set({ filledAt: new Date(), filledBy: signer.id, value: null }).where(eq(documentFields.id, unrecorded.fieldId));
    await unrecorded.complete();
    const refused = await unrecorded.seal();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'not_recorded',
      message: 'The session was not recorded: fields were filled, but no recording was started. The job cannot be sealed.',
    });
    await notSealed(unrecorded.jobId);

    const early = await prepareJob();
    const filledAt = new Date(Date.now() - 60_000);
    await t.db.update(documentFields).set({ filledAt, filledBy: signer.id }).where(eq(documentFields.id, early.fieldId));
    await recordMedia(t, early.recording?.recordingId ?? '', [early.participantId]);
    await early.complete();
    const tooEarly = await early.seal();
    expect(tooEarly.statusCode).toBe(409);
    expect(tooEarly.json().message).toBe(
      `A field was filled at ${filledAt.toISOString().slice(0, 19).replace('T', ' ')} UTC, when the session was not being recorded. The job cannot be sealed.`,
    );
    await notSealed(early.jobId);
  });

  it('refuses to seal when everyone’s media stopped for 25 seconds, naming each person, when, and the rule (a stretch counts per person, decision 033)', async () => {
    const job = await prepareJob();
    const recordingId = job.recording?.recordingId ?? '';
    // The recording and everyone's admission began a minute ago; everyone's media stops for 25 seconds, then only the notary's goes on.
    const start = new Date(Date.now() - 60_000);
    await t.db.update(recordings).set({ startedAt: start }).where(eq(recordings.id, recordingId));
    await t.db
      .update(videoSessionParticipants)
      .set({ joinedAt: start, decidedAt: start })
      .where(eq(videoSessionParticipants.sessionId, job.recording?.sessionId ?? ''));
    const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    await recordMedia(t, recordingId, [job.participantId, 'notary'], at(20), start);
    await recordMedia(t, recordingId, ['notary'], new Date(), at(45));
    expect((await kit.call(signer, 'POST', `${job.base}/${job.fieldId}/fill`, { version: 1 })).statusCode).toBe(200);
    await recordMedia(t, recordingId, ['notary']);
    await job.complete();
    const refused = await job.seal();
    expect(refused.statusCode).toBe(409);
    const { error, message } = refused.json() as { error: string; message: string };
    expect(error).toBe('recording_interrupted');
    expect(message).toContain(
      `Sealing is blocked: Nora Notary (notary) was out of the recorded call ${formatRecordSpan(at(20), at(45))} (25 seconds); Sam Signer (signer) was out of the recorded call `,
    );
    expect(message).toContain(
      'Virginia requires the electronic notary to keep a copy of the recording of the video and audio conference (Va. Code § 47.1-14(C)) and sets no number of seconds; this platform allows at most 10 seconds (a platform rule, not a statute).',
    );
    await notSealed(job.jobId);
  });

  it('seals a job on which nothing was filled without a recording, saying on every page that no session was recorded', async () => {
    const job = await prepareJob({ isRecorded: false });
    await kit.call(notary, 'DELETE', `${job.base}/${job.fieldId}`);
    await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/signers/${job.participantId}/id-bypass`, {
      enabled: true,
      reason: 'Identity step not under test here',
      method: 'personal_knowledge',
    });
    await job.complete();
    const sealed = await job.seal();
    expect(sealed.statusCode, sealed.body).toBe(200);
    expect(sealed.json().items[0]).toMatchObject({ isNotarialAct: false, notNotarialReasons: ['No audio-video session was recorded.'] });
    const audit = await auditText(sealed);
    expect(audit).toContain('None: no audio-video session was recorded');
    expect(audit).not.toContain('Out of the recorded call');
  });
});

describe('findUncovered', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, seconds));
  const segment = (from: number, to: number) => ({ startedAt: at(from), endedAt: at(to) });

  it('finds stretches longer than the limit at the start, between segments and at the end, and none inside overlaps', () => {
    expect(findUncovered([segment(0, 4), segment(4, 8), segment(2, 9)], at(0), at(12), 10_000)).toEqual([]);
    expect(findUncovered([segment(12, 16), segment(16, 20), segment(31, 35)], at(0), at(50), 10_000)).toEqual([
      { from: at(0), to: at(12) },
      { from: at(20), to: at(31) },
      { from: at(35), to: at(50) },
    ]);
    expect(findUncovered([], at(0), at(30), 10_000)).toEqual([{ from: at(0), to: at(30) }]);
    expect(findUncovered([segment(0, 4), segment(14, 18)], at(0), at(18), 10_000)).toEqual([]);
    // A segment that starts after the end closes the stretch at the end, not at its start.
    expect(findUncovered([segment(0, 4), segment(40, 44)], at(0), at(20), 10_000)).toEqual([{ from: at(4), to: at(20) }]);
  });
});
