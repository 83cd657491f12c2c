import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { VideoSession } from '#shared/video.ts';
import { videoSessionParticipants } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { createWeriftSfu } from '#server/providers/video/werift-sfu.ts';
import { identityNotice } from './lobby/video-lobby.service.ts';
import { verifyVideoToken } from './signaling/video-token.ts';

let t: TestApp;
let kit: JobKit;
let hub: VideoProvider;
beforeAll(async () => {
  hub = createWeriftSfu({ iceServers: [] });
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' }, { video: hub });
  kit = createJobKit(t);
});
afterAll(async () => {
  await t?.close();
  await hub?.close();
});

const consent = (deviceGroupId = 'laptop-1') => ({ consentToRecording: true, deviceGroupId });

type Cast = VideoCast;
const castJob = (options: { isAccepted?: boolean } = {}) => castVideoJob(t, kit, options);

/** The notary opens the session and enters it; returns the session. */
async function openSession(cast: Cast): Promise<VideoSession> {
  const opened = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
  expect(opened.statusCode, opened.body).toBe(201);
  const joined = await kit.call(cast.notary, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent('notary-desk'));
  expect(joined.statusCode, joined.body).toBe(200);
  return opened.json() as VideoSession;
}

async function join(person: TestUser, cast: Cast, deviceGroupId = 'laptop-1') {
  return kit.call(person, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent(deviceGroupId));
}

async function admit(cast: Cast, sessionId: string, person: TestUser) {
  const res = await kit.call(cast.notary, 'POST', `/api/video/session/${sessionId}/participants/${cast.idOf(person)}/admit`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as VideoSession;
}

const noPlace = { sessionId: null, sessionStatus: null, participantId: null, lobbyState: null, recording: null };
/** Who takes no identity step (the notary, staff) and a signer let past it by the cast's bypass. */
const noIdentity = { required: false, satisfied: true, checkId: null, status: null, policyCode: 'VA' };
const bypassedIdentity = { required: true, satisfied: true, checkId: null, status: null, policyCode: 'VA' };

const anonymous = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => t.app.inject({ method, url, ...(payload ? { payload } : {}) });

describe('GET /api/jobs/:id/can-enter', () => {
  it('tells each person whether they may enter now and every reason why not, and says where identity questions come from', async () => {
    const cast = await castJob();
    const url = `/api/jobs/${cast.job.id}/can-enter`;
    expect((await anonymous('GET', url)).statusCode).toBe(401);
    expect((await kit.call(cast.stranger, 'GET', url)).statusCode).toBe(404);
    expect((await kit.call(cast.notary, 'GET', url)).json()).toEqual({
      canEnter: true,
      role: 'notary',
      reasons: [],
      notices: [],
      session: noPlace,
      identity: noIdentity,
    });
    expect(identityNotice).toBe(
      'The identity questions of this platform come from its development provider: they are made from what the person typed and prove nothing on their own. The notary’s judgement in the session decides.',
    );
    expect((await kit.call(cast.signer, 'GET', url)).json()).toEqual({
      canEnter: false,
      role: 'signer',
      reasons: ['The notary has not opened the session yet.'],
      notices: [identityNotice],
      session: noPlace,
      identity: bypassedIdentity,
    });
    expect((await kit.call(cast.agent, 'GET', url)).json()).toEqual({
      canEnter: false,
      role: null,
      reasons: ['Only the job’s notary and its signers, witnesses and observers enter the session. Ask the job’s preparer to invite you as an observer.'],
      notices: [],
      session: noPlace,
      identity: noIdentity,
    });

    const session = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect(session.statusCode).toBe(201);
    expect((await kit.call(cast.witness, 'GET', url)).json()).toMatchObject({
      canEnter: false,
      role: 'witness',
      reasons: ['The notary is not in the session yet.'],
    });
    await join(cast.notary, cast, 'notary-desk');
    const opened = session.json() as VideoSession;
    expect((await kit.call(cast.witness, 'GET', url)).json()).toEqual({
      canEnter: true,
      role: 'witness',
      reasons: [],
      notices: [identityNotice],
      session: { ...noPlace, sessionId: opened.sessionId, sessionStatus: 'created' },
      identity: bypassedIdentity,
    });
    expect((await kit.call(cast.notary, 'GET', url)).json()).toMatchObject({
      session: { sessionId: opened.sessionId, sessionStatus: 'created', participantId: 'notary', lobbyState: 'admitted', recording: null },
    });
    await join(cast.witness, cast);
    expect((await kit.call(cast.witness, 'GET', url)).json()).toMatchObject({ session: { participantId: cast.idOf(cast.witness), lobbyState: 'waiting' } });
    expect((await kit.call(cast.observer, 'GET', url)).json()).toMatchObject({ canEnter: true, role: 'observer' });

    // The notary silent for 90 seconds is no longer in the session.
    await t.db
      .update(videoSessionParticipants)
      .set({ lastHeartbeatAt: new Date(Date.now() - 91_000) })
      .where(eq(videoSessionParticipants.userId, cast.notary.id));
    expect((await kit.call(cast.witness, 'GET', url)).json()).toMatchObject({ canEnter: false, reasons: ['The notary is not in the session yet.'] });
  });

  it('tells a person invited by their confirmed address to accept the invitation first', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const invited = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: invited.name, email: invited.email }] });
    expect((await kit.call(invited, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toEqual({
      canEnter: false,
      role: 'signer',
      reasons: ['Accept your invitation to this job first.'],
      notices: [identityNotice],
      session: noPlace,
      identity: { required: true, satisfied: false, checkId: null, status: null, policyCode: 'VA' },
    });
  });

  it('answers a malformed job id with the error shape', async () => {
    const cast = await castJob({ isAccepted: false });
    const res = await kit.call(cast.notary, 'GET', '/api/jobs/not-a-job/can-enter');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Job id must be a UUID.' });
  });
});

