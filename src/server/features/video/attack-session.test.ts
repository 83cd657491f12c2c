import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalCloseCodes } from '#shared/video-signaling.ts';
import { auditEvents, recordingSegments, recordings, videoSessions } from '#server/db/schema/index.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { eventually, launchMediaBrowser } from '#test/chromium-participant.ts';
import { type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startSignalApp, type SignalApp } from '#test/signal-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { connectNodeSignal, connectWithHello, openSignalPage, sessionTokenOf, type NodeSignal } from '#test/signal-client.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import type { Db } from '#server/db/client.ts';
import type { Ctx } from '#server/lib/context.ts';
import { liveSessionsOf } from './signaling/live-sessions.ts';
import { checkStillAdmitted } from './signaling/signal-admission.ts';
import { verifyVideoToken } from './signaling/video-token.ts';

/**
 * The live session attacked: other roles and other jobs on every /api/video route and the
 * signaling socket, bad input, and the races of a hurried notary on a phone with a bad network.
 */

let app: SignalApp;
let t: TestApp;
let kit: JobKit;
let hub: VideoProvider;
let baseUrl: string;
let admin: TestUser;
beforeAll(async () => {
  app = await startSignalApp('ron-attack-');
  ({ t, hub, baseUrl } = app);
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'] });
}, 60_000);
afterAll(async () => app?.close());

const consent = (deviceGroupId: string) => ({ consentToRecording: true, deviceGroupId });
const deviceOf = (person: TestUser) => `device-${person.id.slice(0, 8)}`;

interface Session extends VideoCast {
  sessionId: string;
  base: string;
  participantIdOf(person: TestUser): string;
  tokenOf(person: TestUser, role?: string): Promise<string>;
  cookieOf(person: TestUser): Promise<string>;
}

/** A started session: the notary in, the signer and the observer admitted; the witness waits. */
async function startSession(options: { isStarted?: boolean } = {}): Promise<Session> {
  const cast = await castVideoJob(t, kit);
  const opened = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
  const sessionId = opened.json().sessionId as string;
  for (const person of [cast.notary, cast.signer, cast.witness, cast.observer]) {
    const joined = await kit.call(person, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent(deviceOf(person)));
    expect(joined.statusCode, joined.body).toBe(200);
  }
  const base = `/api/video/session/${sessionId}`;
  const steps = [
    `${base}/participants/${cast.idOf(cast.signer)}/admit`,
    `${base}/participants/${cast.idOf(cast.observer)}/admit`,
    `${base}/activate/${deviceOf(cast.notary)}`,
  ];
  if (options.isStarted !== false) steps.push(`${base}/start`);
  for (const url of steps) {
    const res = await kit.call(cast.notary, 'POST', url);
    expect(res.statusCode, res.body).toBe(200);
  }
  const participantIdOf = (person: TestUser) => (person.id === cast.notary.id ? 'notary' : cast.idOf(person));
  const roleOf = (person: TestUser) =>
    person.id === cast.notary.id ? 'notary' : person.id === cast.observer.id ? 'observer' : person.id === cast.witness.id ? 'witness' : 'signer';
  return {
    ...cast,
    sessionId,
    base,
    participantIdOf,
    async tokenOf(person, role = roleOf(person)) {
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

async function openSocket(session: Session, person: TestUser): Promise<NodeSignal> {
  const signal = connectNodeSignal(baseUrl, await session.cookieOf(person));
  await signal.opened;
  return signal;
}

/** A Node socket that said hello and got its welcome and first offer. */
async function connectAdmitted(session: Session, person: TestUser): Promise<NodeSignal> {
  return connectWithHello(baseUrl, await session.cookieOf(person), { sessionId: session.sessionId, token: await session.tokenOf(person) });
}

const typesOf = (signal: NodeSignal) => signal.messages.map((message) => message.type);
const sessionRow = async (sessionId: string) => (await t.db.select().from(videoSessions).where(eq(videoSessions.id, sessionId)))[0];
const recordingRows = (sessionId: string) => t.db.select().from(recordings).where(eq(recordings.sessionId, sessionId));

/**
 * The database as one person's check reads it, with `step` run just before its `before`-th query
 * executes: a change of someone else that commits between two of the check's reads.
 */
function crossingDb(db: Db, before: number, step: () => Promise<void>): Db {
  let executed = 0;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (property === 'then') {
          return (resolve: (value: unknown) => unknown, reject: (reason: unknown) => unknown) => {
            executed += 1;
            const ready = executed === before ? step() : Promise.resolve();
            return ready.then(() => (value as (...args: unknown[]) => unknown).call(object, resolve, reject), reject);
          };
        }
        return (...args: unknown[]) => {
          const result: unknown = (value as (...args: unknown[]) => unknown).apply(object, args);
          return result !== null && typeof result === 'object' ? wrap(result) : result;
        };
      },
    });
  return wrap(db);
}

