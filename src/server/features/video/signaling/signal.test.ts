import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalCloseCodes } from '#shared/video-signaling.ts';
import { recordingSegments } from '#server/db/schema/index.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { eventually, launchMediaBrowser, type MediaBrowser } from '#test/chromium-participant.ts';
import { type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startSignalApp, type SignalApp } from '#test/signal-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { connectNodeSignal, connectWithHello, openSignalPage, sessionTokenOf, type NodeSignal, type SignalPage } from '#test/signal-client.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import { signVideoToken } from './video-token.ts';

let app: SignalApp;
let t: TestApp;
let kit: JobKit;
let hub: VideoProvider;
let media: MediaBrowser;
let baseUrl: string;
let dataDir: string;
beforeAll(async () => {
  app = await startSignalApp('ron-signal-');
  ({ t, hub, baseUrl, dataDir } = app);
  kit = createJobKit(t);
  media = await launchMediaBrowser();
}, 60_000);
afterAll(async () => {
  await media?.close();
  await app?.close();
});

const consent = (deviceGroupId: string) => ({ consentToRecording: true, deviceGroupId });
const deviceOf = (person: TestUser) => `device-${person.id.slice(0, 8)}`;

interface Session extends VideoCast {
  sessionId: string;
  tokenOf(person: TestUser): Promise<string>;
  cookieOf(person: TestUser): Promise<string>;
}