describe('POST /api/video/session', () => {
  it('lets only the job’s notary open the session of a job that may be in session, once', async () => {
    const cast = await castJob();
    expect((await anonymous('POST', '/api/video/session', { jobId: cast.job.id })).statusCode).toBe(401);
    const bad = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: 'job-1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'jobId must be a UUID.' });
    expect((await kit.call(cast.stranger, 'POST', '/api/video/session', { jobId: cast.job.id })).statusCode).toBe(404);
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'POST', '/api/video/session', { jobId: cast.job.id })).statusCode).toBe(404);
    for (const person of [cast.agent, cast.signer]) {
      const res = await kit.call(person, 'POST', '/api/video/session', { jobId: cast.job.id });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary may open the session of this job.' });
    }
    const first = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ jobId: cast.job.id, status: 'created', participants: [] });
    const again = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect(again.statusCode).toBe(200);
    expect(again.json().sessionId).toBe(first.json().sessionId);
  });

  it('refuses a draft job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [] });
    const res = await kit.call(notary, 'POST', '/api/video/session', { jobId: job.id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'A draft job cannot hold a session; it must be ready, scheduled or in session.' });
  });
});

describe('POST /api/jobs/:id/session/join and the lobby', () => {
  it('refuses entry without consent to recording, with a bad device group, and to people not on the job', async () => {
    const cast = await castJob();
    await openSession(cast);
    const url = `/api/jobs/${cast.job.id}/session/join`;
    expect((await anonymous('POST', url, consent())).statusCode).toBe(401);
    const noConsent = await kit.call(cast.signer, 'POST', url, { consentToRecording: false, deviceGroupId: 'laptop-1' });
    expect(noConsent.statusCode).toBe(400);
    expect(noConsent.json()).toMatchObject({ error: 'validation_failed', message: 'You must agree to the session being recorded to enter it.' });
    const missing = await kit.call(cast.signer, 'POST', url, { deviceGroupId: 'laptop-1' });
    expect(missing.statusCode).toBe(400);
    const badDevice = await kit.call(cast.signer, 'POST', url, { consentToRecording: true, deviceGroupId: 'a b' });
    expect(badDevice.json()).toMatchObject({ error: 'validation_failed', message: 'deviceGroupId is 1 to 64 letters, digits, dashes or underscores.' });
    expect((await kit.call(cast.stranger, 'POST', url, consent())).statusCode).toBe(404);
    const staff = await kit.call(cast.agent, 'POST', url, consent());
    expect(staff.statusCode).toBe(403);
    expect(staff.json().message).toContain('Only the job’s notary and its signers, witnesses and observers enter the session.');
  });

  it('refuses a participant before the notary opened the session and before the notary is in it', async () => {
    const cast = await castJob();
    const early = await join(cast.signer, cast);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ error: 'conflict', message: 'The notary has not opened the session yet.' });
    await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    const absent = await join(cast.signer, cast);
    expect(absent.statusCode).toBe(409);
    expect(absent.json()).toEqual({
      error: 'cannot_enter',
      message: 'The notary is not in the session yet.',
      detail: { reasons: ['The notary is not in the session yet.'] },
    });
  });

  it('puts participants in the lobby for the notary to admit or deny, and observers never sign', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    const signerJoin = await join(cast.signer, cast);
    expect(signerJoin.json()).toEqual({
      sessionId: session.sessionId,
      participantId: cast.idOf(cast.signer),
      role: 'signer',
      lobbyState: 'waiting',
      canSign: true,
      message: 'You are in the lobby. The notary will admit you shortly. The session is recorded.',
    });
    expect((await join(cast.observer, cast)).json()).toMatchObject({
      role: 'observer',
      lobbyState: 'waiting',
      canSign: false,
      message: expect.stringContaining('never sign'),
    });
    await join(cast.witness, cast);

    const viewUrl = `/api/video/session/${session.sessionId}`;
    const view = (await kit.call(cast.notary, 'GET', viewUrl)).json() as VideoSession;
    expect(view.participants.map((person) => [person.participantId, person.role, person.lobbyState, person.canSign])).toEqual([
      ['notary', 'notary', 'admitted', false],
      [cast.idOf(cast.signer), 'signer', 'waiting', true],
      [cast.idOf(cast.observer), 'observer', 'waiting', false],
      [cast.idOf(cast.witness), 'witness', 'waiting', true],
    ]);
    expect((await kit.call(cast.signer, 'GET', viewUrl)).statusCode).toBe(403);
    expect((await kit.call(cast.stranger, 'GET', viewUrl)).statusCode).toBe(404);
    expect((await kit.call(cast.notary, 'GET', '/api/video/session/nope')).statusCode).toBe(400);

    const admitUrl = (person: TestUser, decision = 'admit') => `/api/video/session/${session.sessionId}/participants/${cast.idOf(person)}/${decision}`;
    expect((await anonymous('POST', admitUrl(cast.signer))).statusCode).toBe(401);
    const bySigner = await kit.call(cast.signer, 'POST', admitUrl(cast.witness));
    expect(bySigner.statusCode).toBe(403);
    expect(bySigner.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary may admit people to the session.' });
    expect((await kit.call(cast.stranger, 'POST', admitUrl(cast.signer))).statusCode).toBe(404);
    const unknown = await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/participants/${cast.job.id}/admit`);
    expect(unknown.statusCode).toBe(404);
    expect((await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/participants/notary/admit`)).statusCode).toBe(400);

    const admitted = await admit(cast, session.sessionId, cast.signer);
    expect(admitted.participants.find((person) => person.role === 'signer')?.lobbyState).toBe('admitted');
    const denied = await kit.call(cast.notary, 'POST', admitUrl(cast.witness, 'deny'));
    expect(denied.json().participants.find((person: { role: string }) => person.role === 'witness').lobbyState).toBe('denied');

    // The denied witness cannot come back; the admitted signer comes back admitted (a dropped network).
    const again = await join(cast.witness, cast);
    expect(again.statusCode).toBe(403);
    expect(again.json()).toMatchObject({ error: 'forbidden', message: 'The notary did not admit you to this session.' });
    expect((await kit.call(cast.witness, 'GET', `/api/jobs/${cast.job.id}/can-enter`)).json().reasons).toEqual([
      'The notary did not admit you to this session.',
    ]);
    expect((await join(cast.signer, cast, 'phone-2')).json()).toMatchObject({ lobbyState: 'admitted', message: 'You are in the session. It is recorded.' });

    const trail = (await kit.call(cast.notary, 'GET', `/api/jobs/${cast.job.id}/audit`)).json().events as Array<{
      action: string;
      actorName: string;
      actorId: string;
      data: Record<string, unknown>;
    }>;
    const sentences = trail.filter((event) => event.action.startsWith('video.')).map((event) => describeAuditEvent(event));
    expect(sentences).toEqual([
      `${cast.notary.name} entered the live session as the notary, agreeing to be recorded.`,
      `${cast.signer.name} entered the lobby of the live session as a signer, agreeing to be recorded, and waited to be admitted.`,
      `${cast.observer.name} entered the lobby of the live session as an observer, agreeing to be recorded, and waited to be admitted.`,
      `${cast.witness.name} entered the lobby of the live session as a witness, agreeing to be recorded, and waited to be admitted.`,
      `${cast.notary.name} admitted ${cast.signer.name} to the live session.`,
      `${cast.notary.name} did not admit ${cast.witness.name} to the live session.`,
      `${cast.signer.name} entered the live session as a signer, agreeing to be recorded.`,
    ]);
  });
});