/** Every failed call answers `message`, or `error` + `detail`; always a sentence. */
function expectErrorShape(res: { statusCode: number; body: string; json(): unknown }, status: number | number[]) {
  expect([status].flat(), res.body).toContain(res.statusCode);
  const body = res.json() as Record<string, unknown>;
  expect(typeof body.message, res.body).toBe('string');
  expect(String(body.message).length).toBeGreaterThan(5);
}

describe('other roles and other people’s sessions on every /api/video route', () => {
  let a: Session;
  let b: Session;
  beforeAll(async () => {
    a = await startSession();
    b = await startSession();
  }, 60_000);

  it('refuses every notary-only call on job B to the notary of A, B’s signer, witness, observer and title agent, a stranger and an admin, and changes nothing', async () => {
    const signerB = b.idOf(b.signer);
    const witnessB = b.idOf(b.witness);
    const before = await sessionRow(b.sessionId);
    const started = await kit.call(b.notary, 'POST', '/api/video/recording/start', { sessionId: b.sessionId });
    expect(started.statusCode, started.body).toBe(201);
    const recordingId = started.json().recordingId as string;
    const calls: Array<[string, Record<string, unknown> | undefined]> = [
      [`${b.base}/activate/${deviceOf(b.notary)}`, undefined],
      [`${b.base}/start`, undefined],
      [`${b.base}/finalize`, undefined],
      [`${b.base}/participants/${witnessB}/admit`, undefined],
      [`${b.base}/participants/${signerB}/deny`, undefined],
      [`${b.base}/shared-video-map`, { assignments: [], version: 0 }],
      ['/api/video/recording/start', { sessionId: b.sessionId }],
      ['/api/video/recording/stop', { sessionId: b.sessionId, recordingId }],
    ];
    for (const person of [a.notary, b.signer, b.witness, b.observer, b.agent, b.stranger, admin]) {
      for (const [url, payload] of calls) {
        const res = await kit.call(person, 'POST', url, payload);
        expectErrorShape(res, [403, 404]);
      }
    }
    const after = await sessionRow(b.sessionId);
    expect(after?.status).toBe(before?.status);
    expect(after?.sharedVideoMapVersion).toBe(before?.sharedVideoMapVersion);
    expect((await recordingRows(b.sessionId)).map((row) => row.status)).toEqual(['recording']);
    const session = (await kit.call(b.notary, 'GET', b.base)).json() as { participants: Array<{ participantId: string; lobbyState: string }> };
    expect(session.participants.find((person) => person.participantId === signerB)?.lobbyState).toBe('admitted');
    expect(session.participants.find((person) => person.participantId === witnessB)?.lobbyState).toBe('waiting');
    expect((await kit.call(b.notary, 'POST', '/api/video/recording/stop', { sessionId: b.sessionId, recordingId })).statusCode).toBe(200);
  });

  it('keeps the session view, the map, the debug info and playback from people who may not see them', async () => {
    for (const person of [a.notary, b.stranger]) {
      expectErrorShape(await kit.call(person, 'GET', b.base), 404);
      expectErrorShape(await kit.call(person, 'GET', `${b.base}/shared-video-map`), 404);
      expectErrorShape(await kit.call(person, 'GET', `/api/jobs/${b.job.id}/recordings`), 404);
    }
    for (const person of [b.signer, b.observer, b.agent]) {
      expectErrorShape(await kit.call(person, 'GET', b.base), 403);
      expectErrorShape(await kit.call(person, 'GET', `/api/jobs/${b.job.id}/recordings`), 403);
    }
    // The waiting witness does not see the map.
    expectErrorShape(await kit.call(b.witness, 'GET', `${b.base}/shared-video-map`), 403);
    for (const person of [b.notary, b.signer, b.stranger]) expectErrorShape(await kit.call(person, 'GET', '/api/video/debug/info'), 403);
    expect((await kit.call(admin, 'GET', '/api/video/debug/info')).statusCode).toBe(200);
    // A's notary cannot reach B's segments through A's job either.
    expectErrorShape(await kit.call(a.notary, 'GET', `/api/jobs/${a.job.id}/recordings/segments/${b.sessionId}`), 404);
  });

  it('gives a media token only for the caller’s own participant id, role and device, and only once admitted', async () => {
    const token = (person: TestUser, body: Record<string, unknown>) =>
      kit.call(person, 'POST', '/api/video/token', { sessionId: b.sessionId, deviceGroupId: deviceOf(person), ...body });
    expectErrorShape(await token(b.signer, { role: 'notary', participantId: 'notary' }), 403);
    expectErrorShape(await token(b.signer, { role: 'signer', participantId: b.idOf(b.observer) }), 403);
    expectErrorShape(await token(b.observer, { role: 'signer', participantId: b.idOf(b.observer) }), 403);
    expectErrorShape(await token(b.witness, { role: 'witness', participantId: b.idOf(b.witness) }), 403);
    expectErrorShape(await token(b.stranger, { role: 'signer', participantId: b.idOf(b.signer) }), 404);
    expectErrorShape(await token(a.notary, { role: 'notary', participantId: 'notary' }), 404);
    expectErrorShape(
      await kit.call(b.signer, 'POST', '/api/video/token', {
        sessionId: b.sessionId,
        role: 'signer',
        participantId: b.idOf(b.signer),
        deviceGroupId: 'another-phone',
      }),
      409,
    );
  });

  it('refuses on the socket another job’s notary, a token for another session, another origin and a forged sign-in', async () => {
    const aToken = await a.tokenOf(a.notary);
    const intoB = await openSocket(b, a.notary);
    intoB.send({ type: 'hello', sessionId: b.sessionId, token: aToken });
    const signerWithAsToken = await openSocket(b, b.signer);
    signerWithAsToken.send({ type: 'hello', sessionId: a.sessionId, token: aToken });
    const forged = await openSocket(b, b.signer);
    forged.send({ type: 'hello', sessionId: b.sessionId, token: `${(await b.tokenOf(b.signer)).split('.')[0]}.AAAA` });
    for (const signal of [intoB, signerWithAsToken, forged]) expect((await signal.closed).code).toBe(signalCloseCodes.refused);
    const crossOrigin = connectNodeSignal(baseUrl, await b.cookieOf(b.notary), { origin: 'https://evil.example' });
    expect((await crossOrigin.closed).code).toBe(4403);
    const signedOut = connectNodeSignal(baseUrl, 'not-a-session-token');
    await expect(signedOut.opened).rejects.toThrow();
    expect(hub.findRoom(b.sessionId)?.participantIds() ?? []).toEqual([]);
  });

  it('answers bad bodies with a sentence and 400, and a recording of another session with 404, leaving it running', async () => {
    for (const [url, payload] of [
      ['/api/video/recording/start', {}],
      ['/api/video/recording/start', { sessionId: 'not-a-uuid' }],
      ['/api/video/recording/stop', { sessionId: b.sessionId, recordingId: 42 }],
      ['/api/video/token', { sessionId: b.sessionId, role: 'king', participantId: 'notary', deviceGroupId: 'x' }],
      ['/api/video/heartbeat', { sessionId: b.sessionId, role: 7 }],
      [`${b.base}/shared-video-map`, { assignments: [], version: -1 }],
      [`${b.base}/shared-video-map`, { assignments: 'everyone', version: 0 }],
      ['/api/video/session', { jobId: ['x'] }],
    ] as const) {
      expectErrorShape(await kit.call(b.notary, 'POST', url, payload), 400);
    }
    expectErrorShape(await kit.call(b.notary, 'POST', '/api/video/session/not-a-uuid/finalize'), 400);
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/video/recording/start',
      headers: { ...(await kit.headersFor(b.notary)), 'content-type': 'application/json' },
      payload: '{"sessionId":',
    });
    expectErrorShape(malformed, 400);

    const runningA = await kit.call(a.notary, 'POST', '/api/video/recording/start', { sessionId: a.sessionId });
    expect(runningA.statusCode).toBe(201);
    const runningB = await kit.call(b.notary, 'POST', '/api/video/recording/start', { sessionId: b.sessionId });
    expect(runningB.statusCode).toBe(201);
    // B's notary names B's session and A's recording: not found, and A's recorder keeps running.
    expectErrorShape(await kit.call(b.notary, 'POST', '/api/video/recording/stop', { sessionId: b.sessionId, recordingId: runningA.json().recordingId }), 404);
    expect(liveSessionsOf(hub).isRecording(a.sessionId)).toBe(true);
    expect((await recordingRows(a.sessionId)).filter((row) => row.status === 'recording')).toHaveLength(1);
    for (const [session, running] of [
      [a, runningA],
      [b, runningB],
    ] as const) {
      expect(
        (await kit.call(session.notary, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId: running.json().recordingId }))
          .statusCode,
      ).toBe(200);
      expect(liveSessionsOf(hub).isRecording(session.sessionId)).toBe(false);
    }
  });
});

