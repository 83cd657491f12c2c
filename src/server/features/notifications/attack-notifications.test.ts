import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingJobItem } from '#shared/notifications.ts';
import { notificationDismissals } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob } from '#test/video-cast.ts';

/**
 * The bell attacked: the 'session_open' item a notary's opened room adds, other people's
 * jobs and sessions, other people's dismissals, and odd kinds.
 */

let t: TestApp;
let kit: JobKit;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'] });
});
afterAll(async () => t?.close());

const pendingUrl = '/api/notifications/users/me/pending-jobs';

async function itemsOf(person: TestUser): Promise<PendingJobItem[]> {
  const res = await kit.call(person, 'GET', pendingUrl);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as PendingJobItem[];
}

function expectErrorShape(body: string) {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(typeof parsed.message, body).toBe('string');
}

/** A ready job whose notary opened the room (not started). */
async function openRoom() {
  const cast = await castVideoJob(t, kit);
  const opened = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
  expect([200, 201], opened.body).toContain(opened.statusCode);
  return cast;
}

describe('the session_open item', () => {
  it('goes to the job’s notary and its accepted participants, never to a stranger, another notary, the title agent’s rival or an admin not on the job', async () => {
    const cast = await openRoom();
    for (const person of [cast.notary, cast.signer, cast.witness]) {
      const open = (await itemsOf(person)).filter((item) => item.jobId === cast.job.id);
      expect(
        open.map((item) => item.kind),
        person.email,
      ).toEqual(['session_open']);
    }
    const otherNotary = await kit.createNotary();
    const rivalAgent = await t.createUser({ roles: ['title_agent'] });
    for (const person of [cast.stranger, otherNotary, rivalAgent, admin]) {
      const items = await itemsOf(person);
      expect(
        items.filter((item) => item.jobId === cast.job.id),
        person.email,
      ).toEqual([]);
      expect(JSON.stringify(items)).not.toContain(cast.job.title === 'Deed of trust' ? cast.job.id : cast.job.title);
    }
  });

  it('leaves the replaced notary’s bell when another notary takes the job, and the new notary sees no room they did not open', async () => {
    const cast = await castVideoJob(t, kit);
    const opened = await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect([200, 201]).toContain(opened.statusCode);
    const successor = await kit.createNotary();
    const replaced = await kit.call(cast.agent, 'POST', `/api/jobs/${cast.job.id}/replace-notary`, { notaryId: successor.id });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect((await itemsOf(cast.notary)).filter((item) => item.jobId === cast.job.id)).toEqual([]);
    // Whatever the successor is told, it is about their own job now, and nothing blocks on a room that left with the old notary.
    const successorItems = (await itemsOf(successor)).filter((item) => item.jobId === cast.job.id);
    expect(successorItems.every((item) => item.kind !== 'session_live')).toBe(true);
  });

  it('tells nothing to a participant who has not accepted the invitation, or who was removed from the job', async () => {
    const cast = await castVideoJob(t, kit, { isAccepted: false });
    await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id });
    expect((await itemsOf(cast.signer)).filter((item) => item.jobId === cast.job.id && item.kind !== 'job_invitation')).toEqual([]);

    const removedCast = await openRoom();
    const removed = await kit.call(removedCast.agent, 'DELETE', `/api/jobs/${removedCast.job.id}/signers/${removedCast.idOf(removedCast.witness)}`);
    expect([200, 204], removed.body).toContain(removed.statusCode);
    expect((await itemsOf(removedCast.witness)).filter((item) => item.jobId === removedCast.job.id)).toEqual([]);
  });
});

describe('dismissing', () => {
  it('refuses dismissing on a job the person may not see, with the same answer as for a job that does not exist', async () => {
    const cast = await openRoom();
    const otherNotary = await kit.createNotary();
    const seen = await kit.call(cast.stranger, 'POST', '/api/notifications/dismiss', { jobId: cast.job.id, kind: 'session_open' });
    const missing = await kit.call(cast.stranger, 'POST', '/api/notifications/dismiss', {
      jobId: '00000000-0000-4000-8000-000000000000',
      kind: 'session_open',
    });
    expect(seen.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(seen.json()).toEqual(missing.json());
    expect((await kit.call(otherNotary, 'POST', '/api/notifications/dismiss', { jobId: cast.job.id, kind: 'job_invitation' })).statusCode).toBe(404);
    expect(await t.db.select().from(notificationDismissals).where(eq(notificationDismissals.jobId, cast.job.id))).toEqual([]);
  });

  it('hides an item from the one who dismissed it only: the signer’s dismissal leaves the witness’s and the notary’s session_open', async () => {
    const cast = await openRoom();
    const res = await kit.call(cast.signer, 'POST', '/api/notifications/dismiss', { jobId: cast.job.id, kind: 'session_open' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await itemsOf(cast.signer)).filter((item) => item.jobId === cast.job.id)).toEqual([]);
    for (const person of [cast.witness, cast.notary]) {
      expect(
        (await itemsOf(person)).filter((item) => item.jobId === cast.job.id).map((item) => item.kind),
        person.email,
      ).toEqual(['session_open']);
    }
  });

  it('answers 400, never 500, to a kind holding a NUL byte, control characters, nothing, or too many characters', async () => {
    const cast = await openRoom();
    for (const kind of ['session\u0000open', '\u0000', 'a\r\nBcc: x@example.test', '', '   ', 'k'.repeat(61), 'k'.repeat(10_000)]) {
      const res = await kit.call(cast.signer, 'POST', '/api/notifications/dismiss', { jobId: cast.job.id, kind });
      expect(res.statusCode, `${JSON.stringify(kind.slice(0, 20))}: ${res.body}`).toBe(400);
      expectErrorShape(res.body);
    }
    for (const payload of [
      { jobId: cast.job.id },
      { jobId: cast.job.id, kind: 42 },
      { jobId: `${cast.job.id}\u0000`, kind: 'session_open' },
      { jobId: null, kind: 'x' },
    ]) {
      const res = await kit.call(cast.signer, 'POST', '/api/notifications/dismiss', payload);
      expect(res.statusCode, res.body).toBe(400);
    }
    // The bell still answers after all of it.
    expect((await itemsOf(cast.signer)).filter((item) => item.jobId === cast.job.id).map((item) => item.kind)).toEqual(['session_open']);
  });

  it('stores an odd but printable kind without harm and still shows the real items', async () => {
    const cast = await openRoom();
    for (const kind of ['😀', 'שלום\u200d', "session_open' or '1'='1", 'k'.repeat(60)]) {
      const res = await kit.call(cast.signer, 'POST', '/api/notifications/dismiss', { jobId: cast.job.id, kind });
      expect([200, 400], res.body).toContain(res.statusCode);
    }
    expect((await itemsOf(cast.signer)).filter((item) => item.jobId === cast.job.id).map((item) => item.kind)).toEqual(['session_open']);
  });
});