/** A started session: the notary in, the signer admitted; the witness waits in the lobby. */
async function startSession(): Promise<Session> {
  const cast = await castVideoJob(t, kit);
  const opened = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
  const sessionId = opened.json().sessionId as string;
  for (const person of [cast.notary, cast.signer, cast.witness]) {
    const joined = await kit.call(person, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent(deviceOf(person)));
    expect(joined.statusCode, joined.body).toBe(200);
  }
  const base = `/api/video/session/${sessionId}`;
  for (const url of [`${base}/participants/${cast.idOf(cast.signer)}/admit`, `${base}/activate/${deviceOf(cast.notary)}`, `${base}/start`]) {
    const res = await kit.call(cast.notary, 'POST', url);
    expect(res.statusCode, res.body).toBe(200);
  }
  const participantIdOf = (person: TestUser) => (person.id === cast.notary.id ? 'notary' : cast.idOf(person));
  return {
    ...cast,
    sessionId,
    async tokenOf(person) {
      const role = person.id === cast.notary.id ? 'notary' : 'signer';
      const res = await kit.call(person, 'POST', '/api/video/token', {
        sessionId,
        role,
        participantId: participantIdOf(person),
        deviceGroupId: deviceOf(person),
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().token as string;
    },
    cookieOf: async (person) => sessionTokenOf(await t.signInAs(person)),
  };
}

/** A Node socket that said hello and got its welcome and first offer. */
async function connectAdmitted(session: Session, person: TestUser): Promise<NodeSignal> {
  return connectWithHello(baseUrl, await session.cookieOf(person), { sessionId: session.sessionId, token: await session.tokenOf(person) });
}

async function helloWith(cookie: string, sessionId: string, token: string) {
  const signal = connectNodeSignal(baseUrl, cookie);
  await signal.opened;
  signal.send({ type: 'hello', sessionId, token });
  return signal.closed;
}

async function segmentsOf(recordingId: string) {
  return t.db.select().from(recordingSegments).where(eq(recordingSegments.recordingId, recordingId));
}

async function auditOf(session: Session) {
  const res = await kit.call(session.notary, 'GET', `/api/jobs/${session.job.id}/audit`);
  return (res.json() as { events: Array<{ action: string; data: Record<string, unknown> }> }).events;
}

describe('the signaling socket with two browsers', () => {
  let session: Session;
  let notaryPage: SignalPage;
  let signerPage: SignalPage;
  beforeAll(async () => {
    session = await startSession();
    notaryPage = await openSignalPage(media, baseUrl, await session.cookieOf(session.notary));
    signerPage = await openSignalPage(media, baseUrl, await session.cookieOf(session.signer));
  }, 60_000);

  it('connects the notary and the admitted signer, who decode each other’s video and see each other in peers', async () => {
    await notaryPage.connect(session.sessionId, await session.tokenOf(session.notary));
    await signerPage.connect(session.sessionId, await session.tokenOf(session.signer));
    for (const page of [notaryPage, signerPage]) {
      await eventually(async () => {
        const state = await page.state();
        if (process.env.SIGNAL_DEBUG) console.log(JSON.stringify({ ...state, welcome: null }));
        expect(state.errors).toEqual([]);
        expect(state.framesDecoded).toBeGreaterThan(10);
        expect(state.peers.map((peer) => [peer.participantId, peer.connectionState, peer.isAway])).toEqual([
          ['notary', 'connected', false],
          [session.idOf(session.signer), 'connected', false],
        ]);
      }, 30_000);
    }
    const state = await signerPage.state();
    expect(state.types.slice(0, 2)).toEqual(['welcome', 'offer']);
    expect(state.welcome).toMatchObject({ participantId: session.idOf(session.signer), role: 'signer', iceTransportPolicy: 'all' });
    expect(state.recording).toBeNull();
    expect(state.peers.find((peer) => peer.role === 'signer')?.name).toBe(session.signer.name);

    await signerPage.send({ type: 'media-state', audioMuted: true, videoOff: false });
    await eventually(async () => expect((await notaryPage.state()).peers.find((peer) => peer.role === 'signer')?.audioMuted).toBe(true));
  }, 60_000);

  it('records the room in segments stored with their SHA-256 in the audit chain, flushes them on stop and records nothing after', async () => {
    const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
    expect(started.statusCode, started.body).toBe(201);
    const { recordingId } = started.json() as { recordingId: string };
    for (const page of [notaryPage, signerPage]) await eventually(async () => expect((await page.state()).recording?.recordingId).toBe(recordingId));
    await eventually(async () => expect(new Set((await segmentsOf(recordingId)).map((row) => row.participantId)).size).toBe(2), 40_000);

    const stopped = await kit.call(session.notary, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId });
    expect(stopped.statusCode, stopped.body).toBe(200);
    const rows = await segmentsOf(recordingId);
    expect(stopped.json().segmentCount).toBe(rows.length);
    for (const page of [notaryPage, signerPage]) await eventually(async () => expect((await page.state()).recording).toBeNull());

    const saved = (await auditOf(session)).filter((event) => event.action === 'recording.segment_saved' && event.data.recordingId === recordingId);
    expect(saved.map((event) => event.data.sha256).sort()).toEqual(rows.map((row) => row.sha256).sort());
    const storage = createLocalStorage(t.blobRoot);
    const file = path.join(dataDir, 'probe.webm');
    fs.writeFileSync(file, await storage.read(rows[0]?.storageKey ?? ''));
    const probe = await promisify(execFile)('/usr/bin/ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=codec_name,nb_read_frames',
      '-of',
      'csv=p=0',
      file,
    ]);
    const [codec, frames] = probe.stdout.trim().split(',');
    expect(codec).toBe('vp8');
    expect(Number(frames)).toBeGreaterThan(0);
    // The temp files are gone once stored.
    expect(fs.existsSync(path.join(dataDir, 'recording-segments', recordingId))).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await segmentsOf(recordingId)).length).toBe(rows.length);
  }, 90_000);

  it('ends every socket with 4410 on finalize and stops the running recording', async () => {
    const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
    const { recordingId } = started.json() as { recordingId: string };
    await eventually(async () => expect((await segmentsOf(recordingId)).length).toBeGreaterThan(0), 40_000);
    const finalized = await kit.call(session.notary, 'POST', `/api/video/session/${session.sessionId}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    for (const page of [notaryPage, signerPage]) await eventually(async () => expect((await page.state()).closeCode).toBe(signalCloseCodes.sessionEnded));
    const stops = (await auditOf(session)).filter((event) => event.action === 'recording.stopped' && event.data.recordingId === recordingId);
    expect(stops).toHaveLength(1);
    expect(stops[0]?.data.segmentCount).toBe((await segmentsOf(recordingId)).length);
    expect(hub.findRoom(session.sessionId)).toBeUndefined();
  }, 60_000);
});

describe('refusals and closes of the signaling socket', () => {
  let session: Session;
  beforeAll(async () => {
    session = await startSession();
  }, 60_000);

  it('closes a socket that says nothing (4400, after the hello time) or sends something unreadable (4400)', async () => {
    const silent = connectNodeSignal(baseUrl, await session.cookieOf(session.notary));
    await silent.opened;
    const openedAt = Date.now();
    const unreadable = connectNodeSignal(baseUrl, await session.cookieOf(session.notary));
    await unreadable.opened;
    unreadable.send('not json');
    expect((await unreadable.closed).code).toBe(signalCloseCodes.badMessage);
    expect((await silent.closed).code).toBe(signalCloseCodes.badMessage);
    expect(Date.now() - openedAt).toBeGreaterThan(9000);
  }, 20_000);

  it('refuses a stranger, someone else’s token, an expired token and a person still waiting in the lobby (4403)', async () => {
    const signerToken = await session.tokenOf(session.signer);
    const claimsOf = (person: TestUser, participantId: string) => ({
      userId: person.id,
      sessionId: session.sessionId,
      participantId,
      deviceGroupId: deviceOf(person),
      role: 'signer' as const,
    });
    // Signed by the server's key for the stranger: only the database recheck refuses them.
    const strangerToken = signVideoToken(t.secretsKey, claimsOf(session.stranger, session.idOf(session.signer))).token;
    const expired = signVideoToken(t.secretsKey, claimsOf(session.signer, session.idOf(session.signer)), Date.now() - 10 * 60_000).token;
    const waitingToken = signVideoToken(t.secretsKey, { ...claimsOf(session.witness, session.idOf(session.witness)), role: 'witness' }).token;
    const closes = await Promise.all([
      helloWith(await session.cookieOf(session.stranger), session.sessionId, strangerToken),
      helloWith(await session.cookieOf(session.witness), session.sessionId, signerToken),
      helloWith(await session.cookieOf(session.signer), session.sessionId, expired),
      helloWith(await session.cookieOf(session.witness), session.sessionId, waitingToken),
    ]);
    expect(closes.map((close) => close.code)).toEqual([4403, 4403, 4403, 4403]);
    expect(hub.findRoom(session.sessionId)?.participantIds() ?? []).toEqual([]);
  }, 20_000);

  it('replaces a second socket of the same person (4409), and closes on sign-out (4401) and on deny (4403)', async () => {
    const first = await connectAdmitted(session, session.notary);
    const second = await connectAdmitted(session, session.notary);
    expect((await first.closed).code).toBe(signalCloseCodes.replaced);
    const signer = await connectAdmitted(session, session.signer);
    await eventually(() => {
      const peers = second.messages.filter((message) => message.type === 'peers').at(-1);
      expect(peers?.type === 'peers' && peers.peers.every((peer) => !peer.isAway)).toBe(true);
    });

    const denied = await kit.call(session.notary, 'POST', `/api/video/session/${session.sessionId}/participants/${session.idOf(session.signer)}/deny`);
    expect(denied.statusCode).toBe(200);
    expect((await signer.closed).code).toBe(signalCloseCodes.refused);
    await eventually(() => expect(hub.findRoom(session.sessionId)?.participantIds()).toEqual(['notary']));

    const cookie = await session.cookieOf(session.notary);
    const notary = connectNodeSignal(baseUrl, cookie);
    await notary.opened;
    notary.send({ type: 'hello', sessionId: session.sessionId, token: await session.tokenOf(session.notary) });
    await eventually(() => expect(notary.messages.map((message) => message.type)).toContain('offer'));
    expect((await second.closed).code).toBe(signalCloseCodes.replaced);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${cookie}` } });
    expect(out.statusCode).toBe(200);
    expect((await notary.closed).code).toBe(signalCloseCodes.signedOut);
  }, 30_000);

  it('announces video.changed on the job channel when the lobby or the recording changes', async () => {
    const heard: string[] = [];
    const unsubscribe = await t.realtime.subscribe(`job:${session.job.id}`, (message) => heard.push(message));
    const changes = () => heard.filter((message) => message === JSON.stringify({ type: 'video.changed' })).length;
    // Each change is announced (at least once: through Redis a message of an earlier test may arrive late).
    let seen = 0;
    const announced = async () => {
      await eventually(() => expect(changes()).toBeGreaterThan(seen));
      seen = changes();
    };
    const base = `/api/video/session/${session.sessionId}`;
    expect((await kit.call(session.notary, 'POST', `${base}/participants/${session.idOf(session.witness)}/admit`)).statusCode).toBe(200);
    await announced();
    expect((await kit.call(session.witness, 'POST', `/api/jobs/${session.job.id}/session/join`, consent(deviceOf(session.witness)))).statusCode).toBe(200);
    await announced();
    const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
    expect(started.statusCode, started.body).toBe(201);
    await announced();
    const canEnter = await kit.call(session.witness, 'GET', `/api/jobs/${session.job.id}/can-enter`);
    expect(canEnter.json().session.recording.recordingId).toBe(started.json().recordingId);
    const stopped = await kit.call(session.notary, 'POST', '/api/video/recording/stop', {
      sessionId: session.sessionId,
      recordingId: started.json().recordingId,
    });
    expect(stopped.statusCode, stopped.body).toBe(200);
    await announced();
    // Nobody was connected: the recording opened the media room and its end closed it.
    expect(hub.findRoom(session.sessionId)).toBeUndefined();
    await unsubscribe();
  }, 30_000);

  it('refuses to stop a recording for anyone but the notary, and leaves it running', async () => {
    const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
    const recordingId = started.json().recordingId as string;
    const bySigner = await kit.call(session.signer, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId });
    expect(bySigner.statusCode).toBe(403);
    const byStranger = await kit.call(session.stranger, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId });
    expect(byStranger.statusCode).toBe(404);
    expect(hub.findRoom(session.sessionId)).toBeDefined();
    const stopped = await kit.call(session.notary, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId });
    expect(stopped.statusCode).toBe(200);
  });
});