describe('bad input on the signaling socket', () => {
  let session: Session;
  beforeAll(async () => {
    session = await startSession();
  }, 60_000);

  it('closes 4400 on a wrong type, a message before hello, a second hello and malformed JSON', async () => {
    const token = await session.tokenOf(session.signer);
    const early = await openSocket(session, session.signer);
    early.send({ type: 'ping', at: 1 });
    const wrongType = await openSocket(session, session.signer);
    wrongType.send({ type: 'hello', sessionId: session.sessionId, token: 42 });
    const broken = await openSocket(session, session.signer);
    broken.send('{"type":"hello",');
    const twice = await connectAdmitted(session, session.signer);
    twice.send({ type: 'hello', sessionId: session.sessionId, token });
    for (const signal of [early, wrongType, broken, twice]) expect((await signal.closed).code).toBe(signalCloseCodes.badMessage);
    await eventually(() => expect(hub.findRoom(session.sessionId)?.participantIds() ?? []).toEqual([]));
  });

  it('reads an answer as large as the contract allows (195,000 characters) without closing the socket', async () => {
    const signal = await connectAdmitted(session, session.signer);
    signal.send({ type: 'answer', sdp: `v=0\r\n${'a=x\r\n'.repeat(39_000)}` });
    signal.send({ type: 'ping', at: 7 });
    await eventually(() => expect(signal.messages.some((message) => message.type === 'pong' && message.at === 7)).toBe(true));
    signal.send({ type: 'media-state', audioMuted: 'yes', videoOff: false });
    expect((await signal.closed).code).toBe(signalCloseCodes.badMessage);
  });

  it('closes a socket sending more than the contract allows (a 2 MB frame) without reading it', async () => {
    const signal = await connectAdmitted(session, session.signer);
    signal.send({ type: 'answer', sdp: 'a'.repeat(2_000_000) });
    expect((await signal.closed).code).toBe(1009);
  });

  it('stays responsive under a flood of candidates and ICE restarts, answering a ping after them', async () => {
    const signal = await connectAdmitted(session, session.signer);
    for (let index = 0; index < 500; index += 1) {
      signal.send({
        type: 'candidate',
        candidate: { candidate: `candidate:${index} 1 udp 2122260223 10.0.${index % 250}.1 ${10_000 + index} typ host`, sdpMid: '0', sdpMLineIndex: 0 },
      });
    }
    for (let index = 0; index < 20; index += 1) signal.send({ type: 'restart-ice' });
    signal.send({ type: 'ping', at: 123 });
    await eventually(() => expect(signal.messages.some((message) => message.type === 'pong' && message.at === 123)).toBe(true), 20_000);
    expect(typesOf(signal).filter((type) => type === 'offer').length).toBeGreaterThanOrEqual(2);
    signal.close();
    await signal.closed;
    await eventually(() => expect(hub.findRoom(session.sessionId)?.participantIds() ?? []).toEqual([]));
  }, 30_000);
});

