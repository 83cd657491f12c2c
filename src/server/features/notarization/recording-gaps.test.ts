import { createHash } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notarizedDocuments, notaryProfiles, recordingSegments, recordings, videoSessionParticipants } from '#server/db/schema/index.ts';
import { readPdfText } from '#test/pdf-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';

/**
 * The certificate once said "no gaps longer than 10 seconds" while the notary's own
 * track had a 40-second hole, because a gap counted only when nobody's media was stored. Each
 * person's time out of the recorded call is now stated, and too long a one blocks the seal.
 */

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let signer: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  // A Texas commission: its row of the policy table decides how long an interruption may be.
  await t.db.update(notaryProfiles).set({ commissionState: 'TX', county: 'Travis' }).where(eq(notaryProfiles.userId, notary.id));
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  await kit.saveSignature(signer);
});
afterAll(async () => t?.close());

/**
 * A ready job with Sam on it, a recorded session that began `secondsAgo` seconds ago (the recording
 * and everyone's admission moved back that far) and one signature field for Sam.
 */
async function prepareRecordedJob(secondsAgo: number) {
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  const start = new Date(Date.now() - secondsAgo * 1000);
  await t.db.update(recordings).set({ startedAt: start }).where(eq(recordings.id, recording.recordingId));
  const admitted = new Date(start.getTime() - 1000);
  await t.db
    .update(videoSessionParticipants)
    .set({ joinedAt: admitted, decidedAt: admitted })
    .where(eq(videoSessionParticipants.sessionId, recording.sessionId));
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect(placed.statusCode, placed.body).toBe(201);
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
  const fill = async () => expect((await kit.call(signer, 'POST', `${base}/${placed.json().id as string}/fill`, { version: 1 })).statusCode).toBe(200);
  const seal = async () => {
    expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
    return kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
  };
  return { jobId: job.id, participantId, recordingId: recording.recordingId, at, fill, seal };
}

async function pdfText(sealed: { json(): { items: Array<{ downloadUrl: string }> } }): Promise<string> {
  return readPdfText((await kit.call(notary, 'GET', sealed.json().items[0]?.downloadUrl ?? '')).rawPayload);
}

const day = (date: Date) => new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' }).format(date);
const clock = (date: Date) => date.toISOString().slice(11, 19);
/** "on 26 November 2026 from 22:14:05 to 22:14:45 UTC", or both days in full across midnight. */
const span = (from: Date, to: Date) =>
  day(from) === day(to)
    ? `on ${day(from)} from ${clock(from)} to ${clock(to)} UTC`
    : `from ${day(from)} at ${clock(from)} UTC to ${day(to)} at ${clock(to)} UTC`;

describe('each person’s time out of the recorded call', () => {
  it('refuses to seal, with who, when and the rule, when the notary was out of the call for 40 seconds while the signer was recorded', async () => {
    const job = await prepareRecordedJob(90);
    await recordMedia(t, job.recordingId, [job.participantId]);
    await recordMedia(t, job.recordingId, ['notary'], job.at(20));
    await recordMedia(t, job.recordingId, ['notary'], new Date(), job.at(60));
    await job.fill();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    const refused = await job.seal();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'recording_interrupted',
      message:
        `Sealing is blocked: Nora Notary (notary) was out of the recorded call ${span(job.at(20), job.at(60))} (40 seconds). ` +
        'Texas requires continuous, synchronous audio-visual feeds and a recording of the session (1 Tex. Admin. Code § 87.71(1); § 87.41(g)) and sets no number of seconds; ' +
        'this platform allows at most 10 seconds (a platform rule, not a statute).',
    });
    expect((await kit.getJob(notary, job.jobId)).status).toBe('in_session');
    expect(await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.jobId))).toEqual([]);
  });

  it('states on the audit certificate each person’s interruptions, and "none" only for the one who had none', async () => {
    const job = await prepareRecordedJob(60);
    // The notary was recorded throughout; Sam dropped out for 8 seconds (under the limit), 30 s in.
    await recordMedia(t, job.recordingId, ['notary']);
    await recordMedia(t, job.recordingId, [job.participantId], job.at(30));
    await recordMedia(t, job.recordingId, [job.participantId], new Date(), job.at(38));
    await job.fill();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    const sealed = await job.seal();
    expect(sealed.statusCode, sealed.body).toBe(200);
    const text = await pdfText(sealed);
    const audit = text.slice(text.indexOf('AUDIT CERTIFICATE'));
    expect(audit).toContain('Out of the recorded call');
    expect(audit).toMatch(/Nora Notary \(notary\)[^.]*: none longer than 5 seconds\./);
    expect(audit).toContain(`Sam Signer (signer): ${span(job.at(30), job.at(38))} (8 seconds).`);
    expect(audit).not.toContain('Gaps in the recording: none');
    // Times on the certificate are written for people, never as ISO strings.
    expect(audit).not.toMatch(/\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/);
  });

  it('sums the recording up (count, time, one hash over every segment’s hash, each person’s share) and lists the segments in an appendix', async () => {
    const job = await prepareRecordedJob(20);
    await job.fill();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    const sealed = await job.seal();
    expect(sealed.statusCode, sealed.body).toBe(200);
    const segments = await t.db
      .select()
      .from(recordingSegments)
      .where(eq(recordingSegments.recordingId, job.recordingId))
      .orderBy(asc(recordingSegments.startedAt), asc(recordingSegments.participantId), asc(recordingSegments.sequence));
    expect(segments.length).toBeGreaterThan(4);
    const text = await pdfText(sealed);
    const audit = text.slice(text.indexOf('AUDIT CERTIFICATE'));
    const digest = createHash('sha256')
      .update(segments.map((segment) => segment.sha256).join('\n'))
      .digest('hex');
    expect(audit).toContain(`${segments.length} stored segments`);
    expect(audit).toContain(digest);
    const count = (participantId: string) => segments.filter((segment) => segment.participantId === participantId).length;
    expect(audit).toMatch(new RegExp(`Nora Notary \\(notary\\): ${count('notary')} segments covering \\d+ seconds? of the call`));
    expect(audit).toMatch(new RegExp(`Sam Signer \\(signer\\): ${count(job.participantId)} segments covering \\d+ seconds? of the call`));
    // The events list no segment; the appendix lists each one with its hash.
    const events = audit.slice(audit.indexOf('Events'), audit.indexOf('APPENDIX: RECORDING SEGMENTS'));
    expect(events).not.toContain('was stored with SHA-256');
    const appendix = audit.slice(audit.indexOf('APPENDIX: RECORDING SEGMENTS'));
    expect(appendix.split(segments[0]?.sha256 ?? '-').length - 1).toBe(segments.length);
  });
});
