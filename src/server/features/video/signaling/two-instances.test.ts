import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { signalCloseCodes } from '#shared/video-signaling.ts';
import { recordingSegments } from '#server/db/schema/index.ts';
import { eventually, launchMediaBrowser, type MediaBrowser } from '#test/chromium-participant.ts';
import type { TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { startSignalApp, type SignalApp } from '#test/signal-app.ts';
import { connectNodeSignal, connectWithHello, openSignalPage, sessionTokenOf, type SignalPage } from '#test/signal-client.ts';
import { castVideoJob } from '#test/video-cast.ts';
import { liveSessionsOf } from './live-sessions.ts';
import { homeKey } from './room-relay.ts';

const missing =
  process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL
    ? null
    : 'two-instances.test.ts skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (two app instances need one PostgreSQL and one Redis).';
if (missing) console.warn(missing);

/**
 * Two app instances of one deployment: one fresh PostgreSQL database, one Redis, each
 * instance with its own media hub, its own Redis connections and its own listening port, as two
 * machines behind a load balancer would be.
 */
describe.skipIf(missing !== null)('two app instances on one PostgreSQL and one Redis', () => {
  let a: SignalApp;
  let b: SignalApp;
  let kitA: JobKit;
  let kitB: JobKit;
  let media: MediaBrowser;
  const pages: SignalPage[] = [];

  beforeAll(async () => {
    a = await startSignalApp('ron-two-a-');
    b = await startSignalApp('ron-two-b-', { databaseOf: a.t });
    kitA = createJobKit(a.t);
    kitB = createJobKit(b.t);
    media = await launchMediaBrowser();
  }, 60_000);
  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => undefined);
    await media?.close();
    await b?.close();
    await a?.close();
  });

  async function openPage(instance: SignalApp, person: TestUser): Promise<SignalPage> {
    const page = await openSignalPage(media, instance.baseUrl, sessionTokenOf(await instance.t.signInAs(person)));
    pages.push(page);
    return page;
  }

  it('a change to a job through instance A reaches a browser on instance B through its live channel', async () => {
    const cast = await castVideoJob(a.t, kitA);
    const page = await openPage(b, cast.signer);
    // The page opens the job's live channel on B; on each `job.changed` it reads the job from B.
    await page.page.evaluate((jobId) => {
      const seen: { titles: string[]; closeCode: number | null } = { titles: [], closeCode: null };
      Object.assign(window, { liveSeen: seen });
      const socket = new WebSocket(`ws://${location.host}/api/jobs/${jobId}/live`);
      socket.addEventListener('close', (event) => (seen.closeCode = event.code));
      socket.addEventListener('message', (event) => {
        if ((JSON.parse(String(event.data)) as { type: string }).type !== 'job.changed') return;
        void fetch(`/api/jobs/${jobId}`)
          .then((res) => res.json())
          .then((job: { title: string }) => seen.titles.push(job.title));
      });
    }, cast.job.id);
    const seenOnB = () => page.page.evaluate(() => (window as unknown as { liveSeen: { titles: string[]; closeCode: number | null } }).liveSeen);
    // The socket joins the channel a moment after it opens: the agent edits the title through A
    // until a change lands in the page (each edit with the job's current version).
    let revision = 0;
    await eventually(async () => {
      revision += 1;
      const title = `Deed of trust, revision ${revision}`;
      const current = (await kitA.call(cast.agent, 'GET', `/api/jobs/${cast.job.id}`)).json() as Job;
      const patched = await kitA.call(cast.agent, 'PATCH', `/api/jobs/${cast.job.id}`, { title, version: current.version });
      expect(patched.statusCode, patched.body).toBe(200);
      await eventually(async () => expect((await seenOnB()).titles).toContain(title), 2000);
    }, 20_000);
    expect((await seenOnB()).closeCode).toBeNull();
  }, 60_000);

  it('a session opened by the notary on instance A is joined by a signer through instance B, and both see each other', async () => {
    const cast = await castVideoJob(a.t, kitA);
    const jobId = cast.job.id;
    const opened = await kitA.call(cast.notary, 'POST', '/api/video/session', { jobId });
    expect(opened.statusCode, opened.body).toBe(201);
    const sessionId = opened.json().sessionId as string;
    const base = `/api/video/session/${sessionId}`;
    // The notary works through A; the signer's every call goes to B.
    const notaryJoined = await kitA.call(cast.notary, 'POST', `/api/jobs/${jobId}/session/join`, { consentToRecording: true, deviceGroupId: 'notary-desk' });
    expect(notaryJoined.statusCode, notaryJoined.body).toBe(200);
    const signerJoined = await kitB.call(cast.signer, 'POST', `/api/jobs/${jobId}/session/join`, { consentToRecording: true, deviceGroupId: 'signer-laptop' });
    expect(signerJoined.statusCode, signerJoined.body).toBe(200);
    for (const url of [`${base}/participants/${cast.idOf(cast.signer)}/admit`, `${base}/activate/notary-desk`, `${base}/start`]) {
      const res = await kitA.call(cast.notary, 'POST', url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const notaryToken = (
      await kitA.call(cast.notary, 'POST', '/api/video/token', { sessionId, role: 'notary', participantId: 'notary', deviceGroupId: 'notary-desk' })
    ).json().token as string;
    const signerToken = (
      await kitB.call(cast.signer, 'POST', '/api/video/token', {
        sessionId,
        role: 'signer',
        participantId: cast.idOf(cast.signer),
        deviceGroupId: 'signer-laptop',
      })
    ).json().token as string;

    const notaryPage = await openPage(a, cast.notary);
    await notaryPage.connect(sessionId, notaryToken);
    await eventually(async () => expect((await notaryPage.state()).types).toContain('offer'), 15_000);
    const signerPage = await openPage(b, cast.signer);
    await signerPage.connect(sessionId, signerToken);

    for (const page of [notaryPage, signerPage]) {
      await eventually(async () => {
        const state = await page.state();
        expect(state.errors).toEqual([]);
        expect(state.closeCode).toBeNull();
        expect(state.connectionState).toBe('connected');
        expect(state.framesDecoded).toBeGreaterThan(10);
        expect(state.peers.map((peer) => [peer.participantId, peer.isAway, peer.connectionState])).toEqual(
          expect.arrayContaining([
            ['notary', false, 'connected'],
            [cast.idOf(cast.signer), false, 'connected'],
          ]),
        );
      }, 40_000);
    }
    const signerState = await signerPage.state();
    expect(signerState.welcome).toMatchObject({ participantId: cast.idOf(cast.signer), role: 'signer' });
    expect(signerState.types.slice(0, 2)).toEqual(['welcome', 'offer']);
    // The room and its media are on A, the instance that opened it; B relays the signer's signaling.
    expect(liveSessionsOf(a.hub).isLiveHere(sessionId)).toBe(true);
    expect(liveSessionsOf(b.hub).isLiveHere(sessionId)).toBe(false);
    expect(b.hub.findRoom(sessionId)).toBeUndefined();
    expect(a.hub.findRoom(sessionId)?.participantIds().sort()).toEqual(['notary', cast.idOf(cast.signer)].sort());

    // The notary starts and stops the recording through B: the recorder runs on A, where the media is.
    const started = await kitB.call(cast.notary, 'POST', '/api/video/recording/start', { sessionId });
    expect(started.statusCode, started.body).toBe(201);
    const { recordingId } = started.json() as { recordingId: string };
    expect(liveSessionsOf(a.hub).isRecording(sessionId)).toBe(true);
    expect(liveSessionsOf(b.hub).isRecording(sessionId)).toBe(false);
    const segmentsOf = () => a.t.db.select().from(recordingSegments).where(eq(recordingSegments.recordingId, recordingId));
    await eventually(
      async () => expect(new Set((await segmentsOf()).map((row) => row.participantId))).toEqual(new Set(['notary', cast.idOf(cast.signer)])),
      60_000,
    );
    const stopped = await kitB.call(cast.notary, 'POST', '/api/video/recording/stop', { sessionId, recordingId });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().segmentCount).toBe((await segmentsOf()).length);
    expect(liveSessionsOf(a.hub).isRecording(sessionId)).toBe(false);

    // The signer closes their tab on B: the leave reaches A, whose room lets them go and tells the notary.
    await signerPage.close();
    pages.splice(pages.indexOf(signerPage), 1);
    await eventually(async () => {
      expect(a.hub.findRoom(sessionId)?.participantIds()).toEqual(['notary']);
      const away = (await notaryPage.state()).peers.find((peer) => peer.participantId === cast.idOf(cast.signer));
      expect(away?.isAway).toBe(true);
    }, 15_000);

    // The notary finalizes through B: the room on A closes, and the notary's socket there with 4410.
    const finalized = await kitB.call(cast.notary, 'POST', `${base}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    await eventually(async () => expect((await notaryPage.state()).closeCode).toBe(signalCloseCodes.sessionEnded), 15_000);
    expect(a.hub.findRoom(sessionId)).toBeUndefined();
    expect(liveSessionsOf(a.hub).isLiveHere(sessionId)).toBe(false);
  }, 240_000);

  it('a home that died: the socket relayed to it closes (1011), and once its lease expired the next join opens the room anew', async () => {
    const cast = await castVideoJob(a.t, kitA);
    const opened = await kitB.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect(opened.statusCode, opened.body).toBe(201);
    const sessionId = opened.json().sessionId as string;
    const joined = await kitB.call(cast.notary, 'POST', `/api/jobs/${cast.job.id}/session/join`, { consentToRecording: true, deviceGroupId: 'notary-desk' });
    expect(joined.statusCode, joined.body).toBe(200);
    const activated = await kitB.call(cast.notary, 'POST', `/api/video/session/${sessionId}/activate/notary-desk`);
    expect(activated.statusCode, activated.body).toBe(200);
    const hello = {
      sessionId,
      token: (
        await kitB.call(cast.notary, 'POST', '/api/video/token', { sessionId, role: 'notary', participantId: 'notary', deviceGroupId: 'notary-desk' })
      ).json().token as string,
    };
    const cookie = sessionTokenOf(await b.t.signInAs(cast.notary));
    // An instance that opened the room and then died: its lease is still there, nobody answers on its channel.
    const deadHomeId = randomUUID();
    const redis = new Redis(process.env.TEST_REDIS_URL ?? '');
    const listener = new Redis(process.env.TEST_REDIS_URL ?? '');
    try {
      const opensToDeadHome: string[] = [];
      listener.on('message', (_channel: string, message: string) => opensToDeadHome.push(message));
      await listener.subscribe(`video:instance:${deadHomeId}`);
      await redis.set(homeKey(sessionId), deadHomeId, 'PX', 60_000);
      const relayed = connectNodeSignal(b.baseUrl, cookie);
      await relayed.opened;
      relayed.send({ type: 'hello', ...hello });
      // B admitted the socket and relays it to the dead home, which never answers; then its lease expires.
      await eventually(
        () => expect(opensToDeadHome.map((message) => (JSON.parse(message) as { type: string; sessionId: string }).sessionId)).toEqual([sessionId]),
        30_000,
      );
      await redis.pexpire(homeKey(sessionId), 500);
      expect((await relayed.closed).code).toBe(1011);
      await eventually(async () => expect(await redis.get(homeKey(sessionId))).toBeNull(), 5000);
      // Reconnecting (as the browser does after 1011) opens the room on B, which becomes its home.
      const reopened = await connectWithHello(b.baseUrl, cookie, hello);
      expect(reopened.messages.map((message) => message.type).slice(0, 2)).toEqual(['welcome', 'offer']);
      expect(liveSessionsOf(b.hub).isLiveHere(sessionId)).toBe(true);
      expect(await redis.get(homeKey(sessionId))).toBe(liveSessionsOf(b.hub).relay?.instanceId);
      reopened.close();
      await reopened.closed;
      await eventually(async () => expect(await redis.get(homeKey(sessionId))).toBeNull(), 10_000);
    } finally {
      redis.disconnect();
      listener.disconnect();
    }
  }, 120_000);
});