describe('dropped networks and races', () => {
  it('leaves nobody in the media room when a socket closes while it is joining (right after welcome), even on a rejoin', async () => {
    const session = await startSession();
    const notary = await connectAdmitted(session, session.notary);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const signer = await openSocket(session, session.signer);
      signer.send({ type: 'hello', sessionId: session.sessionId, token: await session.tokenOf(session.signer) });
      await eventually(() => expect(typesOf(signer)).toContain('welcome'));
      signer.close();
      await signer.closed;
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hub.findRoom(session.sessionId)?.participantIds()).toEqual(['notary']);
    const peers = notary.messages.filter((message) => message.type === 'peers').at(-1);
    expect(peers?.type === 'peers' && peers.peers.find((peer) => peer.role === 'signer')?.isAway).toBe(true);
    // The signer comes back and is in the room once.
    const back = await connectAdmitted(session, session.signer);
    expect(hub.findRoom(session.sessionId)?.participantIds().sort()).toEqual(['notary', session.idOf(session.signer)].sort());
    back.close();
    notary.close();
    await Promise.all([back.closed, notary.closed]);
    await eventually(() => expect(hub.findRoom(session.sessionId)).toBeUndefined());
  }, 30_000);

  it('sends a newcomer welcome and offer before any peers or recording, even while the others keep changing', async () => {
    const session = await startSession();
    const notary = await connectAdmitted(session, session.notary);
    const signer = await openSocket(session, session.signer);
    const token = await session.tokenOf(session.signer);
    let isMuted = false;
    const churn = setInterval(() => {
      isMuted = !isMuted;
      notary.send({ type: 'media-state', audioMuted: isMuted, videoOff: false });
    }, 5);
    try {
      signer.send({ type: 'hello', sessionId: session.sessionId, token });
      await eventually(() => expect(typesOf(signer)).toContain('offer'), 10_000);
    } finally {
      clearInterval(churn);
    }
    expect(typesOf(signer).slice(0, 2)).toEqual(['welcome', 'offer']);
    await eventually(() => expect(typesOf(signer)).toEqual(expect.arrayContaining(['peers', 'recording'])));
    for (const signal of [notary, signer]) signal.close();
    await Promise.all([notary.closed, signer.closed]);
  });

  it('replaces a socket still open when its person rejoins (4409) and keeps one place for them in the hub', async () => {
    const session = await startSession();
    const first = await connectAdmitted(session, session.signer);
    const second = await connectAdmitted(session, session.signer);
    expect((await first.closed).code).toBe(signalCloseCodes.replaced);
    expect(hub.findRoom(session.sessionId)?.participantIds()).toEqual([session.idOf(session.signer)]);
    second.send({ type: 'ping', at: 9 });
    await eventually(() => expect(second.messages.some((message) => message.type === 'pong')).toBe(true));
    second.close();
    await second.closed;
    await eventually(() => expect(hub.findRoom(session.sessionId)).toBeUndefined());
  });

  it('closes a socket whose person is denied or whose session is finalized during the hello, and leaves no room behind', async () => {
    const session = await startSession();
    const signer = await openSocket(session, session.signer);
    const observer = await openSocket(session, session.observer);
    const [signerToken, observerToken] = [await session.tokenOf(session.signer), await session.tokenOf(session.observer)];
    signer.send({ type: 'hello', sessionId: session.sessionId, token: signerToken });
    const denied = kit.call(session.notary, 'POST', `${session.base}/participants/${session.idOf(session.signer)}/deny`);
    expect((await signer.closed).code).toBe(signalCloseCodes.refused);
    expect((await denied).statusCode).toBe(200);
    observer.send({ type: 'hello', sessionId: session.sessionId, token: observerToken });
    const finalized = await kit.call(session.notary, 'POST', `${session.base}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    expect((await observer.closed).code).toBe(signalCloseCodes.sessionEnded);
    await eventually(() => expect(hub.findRoom(session.sessionId)).toBeUndefined());
    // Finalizing again is refused with a sentence; so is recording a finalized session.
    expectErrorShape(await kit.call(session.notary, 'POST', `${session.base}/finalize`), 409);
    expectErrorShape(await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId }), 409);
    expect(await recordingRows(session.sessionId)).toEqual([]);
  });

  it('tells a person whose admission check crosses the finalize that the session ended (4410), never that they were refused', async () => {
    const session = await startSession();
    const token = await session.tokenOf(session.observer);
    const check = verifyVideoToken(t.secretsKey, token, { userId: session.observer.id, sessionId: session.sessionId });
    if (!check.isValid) throw new Error(`the observer's token was refused: ${check.reason}`);
    // The finalize commits after the check read the session as open and before it reads the person's admission.
    let finalized: Awaited<ReturnType<JobKit['call']>> | undefined;
    const db = crossingDb(t.db, 2, async () => {
      finalized = await kit.call(session.notary, 'POST', `${session.base}/finalize`);
    });
    const observerCtx = { db, user: { id: session.observer.id, roles: session.observer.roles } } as unknown as Ctx;
    const end = await checkStillAdmitted(observerCtx, check.claims);
    expect(finalized?.statusCode, finalized?.body).toBe(200);
    expect(end).toEqual({ code: signalCloseCodes.sessionEnded, reason: 'session ended' });
  });

  it('refuses a token of a finalized session in the session reopened after it', async () => {
    const session = await startSession();
    const oldToken = await session.tokenOf(session.signer);
    expect((await kit.call(session.notary, 'POST', `${session.base}/finalize`)).statusCode).toBe(200);
    const reopened = await kit.call(session.notary, 'POST', '/api/video/session', { jobId: session.job.id });
    expect(reopened.statusCode).toBe(201);
    const newId = reopened.json().sessionId as string;
    expect(newId).not.toBe(session.sessionId);
    expect((await kit.call(session.notary, 'POST', `/api/jobs/${session.job.id}/session/join`, consent(deviceOf(session.notary)))).statusCode).toBe(200);
    expect((await kit.call(session.signer, 'POST', `/api/jobs/${session.job.id}/session/join`, consent(deviceOf(session.signer)))).statusCode).toBe(200);
    expect((await kit.call(session.notary, 'POST', `/api/video/session/${newId}/participants/${session.idOf(session.signer)}/admit`)).statusCode).toBe(200);
    const intoNew = await openSocket(session, session.signer);
    intoNew.send({ type: 'hello', sessionId: newId, token: oldToken });
    const intoOld = await openSocket(session, session.signer);
    intoOld.send({ type: 'hello', sessionId: session.sessionId, token: oldToken });
    expect((await intoNew.closed).code).toBe(signalCloseCodes.refused);
    expect((await intoOld.closed).code).toBe(signalCloseCodes.sessionEnded);
    expect(hub.findRoom(newId)).toBeUndefined();
  });

  it('starts a recording with nobody connected, tells whoever joins, and lets only one of two concurrent starts through', async () => {
    const session = await startSession();
    const starts = await Promise.all([0, 1].map(() => kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId })));
    expect(starts.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    const rows = await recordingRows(session.sessionId);
    expect(rows).toHaveLength(1);
    const signer = await connectAdmitted(session, session.signer);
    await eventually(() =>
      expect(signer.messages.some((message) => message.type === 'recording' && message.recording?.recordingId === rows[0]?.id)).toBe(true),
    );
    // Two stops at once (a double tap): one stops it, the other is told it already stopped.
    const stops = await Promise.all(
      [0, 1].map(() => kit.call(session.notary, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId: rows[0]?.id })),
    );
    expect(stops.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    await eventually(() => expect(signer.messages.filter((message) => message.type === 'recording').at(-1)).toEqual({ type: 'recording', recording: null }));
    signer.close();
    await signer.closed;
  });

  it('ends a recorded session once when finalize is sent twice at once, with one recording.stopped', async () => {
    const session = await startSession();
    const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
    expect(started.statusCode).toBe(201);
    const ends = await Promise.all([0, 1].map(() => kit.call(session.notary, 'POST', `${session.base}/finalize`)));
    expect(ends.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expectErrorShape(ends.find((res) => res.statusCode === 409) ?? ends[0]!, 409);
    expect((await recordingRows(session.sessionId)).map((row) => row.status)).toEqual(['stopped']);
    const stops = (await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'recording.stopped'))).filter(
      (event) => (event.data as { sessionId?: string }).sessionId === session.sessionId,
    );
    expect(stops).toHaveLength(1);
    expect(liveSessionsOf(hub).isRecording(session.sessionId)).toBe(false);
    expect(hub.findRoom(session.sessionId)).toBeUndefined();
    expect((await kit.getJob(session.notary, session.job.id)).status).toBe('ready');
  });

  it('never leaves a recorder running when the notary starts a recording and ends the session at the same moment', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const session = await startSession();
      const [started, finalized] = await Promise.all([
        kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId }),
        new Promise((resolve) => setTimeout(resolve, attempt * 4)).then(() => kit.call(session.notary, 'POST', `${session.base}/finalize`)),
      ]);
      expect(finalized.statusCode, finalized.body).toBe(200);
      expect([201, 409]).toContain(started.statusCode);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(liveSessionsOf(hub).isRecording(session.sessionId)).toBe(false);
      expect((await recordingRows(session.sessionId)).filter((row) => row.status === 'recording')).toEqual([]);
      expect(hub.findRoom(session.sessionId)).toBeUndefined();
    }
  }, 60_000);
});

