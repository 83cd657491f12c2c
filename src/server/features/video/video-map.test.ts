import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import type { SharedVideoMap, VideoSession } from '#shared/video.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob } from '#test/video-cast.ts';

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => {
  await t?.close();
});

const consent = (deviceGroupId: string) => ({ consentToRecording: true, deviceGroupId });

interface Cast {
  job: Job;
  session: VideoSession;
  agent: TestUser;
  notary: TestUser;
  signer: TestUser;
  witness: TestUser;
  observer: TestUser;
  stranger: TestUser;
  idOf: (person: TestUser) => string;
  mapUrl: string;
}

/** A ready job whose notary opened and entered the session; the signer and witness are admitted, the observer waits. */
async function castSession(): Promise<Cast> {
  const { job, agent, notary, signer, witness, observer, stranger, idOf } = await castVideoJob(t, kit);
  const opened = await kit.call(notary, 'POST', '/api/video/session', { jobId: job.id });
  expect(opened.statusCode, opened.body).toBe(201);
  const session = opened.json() as VideoSession;
  for (const person of [notary, signer, witness, observer]) {
    const joined = await kit.call(person, 'POST', `/api/jobs/${job.id}/session/join`, consent(`${person.id.slice(0, 8)}-desk`));
    expect(joined.statusCode, joined.body).toBe(200);
  }
  for (const person of [signer, witness]) {
    const admitted = await kit.call(notary, 'POST', `/api/video/session/${session.sessionId}/participants/${idOf(person)}/admit`);
    expect(admitted.statusCode, admitted.body).toBe(200);
  }
  return { job, session, agent, notary, signer, witness, observer, stranger, idOf, mapUrl: `/api/video/session/${session.sessionId}/shared-video-map` };
}

describe('GET /api/video/session/:sid/shared-video-map', () => {
  it('shows the empty map at version 0 to the notary and admitted people, and refuses everyone else', async () => {
    const cast = await castSession();
    const empty = { sessionId: cast.session.sessionId, assignments: [], version: 0 };
    expect((await kit.call(cast.notary, 'GET', cast.mapUrl)).json()).toEqual(empty);
    expect((await kit.call(cast.signer, 'GET', cast.mapUrl)).json()).toEqual(empty);
    expect((await kit.call(cast.witness, 'GET', cast.mapUrl)).json()).toEqual(empty);

    expect((await t.app.inject({ method: 'GET', url: cast.mapUrl })).statusCode).toBe(401);
    const waiting = await kit.call(cast.observer, 'GET', cast.mapUrl);
    expect(waiting.statusCode).toBe(403);
    expect(waiting.json()).toEqual({ error: 'forbidden', message: 'Only the notary and the people admitted to the session see who is shown where.' });
    expect((await kit.call(cast.agent, 'GET', cast.mapUrl)).statusCode).toBe(403);
    const stranger = await kit.call(cast.stranger, 'GET', cast.mapUrl);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('you may not see it') });
    expect((await kit.call(cast.notary, 'GET', '/api/video/session/not-a-uuid/shared-video-map')).statusCode).toBe(400);
  });

  it('stops showing the map to someone the notary removed', async () => {
    const cast = await castSession();
    expect((await kit.call(cast.notary, 'POST', `/api/video/session/${cast.session.sessionId}/participants/${cast.idOf(cast.witness)}/deny`)).statusCode).toBe(
      200,
    );
    expect((await kit.call(cast.witness, 'GET', cast.mapUrl)).statusCode).toBe(403);
  });
});

