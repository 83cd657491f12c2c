import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecordings } from '#shared/recording-playback.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { makeWebm, recordMedia } from '#test/live-session.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import { parseByteRange } from './recording-playback.service.ts';

let t: TestApp;
let kit: JobKit;
let cast: VideoCast;
let admin: TestUser;
let recording: { sessionId: string; recordingId: string };
let other: { cast: VideoCast; segmentId: string };

/** A cast whose session is started and recorded, with real segments of the signer and the notary stored. */
async function recordedCast() {
  const people = await castVideoJob(t, kit);
  const started = await kit.startRecordedSession(people.notary, people.job.id, [people.signer, people.witness]);
  await recordMedia(t, started.recordingId, [people.idOf(people.signer), 'notary'], new Date(Date.now() + 6000));
  return { people, started };
}

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'] });
  ({ people: cast, started: recording } = await recordedCast());
  const second = await recordedCast();
  const listed = (await kit.call(second.people.notary, 'GET', `/api/jobs/${second.people.job.id}/recordings`)).json() as JobRecordings;
  other = { cast: second.people, segmentId: listed.recordings[0]?.tracks[0]?.segments[0]?.segmentId ?? '' };
}, 120_000);
afterAll(async () => t?.close());

const listUrl = () => `/api/jobs/${cast.job.id}/recordings`;

describe('GET /api/jobs/{id}/recordings', () => {
  it('gives the job’s notary every participant’s track in order, with hashes, and the audit events as markers', async () => {
    const res = await kit.call(cast.notary, 'GET', listUrl());
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as JobRecordings;
    expect(body).toMatchObject({ jobId: cast.job.id, retentionYears: 10 });
    expect(body.recordings).toHaveLength(1);
    const [only] = body.recordings;
    expect(only).toMatchObject({ recordingId: recording.recordingId, sessionId: recording.sessionId, status: 'recording', stoppedAt: null, keptUntil: null });
    expect(only?.tracks.map((track) => [track.name, track.role]).sort()).toEqual(
      [
        [cast.notary.name, 'notary'],
        [cast.signer.name, 'signer'],
      ].sort(),
    );
    const webmSha = createHash('sha256')
      .update(await makeWebm())
      .digest('hex');
    for (const track of only?.tracks ?? []) {
      expect(track.segments.length).toBeGreaterThanOrEqual(2);
      expect(track.segments.map((segment) => segment.sequence)).toEqual(track.segments.map((_, index) => index));
      for (const segment of track.segments)
        expect(segment).toMatchObject({ sha256: webmSha, url: `/api/jobs/${cast.job.id}/recordings/segments/${segment.segmentId}` });
      // Each segment starts where the one before ended.
      track.segments.slice(1).forEach((segment, index) => expect(segment.startedAt).toBe(track.segments[index]?.endedAt));
    }
    const actions = body.markers.map((marker) => marker.action);
    expect(actions).toEqual(expect.arrayContaining(['job.created', 'video.joined', 'video.admitted', 'video.started', 'recording.started']));
    expect(actions).not.toContain('recording.segment_saved');
    expect(body.markers.find((marker) => marker.action === 'recording.started')?.actorName).toBe(cast.notary.name);
  });

  it('states how long a stopped recording is kept, and lets administrators watch too', async () => {
    const people = await castVideoJob(t, kit);
    const started = await kit.startRecordedSession(people.notary, people.job.id, [people.signer]);
    const stopped = await kit.call(people.notary, 'POST', '/api/video/recording/stop', started);
    expect(stopped.statusCode).toBe(200);
    const res = await kit.call(admin, 'GET', `/api/jobs/${people.job.id}/recordings`);
    expect(res.statusCode, res.body).toBe(200);
    const [only] = (res.json() as JobRecordings).recordings;
    const stoppedAt = new Date(stopped.json().stoppedAt as string);
    const keptUntil = new Date(stoppedAt);
    keptUntil.setUTCFullYear(keptUntil.getUTCFullYear() + 10);
    expect(only).toMatchObject({ status: 'stopped', keptUntil: keptUntil.toISOString(), tracks: [] });
  });

  it('refuses everyone else on the job with 403, strangers and other notaries with 404, anonymous callers with 401 and a bad id with 400', async () => {
    for (const person of [cast.signer, cast.witness, cast.observer, cast.agent]) {
      const res = await kit.call(person, 'GET', listUrl());
      expect(res.statusCode, person.email).toBe(403);
      expect(res.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary and administrators may watch its recordings.' });
    }
    for (const person of [cast.stranger, other.cast.notary]) expect((await kit.call(person, 'GET', listUrl())).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: listUrl() })).statusCode).toBe(401);
    const bad = await kit.call(cast.notary, 'GET', '/api/jobs/job-1/recordings');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'Job id must be a UUID.' });
    expect((await kit.call(cast.notary, 'GET', '/api/jobs/00000000-0000-4000-8000-000000000000/recordings')).statusCode).toBe(404);
  });
});

