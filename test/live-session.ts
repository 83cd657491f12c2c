import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, desc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { recordingSegments, recordings } from '#server/db/schema/index.ts';
import { storeRecordingSegment } from '#server/features/video/recording/recordings.service.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import type { TestApp } from './create-test-app.ts';

type Headers = Record<string, string>;

/**
 * A live session the way the notary runs one, through the real routes: open it, enter it, let the
 * signers in (each let past the identity step by the notary's personal knowledge), open the room, start it
 * (the job moves to in session) and start the recording.
 * `signers` are people on the job who accepted their invitation (their job participant ids).
 */
export async function startRecordedSession(t: TestApp, jobId: string, notary: Headers, signers: Array<{ headers: Headers; participantId: string }>) {
  const call = async (headers: Headers, url: string, payload: Record<string, unknown> = {}, expected = [200]) => {
    const res = await t.app.inject({ method: 'POST', url, headers, payload });
    expect(expected, `${url}: ${res.body}`).toContain(res.statusCode);
    return res.json() as Record<string, unknown>;
  };
  const opened = await call(notary, '/api/video/session', { jobId }, [200, 201]);
  const sessionId = String(opened.sessionId);
  await call(notary, `/api/jobs/${jobId}/session/join`, { consentToRecording: true, deviceGroupId: 'notary-desk' });
  const base = `/api/video/session/${sessionId}`;
  for (const [index, signer] of signers.entries()) {
    // Identified by the notary's personal knowledge (a bypass the state allows), so they may enter.
    await call(notary, `/api/jobs/${jobId}/signers/${signer.participantId}/id-bypass`, {
      enabled: true,
      reason: 'Identity step not under test here',
      method: 'personal_knowledge',
    });
    await call(signer.headers, `/api/jobs/${jobId}/session/join`, { consentToRecording: true, deviceGroupId: `signer-${index}` });
    await call(notary, `${base}/participants/${signer.participantId}/admit`);
  }
  await call(notary, `${base}/activate/notary-desk`);
  await call(notary, `${base}/start`);
  const recording = await call(notary, '/api/video/recording/start', { sessionId }, [201]);
  return { sessionId, recordingId: String(recording.recordingId) };
}

let webm: Promise<Buffer> | null = null;

/** A real two-second VP8 WebM made by Debian's ffmpeg, once per test file. */
export function makeWebm(): Promise<Buffer> {
  webm ??= (async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-webm-'));
    const file = path.join(directory, 'testsrc.webm');
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=10',
      '-t',
      '2',
      '-c:v',
      'libvpx',
      '-b:v',
      '100k',
      '-y',
      file,
    ]);
    const bytes = fs.readFileSync(file);
    fs.rmSync(directory, { recursive: true, force: true });
    return bytes;
  })();
  return webm;
}

const quietLog = { warn: () => undefined, error: () => undefined };

/**
 * Stores real WebM segments of each participant through storeRecordingSegment, as the media hub
 * does, covering from where that participant's last stored segment ended (or the recording's
 * start, or `from`) until `until`, in pieces of at most four seconds. Returns how many were stored.
 */
export async function recordMedia(t: TestApp, recordingId: string, participantIds: string[], until: Date = new Date(), from?: Date): Promise<number> {
  const bytes = await makeWebm();
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const [recording] = await t.db.select().from(recordings).where(eq(recordings.id, recordingId)).limit(1);
  if (!recording) throw new Error(`no recording ${recordingId}`);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-segments-'));
  const deps = { db: t.db, storage: createLocalStorage(t.blobRoot), log: quietLog };
  let stored = 0;
  try {
    for (const participantId of participantIds) {
      const [last] = await t.db
        .select()
        .from(recordingSegments)
        .where(and(eq(recordingSegments.recordingId, recordingId), eq(recordingSegments.participantId, participantId)))
        .orderBy(desc(recordingSegments.sequence))
        .limit(1);
      let sequence = last ? last.sequence + 1 : 0;
      let startedAt = from ?? last?.endedAt ?? recording.startedAt;
      while (startedAt.getTime() < until.getTime()) {
        const endedAt = new Date(Math.min(until.getTime(), startedAt.getTime() + 4000));
        const filePath = path.join(directory, `${participantId}-${sequence}.webm`);
        fs.writeFileSync(filePath, bytes);
        await storeRecordingSegment(deps, recordingId, { participantId, sequence, filePath, sha256, bytes: bytes.length, startedAt, endedAt });
        stored += 1;
        sequence += 1;
        startedAt = endedAt;
      }
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
  return stored;
}
