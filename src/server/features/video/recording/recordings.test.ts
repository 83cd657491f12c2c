import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { Job } from '#shared/jobs.ts';
import type { Recording } from '#shared/video.ts';
import { parseConfig } from '#server/config.ts';
import { auditEvents, recordingSegments } from '#server/db/schema/index.ts';
import { createLocalStorage, type StorageProvider } from '#server/providers/storage/storage.ts';
import type { RecordedSegment } from '#server/providers/video/segment-recorder.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { canDeleteRecording, canDeleteRecordingSegment } from './recording-retention.ts';
import { storeRecordingSegment } from './recordings.service.ts';

let t: TestApp;
let kit: JobKit;
let workDir: string;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-recordings-'));
});
afterAll(async () => {
  await t?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

interface Cast {
  job: Job;
  agent: TestUser;
  notary: TestUser;
  signer: TestUser;
  stranger: TestUser;
  signerId: string;
}

const consent = (deviceGroupId: string) => ({ consentToRecording: true, deviceGroupId });

/** A ready job with a notary and a signer who accepted; the notary opened the session and entered it. */
async function castSession(): Promise<Cast & { sessionId: string }> {
  const agent = await t.createUser({ roles: ['title_agent'] });
  const notary = await kit.createNotary();
  const signer = await t.createUser({ roles: ['signer'] });
  const stranger = await t.createUser({ roles: ['signer'] });
  const created = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email, role: 'signer' }] });
  await kit.uploadPdf(agent, created.id);
  const job = await kit.moveJob(agent, created.id, ['ready']);
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const signerId = job.participants.find((participant) => participant.email === signer.email)?.id ?? '';
  const opened = await kit.call(notary, 'POST', '/api/video/session', { jobId: job.id });
  expect(opened.statusCode, opened.body).toBe(201);
  expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/session/join`, consent('notary-desk'))).statusCode).toBe(200);
  return { job, agent, notary, signer, stranger, signerId, sessionId: opened.json().sessionId as string };
}

/** Admits the signer, opens the room and starts the session (the notarial act begins). */
async function startSession(cast: Cast & { sessionId: string }) {
  // Identity is not what these tests are about: the notary lets the signer past it (a bypass without a method).
  expect(
    (
      await kit.call(cast.notary, 'POST', `/api/jobs/${cast.job.id}/signers/${cast.signerId}/id-bypass`, {
        enabled: true,
        reason: 'Identity step not under test here',
        method: 'personal_knowledge',
      })
    ).statusCode,
  ).toBe(200);
  expect((await kit.call(cast.signer, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent('laptop-1'))).statusCode).toBe(200);
  const base = `/api/video/session/${cast.sessionId}`;
  for (const url of [`${base}/participants/${cast.signerId}/admit`, `${base}/activate/notary-desk`, `${base}/start`]) {
    const res = await kit.call(cast.notary, 'POST', url);
    expect(res.statusCode, res.body).toBe(200);
  }
}

const anonymous = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url, payload });

async function trailOf(cast: Cast) {
  const res = await kit.call(cast.notary, 'GET', `/api/jobs/${cast.job.id}/audit`);
  expect(res.statusCode).toBe(200);
  return res.json() as {
    events: Array<{ action: string; actorName: string | null; actorId: string | null; data: Record<string, unknown> }>;
    verification: { isValid: boolean };
  };
}

describe('POST /api/video/recording/start and /stop', () => {
  it('refuses anonymous callers, bad input, strangers and everyone but the job’s notary', async () => {
    const cast = await castSession();
    const start = '/api/video/recording/start';
    expect((await anonymous(start, { sessionId: cast.sessionId })).statusCode).toBe(401);
    const bad = await kit.call(cast.notary, 'POST', start, { sessionId: 'session-1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'sessionId must be a UUID.' });
    const missing = await kit.call(cast.notary, 'POST', '/api/video/recording/stop', { sessionId: cast.sessionId });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'validation_failed', message: expect.stringContaining('recordingId') });

    expect((await kit.call(cast.stranger, 'POST', start, { sessionId: cast.sessionId })).statusCode).toBe(404);
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'POST', start, { sessionId: cast.sessionId })).statusCode).toBe(404);
    for (const person of [cast.agent, cast.signer]) {
      const res = await kit.call(person, 'POST', start, { sessionId: cast.sessionId });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary may start the recording.' });
    }
    expect((await kit.call(cast.notary, 'POST', start, { sessionId: cast.job.id })).statusCode).toBe(404);

    // Only a started session is recorded.
    const early = await kit.call(cast.notary, 'POST', start, { sessionId: cast.sessionId });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toEqual({ error: 'conflict', message: 'Start the session before recording it.' });
    expect((await trailOf(cast)).events.filter((event) => event.action.startsWith('recording.'))).toEqual([]);
  });

  it('lets the notary start one recording at a time and stop it, records both in the audit trail, and claims no media', async () => {
    const cast = await castSession();
    await startSession(cast);
    const started = await kit.call(cast.notary, 'POST', '/api/video/recording/start', { sessionId: cast.sessionId });
    expect(started.statusCode, started.body).toBe(201);
    const recording = started.json() as Recording;
    expect(recording).toMatchObject({ sessionId: cast.sessionId, status: 'recording', stoppedAt: null, segmentCount: 0 });
    expect(recording.recordingId).toMatch(/^[0-9a-f-]{36}$/);

    const twice = await kit.call(cast.notary, 'POST', '/api/video/recording/start', { sessionId: cast.sessionId });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({ error: 'conflict', message: 'A recording of this session is already running.' });

    const stopUrl = '/api/video/recording/stop';
    const body = { recordingId: recording.recordingId, sessionId: cast.sessionId };
    expect((await anonymous(stopUrl, body)).statusCode).toBe(401);
    const bySigner = await kit.call(cast.signer, 'POST', stopUrl, body);
    expect(bySigner.statusCode).toBe(403);
    expect(bySigner.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary may stop the recording.' });
    expect((await kit.call(cast.stranger, 'POST', stopUrl, body)).statusCode).toBe(404);

    // Another session's notary cannot stop this recording through their own session.
    const other = await castSession();
    const crossed = await kit.call(other.notary, 'POST', stopUrl, { recordingId: recording.recordingId, sessionId: other.sessionId });
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json()).toEqual({ error: 'not_found', message: 'No recording with that id in this session.' });
    expect((await kit.call(other.notary, 'POST', stopUrl, body)).statusCode).toBe(404);

    const stopped = await kit.call(cast.notary, 'POST', stopUrl, body);
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json()).toMatchObject({ recordingId: recording.recordingId, status: 'stopped', segmentCount: 0 });
    expect(Date.parse(stopped.json().stoppedAt)).toBeGreaterThanOrEqual(Date.parse(recording.startedAt));
    const again = await kit.call(cast.notary, 'POST', stopUrl, body);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'This recording has already stopped.' });

    // A new recording may start once the first stopped.
    const second = await kit.call(cast.notary, 'POST', '/api/video/recording/start', { sessionId: cast.sessionId });
    expect(second.statusCode).toBe(201);
    expect(second.json().recordingId).not.toBe(recording.recordingId);

    const trail = await trailOf(cast);
    expect(trail.verification.isValid).toBe(true);
    const sentences = trail.events.filter((event) => event.action.startsWith('recording.')).map((event) => describeAuditEvent(event));
    expect(sentences).toEqual([
      `${cast.notary.name} started recording the live session.`,
      `${cast.notary.name} stopped recording the live session; no recorded media had been stored by then.`,
      `${cast.notary.name} started recording the live session.`,
    ]);
  });
});

describe('storeRecordingSegment', () => {
  let webm: Buffer;
  let cast: Cast & { sessionId: string };
  let recordingId: string;
  beforeAll(async () => {
    // A real VP8 WebM, as the segment recorder writes, made once by ffmpeg.
    const source = path.join(workDir, 'source.webm');
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-c:v',
      'libvpx',
      '-b:v',
      '100k',
      '-y',
      source,
    ]);
    webm = fs.readFileSync(source);
    cast = await castSession();
    await startSession(cast);
    recordingId = ((await kit.call(cast.notary, 'POST', '/api/video/recording/start', { sessionId: cast.sessionId })).json() as Recording).recordingId;
  }, 60_000);

  const segmentOf = (name: string, participantId: string, sequence: number): RecordedSegment => {
    const filePath = path.join(workDir, name);
    fs.writeFileSync(filePath, webm);
    const startedAt = new Date('2026-11-23T10:00:00.000Z');
    return {
      participantId,
      sequence,
      filePath,
      sha256: createHash('sha256').update(webm).digest('hex'),
      bytes: webm.length,
      startedAt,
      endedAt: new Date(startedAt.getTime() + 4200),
    };
  };

  const logger = () => {
    const lines: Array<{ level: 'warn' | 'error'; message: string; object: unknown }> = [];
    return {
      lines,
      warn: (object: unknown, message: string) => void lines.push({ level: 'warn', message, object }),
      error: (object: unknown, message: string) => void lines.push({ level: 'error', message, object }),
    };
  };

  it('stores a real WebM segment under its SHA-256, with its row and an audit event naming the same hash', async () => {
    const storage = createLocalStorage(t.blobRoot);
    const log = logger();
    const segment = segmentOf('signer-000000.webm', cast.signerId, 0);
    const key = await storeRecordingSegment({ db: t.db, storage, log }, recordingId, segment);
    expect(log.lines).toEqual([]);

    const stored = await storage.read(key);
    expect(stored.equals(webm)).toBe(true);
    const storedSha = createHash('sha256').update(stored).digest('hex');
    expect(key).toBe(storedSha);

    const [row] = await t.db.select().from(recordingSegments).where(eq(recordingSegments.storageKey, key));
    expect(row).toMatchObject({ recordingId, participantId: cast.signerId, sequence: 0, sha256: storedSha, bytes: webm.length });

    const trail = await trailOf(cast);
    expect(trail.verification.isValid).toBe(true);
    const saved = trail.events.filter((event) => event.action === 'recording.segment_saved');
    expect(saved).toHaveLength(1);
    expect(saved[0]?.data).toMatchObject({ recordingId, participantId: cast.signerId, sequence: 0, sha256: storedSha, durationMs: 4200, bytes: webm.length });
    expect(describeAuditEvent(saved[0]!)).toBe(`Segment 1 of the recording of ${cast.signer.name} (4.2 seconds) was stored with SHA-256 ${storedSha}.`);
  });

  it('tries a failed store once more, logging the failure, and succeeds', async () => {
    const real = createLocalStorage(t.blobRoot);
    let failures = 0;
    const flaky: StorageProvider = {
      ...real,
      async putFile(filePath, sha256, contentType) {
        if (failures === 0) {
          failures += 1;
          throw new Error('storage unavailable');
        }
        return real.putFile(filePath, sha256, contentType);
      },
    };
    const log = logger();
    const key = await storeRecordingSegment({ db: t.db, storage: flaky, log }, recordingId, segmentOf('notary-000000.webm', 'notary', 0));
    expect(failures).toBe(1);
    expect(log.lines.map((line) => [line.level, line.message])).toEqual([['warn', 'Storing a recording segment failed; trying once more.']]);
    expect((await real.read(key)).equals(webm)).toBe(true);
    const saved = (await trailOf(cast)).events.filter((event) => event.action === 'recording.segment_saved' && event.data.participantId === 'notary');
    expect(saved.map((event) => event.data.sha256)).toEqual([key]);
    expect(describeAuditEvent(saved[0]!)).toContain(`of the recording of ${cast.notary.name} (4.2 seconds)`);
  });

  it('throws and logs an error when the second try fails too, storing no row and no event', async () => {
    const failing: StorageProvider = {
      ...createLocalStorage(t.blobRoot),
      async putFile() {
        throw new Error('storage unavailable');
      },
    };
    const log = logger();
    const before = (await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, cast.job.id))).length;
    await expect(storeRecordingSegment({ db: t.db, storage: failing, log }, recordingId, segmentOf('signer-000001.webm', cast.signerId, 1))).rejects.toThrow(
      'storage unavailable',
    );
    expect(log.lines.map((line) => line.level)).toEqual(['warn', 'error']);
    expect(log.lines[1]?.message).toBe('A recording segment could not be stored.');
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, cast.job.id))).length).toBe(before);
    const rows = await t.db.select().from(recordingSegments).where(eq(recordingSegments.recordingId, recordingId));
    expect(rows.map((row) => `${row.participantId}/${row.sequence}`).sort()).toEqual([`${cast.signerId}/0`, 'notary/0'].sort());
  });

  it('refuses a file that changed after it was reported', async () => {
    const segment = segmentOf('signer-000002.webm', cast.signerId, 2);
    fs.appendFileSync(segment.filePath, Buffer.from([0]));
    const log = logger();
    await expect(storeRecordingSegment({ db: t.db, storage: createLocalStorage(t.blobRoot), log }, recordingId, segment)).rejects.toThrow(/changed on disk/);
    expect(log.lines.map((line) => line.level)).toEqual(['warn', 'error']);
  });
});

describe('recording retention', () => {
  it('reads RECORDING_RETENTION_YEARS, 10 by default', () => {
    expect(parseConfig({}).video.recordingRetentionYears).toBe(10);
    expect(parseConfig({ RECORDING_RETENTION_YEARS: '7' }).video.recordingRetentionYears).toBe(7);
    expect(() => parseConfig({ RECORDING_RETENTION_YEARS: '0' })).toThrow(/RECORDING_RETENTION_YEARS/);
  });

  it('refuses to delete a running recording, or a stopped one or its segments before the retention ends', () => {
    const stoppedAt = new Date('2026-11-23T12:00:00.000Z');
    const stopped = { status: 'stopped' as const, stoppedAt };
    const segment = { endedAt: new Date('2026-11-23T11:59:58.000Z') };
    const running = { status: 'recording' as const, stoppedAt: null };
    const muchLater = new Date('2060-01-01T00:00:00.000Z');
    expect(canDeleteRecording(muchLater, running, 10)).toEqual({ canDelete: false, reason: 'A recording that is still running cannot be deleted.' });
    expect(canDeleteRecordingSegment(muchLater, segment, running, 10).canDelete).toBe(false);
    expect(canDeleteRecording(new Date('2036-11-23T11:59:59.999Z'), stopped, 10)).toEqual({
      canDelete: false,
      reason: 'This recording is kept for 10 years after it stopped, until 2036-11-23.',
    });
    expect(canDeleteRecordingSegment(new Date('2036-11-23T11:59:59.999Z'), segment, stopped, 10).canDelete).toBe(false);
    expect(canDeleteRecording(new Date('2036-11-23T12:00:00.000Z'), stopped, 10)).toEqual({ canDelete: true });
    expect(canDeleteRecordingSegment(new Date('2036-11-23T12:00:00.000Z'), segment, stopped, 10)).toEqual({ canDelete: true });
    expect(canDeleteRecording(new Date('2027-11-23T12:00:00.000Z'), stopped, 1)).toEqual({ canDelete: true });
  });
});