describe('fields and the recording', () => {
  /** A ready job whose witness has a signature field and is then made an observer, before the session. */
  async function observerWithField() {
    const cast = await castVideoJob(t, kit);
    const [document] = ((await kit.call(cast.agent, 'GET', `/api/jobs/${cast.job.id}/documents`)).json() as { items: Array<{ id: string }> }).items;
    const fields = `/api/jobs/${cast.job.id}/documents/${document?.id}/fields`;
    const placed = await kit.call(cast.notary, 'POST', fields, {
      type: 'signature',
      participantId: cast.idOf(cast.witness),
      page: 1,
      x: 0.1,
      y: 0.7,
      width: 0.3,
      height: 0.06,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const demoted = await kit.call(cast.agent, 'PATCH', `/api/jobs/${cast.job.id}/signers/${cast.idOf(cast.witness)}`, { role: 'observer' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    await kit.saveSignature(cast.witness);
    return { cast, fieldUrl: `${fields}/${placed.json().id as string}` };
  }

  it('never lets an observer fill a field, even one placed for them while they were a witness', async () => {
    const { cast, fieldUrl } = await observerWithField();
    await kit.startRecordedSession(cast.notary, cast.job.id, [cast.signer, cast.witness]);
    const filled = await kit.call(cast.witness, 'POST', `${fieldUrl}/fill`, { version: 1 });
    expectErrorShape(filled, 403);
    const [field] = ((await kit.call(cast.notary, 'GET', fieldUrl.replace(/\/[^/]+$/, ''))).json() as { items: Array<{ filledAt: string | null }> }).items;
    expect(field?.filledAt).toBeNull();
  });

  it('fills a field exactly as the recording stops either inside the recording or not at all', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const cast = await castVideoJob(t, kit);
      const [document] = ((await kit.call(cast.agent, 'GET', `/api/jobs/${cast.job.id}/documents`)).json() as { items: Array<{ id: string }> }).items;
      const fields = `/api/jobs/${cast.job.id}/documents/${document?.id}/fields`;
      const placed = await kit.call(cast.notary, 'POST', fields, {
        type: 'signature',
        participantId: cast.idOf(cast.signer),
        page: 1,
        x: 0.1,
        y: 0.7,
        width: 0.3,
        height: 0.06,
      });
      expect(placed.statusCode, placed.body).toBe(201);
      await kit.saveSignature(cast.signer);
      const started = await kit.startRecordedSession(cast.notary, cast.job.id, [cast.signer]);
      const [filled, stopped] = await Promise.all([
        kit.call(cast.signer, 'POST', `${fields}/${placed.json().id as string}/fill`, { version: 1 }),
        kit.call(cast.notary, 'POST', '/api/video/recording/stop', started),
      ]);
      expect(stopped.statusCode, stopped.body).toBe(200);
      if (filled.statusCode === 200) {
        expect(new Date(filled.json().filledAt as string).getTime()).toBeLessThanOrEqual(new Date(stopped.json().stoppedAt as string).getTime());
      } else {
        expectErrorShape(filled, 409);
        expect(filled.json().error).toBe('not_recording');
      }
    }
  }, 60_000);
});

describe('a double tap on Stop with media flowing (Chromium)', () => {
  it('counts every stored segment in recording.stopped, whichever of two concurrent stops wins', async () => {
    const session = await startSession();
    const media = await launchMediaBrowser();
    try {
      const pages = [
        await openSignalPage(media, baseUrl, await session.cookieOf(session.notary)),
        await openSignalPage(media, baseUrl, await session.cookieOf(session.signer)),
      ];
      await pages[0]?.connect(session.sessionId, await session.tokenOf(session.notary));
      await pages[1]?.connect(session.sessionId, await session.tokenOf(session.signer));
      for (const page of pages) await eventually(async () => expect((await page.state()).framesDecoded).toBeGreaterThan(10), 30_000);
      const started = await kit.call(session.notary, 'POST', '/api/video/recording/start', { sessionId: session.sessionId });
      expect(started.statusCode, started.body).toBe(201);
      const recordingId = started.json().recordingId as string;
      const segments = () => t.db.select().from(recordingSegments).where(eq(recordingSegments.recordingId, recordingId));
      await eventually(async () => expect(new Set((await segments()).map((row) => row.participantId)).size).toBe(2), 40_000);
      const stops = await Promise.all(
        [0, 1].map(() => kit.call(session.notary, 'POST', '/api/video/recording/stop', { sessionId: session.sessionId, recordingId })),
      );
      expect(stops.map((res) => res.statusCode).sort()).toEqual([200, 409]);
      const stored = (await segments()).length;
      expect(stops.find((res) => res.statusCode === 200)?.json().segmentCount).toBe(stored);
      const stopEvents = (await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'recording.stopped'))).filter(
        (event) => (event.data as { recordingId?: string }).recordingId === recordingId,
      );
      expect(stopEvents.map((event) => (event.data as { segmentCount: number }).segmentCount)).toEqual([stored]);
    } finally {
      await media.close();
    }
  }, 120_000);
});