describe('POST /api/video/token', () => {
  it('issues a five-minute token only to an admitted participant or the notary, bound to them, their session and device group', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    const sessionId = session.sessionId;
    await join(cast.signer, cast);
    await join(cast.observer, cast);
    const ask = (person: TestUser, body: Record<string, unknown>) =>
      kit.call(person, 'POST', '/api/video/token', { sessionId, deviceGroupId: 'laptop-1', ...body });
    const signerBody = { role: 'signer', participantId: cast.idOf(cast.signer) };

    expect((await anonymous('POST', '/api/video/token', { sessionId, ...signerBody, deviceGroupId: 'laptop-1' })).statusCode).toBe(401);
    const bad = await ask(cast.signer, { role: 'boss', participantId: cast.idOf(cast.signer) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'Role must be signer, witness, observer or notary.' });
    expect((await ask(cast.stranger, signerBody)).statusCode).toBe(404);
    const notEntered = await ask(cast.witness, { role: 'witness', participantId: cast.idOf(cast.witness) });
    expect(notEntered.json()).toMatchObject({ error: 'forbidden', message: 'Enter the session first.' });
    const waiting = await ask(cast.signer, signerBody);
    expect(waiting.statusCode).toBe(403);
    expect(waiting.json().message).toBe('The notary has not admitted you yet.');

    await admit(cast, sessionId, cast.signer);
    expect((await ask(cast.signer, { role: 'signer', participantId: cast.idOf(cast.observer) })).json().message).toBe(
      'That participant id is not yours in this session.',
    );
    expect((await ask(cast.signer, { role: 'signer', participantId: 'notary' })).statusCode).toBe(403);
    expect((await ask(cast.signer, { role: 'witness', participantId: cast.idOf(cast.signer) })).json().message).toBe(
      'You are in this session as signer, not witness.',
    );
    const otherDevice = await ask(cast.signer, { ...signerBody, deviceGroupId: 'tablet-9' });
    expect(otherDevice.statusCode).toBe(409);

    const issued = await ask(cast.signer, signerBody);
    expect(issued.statusCode, issued.body).toBe(200);
    const { token, expiresAt } = issued.json() as { token: string; expiresAt: string };
    expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(new Date(expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(verifyVideoToken(t.secretsKey, token, { userId: cast.signer.id, sessionId })).toMatchObject({
      isValid: true,
      claims: { userId: cast.signer.id, sessionId, participantId: cast.idOf(cast.signer), deviceGroupId: 'laptop-1', role: 'signer' },
    });
    expect(verifyVideoToken(t.secretsKey, token, { userId: cast.observer.id, sessionId })).toMatchObject({ isValid: false });

    const notaryToken = await ask(cast.notary, { role: 'notary', participantId: 'notary', deviceGroupId: 'notary-desk' });
    expect(notaryToken.statusCode).toBe(200);
    expect(verifyVideoToken(t.secretsKey, notaryToken.json().token, { userId: cast.notary.id, sessionId })).toMatchObject({
      isValid: true,
      claims: { role: 'notary' },
    });
  });
});

describe('activate, start, finalize and heartbeat', () => {
  it('moves the session and the job together, only by the job’s notary', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    const base = `/api/video/session/${session.sessionId}`;
    await join(cast.signer, cast);
    await join(cast.witness, cast);

    for (const url of [`${base}/activate/notary-desk`, `${base}/start`, `${base}/finalize`]) {
      expect((await anonymous('POST', url)).statusCode, url).toBe(401);
      expect((await kit.call(cast.stranger, 'POST', url)).statusCode, url).toBe(404);
      for (const person of [cast.signer, cast.agent]) expect((await kit.call(person, 'POST', url)).statusCode, url).toBe(403);
    }
    expect((await kit.call(cast.notary, 'POST', `${base}/activate/bad%20device`)).statusCode).toBe(400);
    expect((await kit.call(cast.notary, 'POST', `${base}/start`)).json()).toMatchObject({
      error: 'conflict',
      message: 'Open the room from your device first (activate), then start the session.',
    });
    expect((await kit.call(cast.notary, 'POST', `${base}/activate/somewhere-else`)).statusCode).toBe(409);
    const active = await kit.call(cast.notary, 'POST', `${base}/activate/notary-desk`);
    expect(active.json()).toMatchObject({ status: 'active', activeDeviceGroupId: 'notary-desk' });
    expect((await kit.call(cast.notary, 'POST', `${base}/start`)).json().message).toBe('Admit at least one signer before starting the session.');

    await admit(cast, session.sessionId, cast.signer);
    await admit(cast, session.sessionId, cast.witness);
    const started = await kit.call(cast.notary, 'POST', `${base}/start`);
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ status: 'started', startedAt: expect.any(String) });
    expect((await kit.getJob(cast.notary, cast.job.id)).status).toBe('in_session');
    expect((await kit.call(cast.notary, 'POST', `${base}/start`)).json().message).toBe('The session has already started.');

    // Heartbeats: refusals, then a participant silent for 90 s is shown as away until they beat again.
    const beat = (person: TestUser, role: string) => kit.call(person, 'POST', '/api/video/heartbeat', { sessionId: session.sessionId, role });
    expect((await anonymous('POST', '/api/video/heartbeat', { sessionId: session.sessionId, role: 'signer' })).statusCode).toBe(401);
    expect((await kit.call(cast.signer, 'POST', '/api/video/heartbeat', { sessionId: 'x', role: 'signer' })).statusCode).toBe(400);
    expect((await beat(cast.stranger, 'signer')).statusCode).toBe(404);
    expect((await beat(cast.observer, 'observer')).json()).toMatchObject({ error: 'forbidden', message: 'Enter the session first.' });
    expect((await beat(cast.signer, 'witness')).statusCode).toBe(403);
    await t.db
      .update(videoSessionParticipants)
      .set({ lastHeartbeatAt: new Date(Date.now() - 91_000) })
      .where(and(eq(videoSessionParticipants.sessionId, session.sessionId), eq(videoSessionParticipants.userId, cast.signer.id)));
    const awayView = (await kit.call(cast.notary, 'GET', base)).json() as VideoSession;
    expect(awayView.participants.filter((person) => person.isAway).map((person) => person.role)).toEqual(['signer']);
    expect((await beat(cast.signer, 'signer')).json()).toMatchObject({ ok: true, lastHeartbeatAt: expect.any(String) });
    expect(((await kit.call(cast.notary, 'GET', base)).json() as VideoSession).participants.some((person) => person.isAway)).toBe(false);

    // Administrators see live sessions; nobody else does.
    const admin = await t.createUser({ roles: ['admin'] });
    for (const person of [cast.notary, cast.signer]) expect((await kit.call(person, 'GET', '/api/video/debug/info')).statusCode).toBe(403);
    expect((await anonymous('GET', '/api/video/debug/info')).statusCode).toBe(401);
    const debug = (await kit.call(admin, 'GET', '/api/video/debug/info')).json() as { sessions: Array<VideoSession & { jobTitle: string; stats: unknown }> };
    const live = debug.sessions.find((item) => item.sessionId === session.sessionId);
    expect(live).toMatchObject({ jobTitle: 'Deed of trust', status: 'started', stats: null });
    expect(live?.participants.map((person) => person.role)).toEqual(['notary', 'signer', 'witness']);
    // Once the media hub holds the session's room, its figures are shown too.
    hub.createRoom(session.sessionId);
    const withRoom = (await kit.call(admin, 'GET', '/api/video/debug/info')).json() as { sessions: Array<{ sessionId: string; stats: unknown }> };
    expect(withRoom.sessions.find((item) => item.sessionId === session.sessionId)?.stats).toMatchObject({
      roomId: session.sessionId,
      participants: [],
      inboundBitrate: 0,
      packetsLost: 0,
    });

    const finalized = await kit.call(cast.notary, 'POST', `${base}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    const ended = finalized.json() as VideoSession;
    expect(ended.status).toBe('finalized');
    expect(ended.participants.every((person) => person.lobbyState === 'left')).toBe(true);
    expect((await kit.getJob(cast.notary, cast.job.id)).status).toBe('ready');
    expect((await kit.call(cast.notary, 'POST', `${base}/finalize`)).json()).toMatchObject({ error: 'conflict', message: 'This session has ended.' });
    expect((await beat(cast.signer, 'signer')).statusCode).toBe(409);
    expect(
      (await kit.call(admin, 'GET', '/api/video/debug/info')).json().sessions.some((item: { sessionId: string }) => item.sessionId === session.sessionId),
    ).toBe(false);

    const trail = (await kit.call(cast.notary, 'GET', `/api/jobs/${cast.job.id}/audit`)).json().events as Array<{
      action: string;
      actorName: string;
      data: Record<string, unknown>;
    }>;
    const sessionEvents = trail.filter((event) => ['video.started', 'video.finalized', 'job.status_changed'].includes(event.action)).slice(-4);
    expect(sessionEvents.map((event) => describeAuditEvent(event))).toEqual([
      `${cast.notary.name} started the session. Reason: The live session started.`,
      `${cast.notary.name} began the notarial act in the live session with ${cast.signer.name}, ${cast.witness.name} present.`,
      `${cast.notary.name} paused the session. Reason: The live session ended before the job was sealed.`,
      `${cast.notary.name} ended the live session.`,
    ]);
  });
});

describe('the session follows changes to the job (attack review)', () => {
  it('gives a signer demoted to observer after admission no signer token, and does not count them as a signer at start', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    await join(cast.signer, cast);
    await admit(cast, session.sessionId, cast.signer);
    await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/activate/notary-desk`);
    const demoted = await kit.call(cast.agent, 'PATCH', `/api/jobs/${cast.job.id}/signers/${cast.idOf(cast.signer)}`, { role: 'observer' });
    expect(demoted.statusCode, demoted.body).toBe(200);

    const token = await kit.call(cast.signer, 'POST', '/api/video/token', {
      sessionId: session.sessionId,
      role: 'signer',
      participantId: cast.idOf(cast.signer),
      deviceGroupId: 'laptop-1',
    });
    expect(token.statusCode, token.body).toBe(403);
    const start = await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/start`);
    expect(start.statusCode, start.body).toBe(409);
    expect(start.json().message).toBe('Admit at least one signer before starting the session.');
    // Entering again takes the new role, and the notary decides again.
    expect((await join(cast.signer, cast)).json()).toMatchObject({ role: 'observer', lobbyState: 'waiting', canSign: false });
  });

  it('does not count a signer removed from the job after admission as a signer at start', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    await join(cast.signer, cast);
    await admit(cast, session.sessionId, cast.signer);
    await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/activate/notary-desk`);
    const removed = await kit.call(cast.agent, 'DELETE', `/api/jobs/${cast.job.id}/signers/${cast.idOf(cast.signer)}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const start = await kit.call(cast.notary, 'POST', `/api/video/session/${session.sessionId}/start`);
    expect(start.statusCode, start.body).toBe(409);
  });

  it('counts only the current notary as present after the notary was replaced', async () => {
    const cast = await castJob();
    await openSession(cast);
    const newNotary = await kit.createNotary();
    const replaced = await kit.call(cast.agent, 'POST', `/api/jobs/${cast.job.id}/replace-notary`, { notaryId: newNotary.id });
    expect(replaced.statusCode, replaced.body).toBe(200);
    // The replaced notary was heard from just now; the new one has not entered.
    const canEnter = (await kit.call(cast.signer, 'GET', `/api/jobs/${cast.job.id}/can-enter`)).json();
    expect(canEnter).toMatchObject({ canEnter: false, reasons: ['The notary is not in the session yet.'] });
    expect((await join(cast.signer, cast)).statusCode).toBe(409);

    // The replaced notary has left the session: the new notary's view names one notary, the new one.
    const session = await kit.call(newNotary, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent('new-desk'));
    expect(session.statusCode, session.body).toBe(200);
    const view = (await kit.call(newNotary, 'GET', `/api/video/session/${session.json().sessionId}`)).json() as VideoSession;
    const notaries = view.participants.filter((person) => person.participantId === 'notary' && person.lobbyState !== 'left');
    expect(notaries.map((person) => person.userId)).toEqual([newNotary.id]);
    expect(view.participants.find((person) => person.userId === cast.notary.id)).toMatchObject({ lobbyState: 'left' });
  });

  it('issues no media token and takes no heartbeat once the job is cancelled', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    await join(cast.signer, cast);
    await admit(cast, session.sessionId, cast.signer);
    await kit.moveJob(cast.agent, cast.job.id, ['cancelled']);
    const token = await kit.call(cast.signer, 'POST', '/api/video/token', {
      sessionId: session.sessionId,
      role: 'signer',
      participantId: cast.idOf(cast.signer),
      deviceGroupId: 'laptop-1',
    });
    expect(token.statusCode, token.body).toBe(409);
    const notaryToken = await kit.call(cast.notary, 'POST', '/api/video/token', {
      sessionId: session.sessionId,
      role: 'notary',
      participantId: 'notary',
      deviceGroupId: 'notary-desk',
    });
    expect(notaryToken.statusCode, notaryToken.body).toBe(409);
    expect((await kit.call(cast.signer, 'POST', '/api/video/heartbeat', { sessionId: session.sessionId, role: 'signer' })).statusCode).toBe(409);
  });
});

describe('concurrency and malformed input (attack review)', () => {
  it('keeps one row per person when joins and admissions race, and answers bad bodies with the error shape', async () => {
    const cast = await castJob();
    const session = await openSession(cast);
    const joins = await Promise.all([join(cast.signer, cast), join(cast.signer, cast, 'phone-2'), join(cast.witness, cast), join(cast.observer, cast)]);
    expect(joins.map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
    const admitUrl = (person: TestUser) => `/api/video/session/${session.sessionId}/participants/${cast.idOf(person)}/admit`;
    const decided = await Promise.all([
      kit.call(cast.notary, 'POST', admitUrl(cast.signer)),
      kit.call(cast.notary, 'POST', admitUrl(cast.signer)),
      join(cast.signer, cast),
    ]);
    expect(decided.map((res) => res.statusCode)).toEqual([200, 200, 200]);
    const view = (await kit.call(cast.notary, 'GET', `/api/video/session/${session.sessionId}`)).json() as VideoSession;
    expect(view.participants.filter((person) => person.role === 'signer')).toHaveLength(1);

    const bodies: Array<[string, string, unknown]> = [
      ['POST', '/api/video/token', {}],
      ['POST', '/api/video/token', []],
      ['POST', '/api/video/token', { sessionId: session.sessionId, role: 'signer', participantId: 'someone', deviceGroupId: 'laptop-1' }],
      ['POST', '/api/video/token', { sessionId: session.sessionId, role: 'signer', participantId: cast.idOf(cast.signer), deviceGroupId: 'x'.repeat(65) }],
      ['POST', '/api/video/heartbeat', { sessionId: session.sessionId, role: 'admin' }],
      ['POST', '/api/video/session', { jobId: 42 }],
      ['POST', `/api/jobs/${cast.job.id}/session/join`, { consentToRecording: 'true', deviceGroupId: 'laptop-1' }],
      ['POST', `/api/video/session/${session.sessionId}/participants/not-a-uuid/deny`, undefined],
      ['POST', `/api/video/session/${session.sessionId}/activate/${'x'.repeat(65)}`, undefined],
    ];
    for (const [method, url, payload] of bodies) {
      const res = await t.app.inject({
        method: method as 'POST',
        url,
        headers: await kit.headersFor(cast.signer),
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      expect(res.statusCode, `${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(res.json(), url).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/video/token',
      headers: { ...(await kit.headersFor(cast.signer)), 'content-type': 'application/json' },
      payload: '{"sessionId":',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });
});