describe('GET /api/jobs/{id}/recordings/segments/{segmentId}', () => {
  let segmentUrl: string;
  beforeAll(async () => {
    const body = (await kit.call(cast.notary, 'GET', listUrl())).json() as JobRecordings;
    segmentUrl = body.recordings[0]?.tracks[0]?.segments[0]?.url ?? '';
  });

  it('streams the stored WebM, which decodes, and answers byte ranges', async () => {
    const webm = await makeWebm();
    const res = await kit.call(cast.notary, 'GET', segmentUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('video/webm');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.rawPayload.equals(webm)).toBe(true);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-playback-'));
    try {
      fs.writeFileSync(path.join(directory, 'segment.webm'), res.rawPayload);
      const { stdout } = await promisify(execFile)('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_name,width,height',
        '-of',
        'csv=p=0',
        path.join(directory, 'segment.webm'),
      ]);
      expect(stdout.trim()).toBe('vp8,160,120');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }

    const first = await kit.call(cast.notary, 'GET', segmentUrl, undefined, { range: 'bytes=0-99' });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-99/${webm.length}`);
    expect(first.rawPayload.equals(webm.subarray(0, 100))).toBe(true);
    const tail = await kit.call(cast.notary, 'GET', segmentUrl, undefined, { range: 'bytes=-10' });
    expect(tail.rawPayload.equals(webm.subarray(webm.length - 10))).toBe(true);
    const outside = await kit.call(cast.notary, 'GET', segmentUrl, undefined, { range: `bytes=${webm.length}-` });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${webm.length}`);
    expect((await kit.call(admin, 'GET', segmentUrl)).statusCode).toBe(200);
  });

  it('refuses the job’s other people, strangers, another job’s segment and bad ids', async () => {
    for (const person of [cast.signer, cast.observer, cast.agent]) expect((await kit.call(person, 'GET', segmentUrl)).statusCode).toBe(403);
    expect((await kit.call(cast.stranger, 'GET', segmentUrl)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: segmentUrl })).statusCode).toBe(401);
    // A segment of another job, asked for through this job: the notary of this job gets nothing.
    const crossed = await kit.call(cast.notary, 'GET', `/api/jobs/${cast.job.id}/recordings/segments/${other.segmentId}`);
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json()).toEqual({ error: 'not_found', message: 'No recording segment with that id on this job.' });
    expect((await kit.call(other.cast.notary, 'GET', `/api/jobs/${other.cast.job.id}/recordings/segments/${other.segmentId}`)).statusCode).toBe(200);
    const bad = await kit.call(cast.notary, 'GET', `/api/jobs/${cast.job.id}/recordings/segments/segment-1`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ message: 'Segment id must be a UUID.' });
  });
});

describe('parseByteRange', () => {
  it('reads one range, clamps its end, and refuses what lies outside the file', () => {
    expect(parseByteRange(undefined, 100)).toBeNull();
    expect(parseByteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseByteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(parseByteRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=9-3', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseByteRange('items=0-1', 100)).toBeNull();
  });
});