describe('POST /api/video/session/:sid/shared-video-map', () => {
  it('stores the notary’s layout as the next version, shows it to everyone admitted and announces it on the job’s live channel', async () => {
    const cast = await castSession();
    const heard: unknown[] = [];
    const unsubscribe = await t.realtime.subscribe(`job:${cast.job.id}`, (message) => heard.push(JSON.parse(message)));
    try {
      const assignments = [
        { slot: 4, participantId: 'notary' },
        { slot: 0, participantId: cast.idOf(cast.signer) },
        { slot: 8, participantId: cast.idOf(cast.witness) },
      ];
      const saved = await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments, version: 0 });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toEqual({ sessionId: cast.session.sessionId, assignments, version: 1 });
      expect((await kit.call(cast.signer, 'GET', cast.mapUrl)).json()).toEqual({ sessionId: cast.session.sessionId, assignments, version: 1 });
      await expect.poll(() => heard).toContainEqual({ type: 'video-map', version: 1, assignments });

      const cleared = await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments: [], version: 1 });
      expect(cleared.json()).toEqual({ sessionId: cast.session.sessionId, assignments: [], version: 2 });
      await expect.poll(() => heard).toContainEqual({ type: 'video-map', version: 2, assignments: [] });
    } finally {
      await unsubscribe();
    }
  });

  it('lets only the job’s notary change the map', async () => {
    const cast = await castSession();
    const body = { assignments: [{ slot: 0, participantId: cast.idOf(cast.signer) }], version: 0 };
    const bySigner = await kit.call(cast.signer, 'POST', cast.mapUrl, body);
    expect(bySigner.statusCode).toBe(403);
    expect(bySigner.json()).toEqual({ error: 'forbidden', message: 'Only the job’s notary may arrange who is shown where.' });
    expect((await kit.call(cast.observer, 'POST', cast.mapUrl, body)).statusCode).toBe(403);
    expect((await kit.call(cast.agent, 'POST', cast.mapUrl, body)).statusCode).toBe(403);
    expect((await kit.call(cast.stranger, 'POST', cast.mapUrl, body)).statusCode).toBe(404);
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'POST', cast.mapUrl, body)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: cast.mapUrl, payload: body })).statusCode).toBe(401);
    expect((await kit.call(cast.notary, 'GET', cast.mapUrl)).json()).toMatchObject({ assignments: [], version: 0 });
  });

  it('refuses a map naming someone not admitted, a slot twice, a person twice, a slot out of range or too many people, with a sentence', async () => {
    const cast = await castSession();
    const post = (assignments: unknown, version: unknown = 0) =>
      kit.call(cast.notary, 'POST', cast.mapUrl, { assignments, version } as Record<string, unknown>);

    const waiting = await post([{ slot: 0, participantId: cast.idOf(cast.observer) }]);
    expect(waiting.statusCode).toBe(400);
    expect(waiting.json()).toEqual({
      error: 'bad_request',
      message: 'The map may show only the notary and people admitted to this session.',
      detail: { unknownParticipantIds: [cast.idOf(cast.observer)] },
    });
    const unknownId = '00000000-0000-4000-8000-000000000000';
    expect((await post([{ slot: 1, participantId: unknownId }])).json()).toMatchObject({
      error: 'bad_request',
      detail: { unknownParticipantIds: [unknownId] },
    });

    const twiceSlot = await post([
      { slot: 2, participantId: 'notary' },
      { slot: 2, participantId: cast.idOf(cast.signer) },
    ]);
    expect(twiceSlot.statusCode).toBe(400);
    expect(twiceSlot.json()).toMatchObject({
      error: 'validation_failed',
      message: 'Slot 2 is given twice.',
      detail: [{ path: 'assignments.1.slot', message: 'Slot 2 is given twice.' }],
    });

    const twicePerson = await post([
      { slot: 0, participantId: 'notary' },
      { slot: 1, participantId: 'notary' },
    ]);
    expect(twicePerson.json()).toMatchObject({ error: 'validation_failed', message: 'Each person is shown in one slot only.' });

    for (const slot of [9, -1, 1.5]) {
      const res = await post([{ slot, participantId: 'notary' }]);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'slot must be a whole number from 0 to 8.' });
    }
    const tooMany = await post(Array.from({ length: 10 }, (_, slot) => ({ slot: slot % 9, participantId: 'notary' })));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ error: 'validation_failed', message: 'A map holds at most 9 people, one per slot.' });
    expect((await post([{ slot: 0, participantId: 'someone' }])).json()).toMatchObject({
      error: 'validation_failed',
      message: 'participantId is "notary" or the id of a participant of the job.',
    });
    expect((await post('everyone')).statusCode).toBe(400);
    expect((await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments: [] })).json()).toMatchObject({
      error: 'validation_failed',
      message: 'Send the version of the map you changed.',
    });

    expect((await kit.call(cast.notary, 'GET', cast.mapUrl)).json()).toMatchObject({ assignments: [], version: 0 });
  });

  it('refuses a change drawn from a stale version with 409 and the current version', async () => {
    const cast = await castSession();
    expect((await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments: [{ slot: 0, participantId: 'notary' }], version: 0 })).statusCode).toBe(200);
    for (const version of [0, 5]) {
      const stale = await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments: [{ slot: 3, participantId: cast.idOf(cast.signer) }], version });
      expect(stale.statusCode).toBe(409);
      expect(stale.json()).toEqual({
        error: 'conflict',
        message: 'Someone changed the map since you loaded it; load it again and redo your change.',
        detail: { currentVersion: 1 },
      });
    }
    expect((await kit.call(cast.signer, 'GET', cast.mapUrl)).json()).toMatchObject({ assignments: [{ slot: 0, participantId: 'notary' }], version: 1 });
  });

  it('lets exactly one of several changes sent at once from the same version win', async () => {
    const cast = await castSession();
    const heard: Array<{ type?: string }> = [];
    const unsubscribe = await t.realtime.subscribe(`job:${cast.job.id}`, (message) => heard.push(JSON.parse(message) as { type?: string }));
    try {
      const candidates = [cast.signer, cast.witness, cast.signer, cast.witness].map((person, slot) => [{ slot, participantId: cast.idOf(person) }]);
      const results = await Promise.all(candidates.map((assignments) => kit.call(cast.notary, 'POST', cast.mapUrl, { assignments, version: 0 })));
      const winners = results.filter((res) => res.statusCode === 200);
      const losers = results.filter((res) => res.statusCode === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(candidates.length - 1);
      for (const loser of losers) expect(loser.json()).toMatchObject({ error: 'conflict', detail: { currentVersion: 1 } });
      const won = winners[0]?.json() as SharedVideoMap;
      expect(won.version).toBe(1);
      expect((await kit.call(cast.notary, 'GET', cast.mapUrl)).json()).toEqual(won);
      await expect.poll(() => heard.filter((message) => message.type === 'video-map')).toHaveLength(1);
    } finally {
      await unsubscribe();
    }
  });

  it('refuses to change the map of a session that has ended', async () => {
    const cast = await castSession();
    expect((await kit.call(cast.notary, 'POST', `/api/video/session/${cast.session.sessionId}/finalize`)).statusCode).toBe(200);
    const late = await kit.call(cast.notary, 'POST', cast.mapUrl, { assignments: [], version: 0 });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ error: 'conflict', message: 'This session has ended.' });
    expect((await kit.call(cast.signer, 'GET', cast.mapUrl)).statusCode).toBe(403);
  });
});