describe('people of another job, a replaced notary, a re-opened session (attack review)', () => {
  it('refuses them all and binds nothing across sessions', async () => {
    const cast = await castJob();
    const other = await castJob();
    const session = await openSession(cast);
    const otherSession = await openSession(other);
    await join(cast.signer, cast);
    const base = `/api/video/session/${session.sessionId}`;
    const actions = [
      `${base}/activate/notary-desk`,
      `${base}/start`,
      `${base}/finalize`,
      `${base}/participants/${cast.idOf(cast.signer)}/admit`,
      `${base}/participants/${cast.idOf(cast.signer)}/deny`,
    ];
    for (const person of [other.notary, other.signer]) {
      for (const url of actions) expect((await kit.call(person, 'POST', url)).statusCode, url).toBe(404);
      expect((await kit.call(person, 'GET', base)).statusCode).toBe(404);
    }
    // The other job's notary cannot reach this job's signer through their own session.
    expect((await kit.call(other.notary, 'POST', `/api/video/session/${otherSession.sessionId}/participants/${cast.idOf(cast.signer)}/admit`)).statusCode).toBe(
      404,
    );
    // A participant never admits themselves.
    expect((await kit.call(cast.signer, 'POST', `${base}/participants/${cast.idOf(cast.signer)}/admit`)).statusCode).toBe(403);

    // The replaced notary loses the session; the new one enters as the notary.
    const newNotary = await kit.createNotary();
    expect((await kit.call(cast.agent, 'POST', `/api/jobs/${cast.job.id}/replace-notary`, { notaryId: newNotary.id })).statusCode).toBe(200);
    for (const url of actions) expect((await kit.call(cast.notary, 'POST', url)).statusCode, url).toBe(404);
    expect(
      (
        await kit.call(cast.notary, 'POST', '/api/video/token', {
          sessionId: session.sessionId,
          role: 'notary',
          participantId: 'notary',
          deviceGroupId: 'notary-desk',
        })
      ).statusCode,
    ).toBe(404);
    expect((await kit.call(cast.notary, 'POST', '/api/video/heartbeat', { sessionId: session.sessionId, role: 'notary' })).statusCode).toBe(404);
    expect((await kit.call(newNotary, 'POST', `/api/jobs/${cast.job.id}/session/join`, consent('new-desk'))).json()).toMatchObject({
      role: 'notary',
      lobbyState: 'admitted',
    });
    expect((await kit.call(cast.signer, 'GET', `/api/jobs/${cast.job.id}/can-enter`)).json()).toMatchObject({ canEnter: true });
    await kit.call(newNotary, 'POST', `${base}/participants/${cast.idOf(cast.signer)}/admit`);
    const token = (
      await kit.call(cast.signer, 'POST', '/api/video/token', {
        sessionId: session.sessionId,
        role: 'signer',
        participantId: cast.idOf(cast.signer),
        deviceGroupId: 'laptop-1',
      })
    ).json().token as string;

    // Finalized and re-opened: the old token names the old session only.
    expect((await kit.call(newNotary, 'POST', `${base}/finalize`)).statusCode).toBe(200);
    const reopened = await kit.call(newNotary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect(reopened.statusCode).toBe(201);
    expect(verifyVideoToken(t.secretsKey, token, { userId: cast.signer.id, sessionId: reopened.json().sessionId })).toMatchObject({ isValid: false });
    expect((await kit.call(newNotary, 'POST', `${base}/participants/${cast.idOf(cast.signer)}/admit`)).statusCode).toBe(409);
  });
});
