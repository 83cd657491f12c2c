import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Participant } from '#shared/jobs.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

/** The filters of GET /api/jobs behind each role's home: waiting for me, my notary jobs, a day's sessions, counts by status. */
let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const list = async (user: TestUser, query: string) => {
  const res = await kit.call(user, 'GET', `/api/jobs?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Array<{ id: string; title: string; isInvitation: boolean }>; total: number; statusCounts?: Record<string, number> };
};
const titlesOf = (body: { items: Array<{ title: string }> }) => body.items.map((item) => item.title).sort();

describe('waitingFor=me', () => {
  let sam: TestUser;
  let agent: TestUser;
  let notary: TestUser;
  beforeAll(async () => {
    sam = await t.createUser({ roles: ['signer'], name: 'Sam Signer', isEmailVerified: true });
    agent = await t.createUser({ roles: ['title_agent'] });
    notary = await kit.createNotary({ name: 'Nora Notary' });
    await kit.saveSignature(notary);
    await kit.saveSignature(sam);

    /** A job with Sam in a role, accepted by Sam, moved to the given statuses by the notary. */
    const jobWithSam = async (title: string, role: 'signer' | 'witness' | 'observer', statuses: Array<'ready' | 'in_session' | 'cancelled'>) => {
      // Someone else signs too, so every job may be marked ready whatever Sam's role.
      const signers = [
        { name: sam.name, email: sam.email, role },
        { name: 'Olga Other', email: uniqueEmail('olga') },
      ];
      const job = await kit.createJob(agent, { title, notaryId: notary.id, signers });
      expect((await kit.acceptInvitation(sam)).statusCode).toBe(200);
      if (statuses.length > 0) await kit.uploadPdf(agent, job.id);
      // Only the job's owners cancel it; the notary moves it along.
      for (const status of statuses) await kit.moveJob(status === 'cancelled' ? agent : notary, job.id, [status]);
      return job;
    };
    await jobWithSam('Ready for Sam', 'signer', ['ready']);
    await jobWithSam('Live for Sam the witness', 'witness', ['ready', 'in_session']);
    await jobWithSam('Draft with Sam', 'signer', []);
    await jobWithSam('Sam only observes', 'observer', ['ready']);
    await jobWithSam('Cancelled for Sam', 'signer', ['cancelled']);

    // Sam signed every field he had: the job waits for someone else now, not for him.
    const signed = await jobWithSam('Sam has signed', 'signer', ['ready']);
    await kit.startRecordedSession(notary, signed.id, [sam]);
    const documents = (await kit.call(agent, 'GET', `/api/jobs/${signed.id}/documents`)).json().items as Array<{ id: string }>;
    const fields = `/api/jobs/${signed.id}/documents/${documents[0]?.id}/fields`;
    const participant = (await kit.getJob(agent, signed.id)).participants[0] as Participant;
    const placed = await kit.call(notary, 'POST', fields, {
      type: 'signature',
      participantId: participant.id,
      page: 1,
      x: 0.1,
      y: 0.1,
      width: 0.3,
      height: 0.06,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const filled = await kit.call(sam, 'POST', `${fields}/${placed.json().id as string}/fill`, { version: 1 });
    expect(filled.statusCode, filled.body).toBe(200);

    // An invitation to Sam's confirmed address that he has not accepted yet waits for him too.
    await kit.createJob(agent, { title: 'Invitation for Sam', signers: [{ name: sam.name, email: sam.email }] });
  });

  it('lists the open jobs where the person still signs or witnesses, and their invitations', async () => {
    const body = await list(sam, 'waitingFor=me');
    expect(titlesOf(body)).toEqual(['Invitation for Sam', 'Live for Sam the witness', 'Ready for Sam']);
    expect(body.total).toBe(3);
    expect(body.items.find((item) => item.title === 'Invitation for Sam')?.isInvitation).toBe(true);
  });

  it('lists every job the person may see without the filter', async () => {
    expect((await list(sam, '')).total).toBe(7);
  });

  it('is about the caller only: the job’s preparer and notary are not waited for as signers', async () => {
    expect((await list(agent, 'waitingFor=me')).items).toEqual([]);
    expect((await list(notary, 'waitingFor=me')).items).toEqual([]);
  });
});

describe('notary=me and the scheduled window', () => {
  let notary: TestUser;
  let otherNotary: TestUser;
  let agent: TestUser;
  beforeAll(async () => {
    notary = await kit.createNotary({ name: 'Nina Notary' });
    otherNotary = await kit.createNotary({ name: 'Oscar Notary' });
    agent = await t.createUser({ roles: ['title_agent'] });
    const signers = [{ name: 'Pat Person', email: uniqueEmail('pat') }];
    await kit.createJob(agent, { title: 'Morning closing', notaryId: notary.id, signers, scheduledAt: '2031-03-04T09:00:00.000Z' });
    await kit.createJob(agent, { title: 'Evening closing', notaryId: notary.id, signers, scheduledAt: '2031-03-04T23:59:59.000Z' });
    await kit.createJob(agent, { title: 'Next day closing', notaryId: notary.id, signers, scheduledAt: '2031-03-05T00:00:00.000Z' });
    await kit.createJob(agent, { title: 'Unscheduled closing', notaryId: notary.id, signers });
    await kit.createJob(agent, { title: 'Oscar’s closing', notaryId: otherNotary.id, signers, scheduledAt: '2031-03-04T10:00:00.000Z' });
  });

  it('lists only the jobs whose notary is the caller', async () => {
    expect(titlesOf(await list(notary, 'notary=me'))).toEqual(['Evening closing', 'Morning closing', 'Next day closing', 'Unscheduled closing']);
    expect(titlesOf(await list(otherNotary, 'notary=me'))).toEqual(['Oscar’s closing']);
    expect((await list(agent, 'notary=me')).items).toEqual([]);
  });

  it('keeps the sessions scheduled from the start of the window up to, not including, its end', async () => {
    const window = `scheduledFrom=${encodeURIComponent('2031-03-04T00:00:00.000Z')}&scheduledTo=${encodeURIComponent('2031-03-05T00:00:00.000Z')}`;
    expect(titlesOf(await list(notary, `notary=me&${window}`))).toEqual(['Evening closing', 'Morning closing']);
    expect(titlesOf(await list(agent, window))).toEqual(['Evening closing', 'Morning closing', 'Oscar’s closing']);
  });

  it('reads a window given with a time-zone offset', async () => {
    // 4 March in Sydney (+10:00) ends at 14:00 UTC: only the morning closing falls in it.
    const window = `scheduledFrom=${encodeURIComponent('2031-03-04T00:00:00+10:00')}&scheduledTo=${encodeURIComponent('2031-03-05T00:00:00+10:00')}`;
    expect(titlesOf(await list(notary, `notary=me&${window}`))).toEqual(['Morning closing']);
  });

  it.each([
    ['notary=someone', 'Use notary=me to list the jobs whose notary you are.'],
    ['waitingFor=everyone', 'Use waitingFor=me to list the jobs waiting for you.'],
    ['scheduledFrom=tomorrow', 'Give scheduledFrom as an ISO date and time with its time zone.'],
    ['scheduledTo=2031-03-04', 'Give scheduledTo as an ISO date and time with its time zone.'],
    ['withStatusCounts=perhaps', 'Use withStatusCounts=true or false.'],
  ])('refuses %s with a sentence', async (query, message) => {
    const res = await kit.call(agent, 'GET', `/api/jobs?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
  });

  it.each([
    ['scheduledFrom', '0000-01-01T00:00:00Z'],
    ['scheduledTo', '9999-12-31T23:59:59-23:59'],
  ])('refuses %s=%s, a valid ISO instant outside the years the database stores, with a sentence, not a 500', async (name, value) => {
    const res = await kit.call(agent, 'GET', `/api/jobs?${name}=${encodeURIComponent(value)}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: `Give ${name} as an ISO date and time with its time zone.` });
  });
});

describe('withStatusCounts=true', () => {
  let agent: TestUser;
  let notary: TestUser;
  beforeAll(async () => {
    agent = await t.createUser({ roles: ['title_agent'] });
    notary = await kit.createNotary();
    const signers = [{ name: 'Cory Count', email: uniqueEmail('cory') }];
    await kit.createJob(agent, { title: 'Count draft one', signers });
    await kit.createJob(agent, { title: 'Count draft two', signers });
    const ready = await kit.createJob(agent, { title: 'Count ready', signers, notaryId: notary.id });
    await kit.uploadPdf(agent, ready.id);
    await kit.moveJob(agent, ready.id, ['ready']);
    // Someone else's job is never counted.
    await kit.createJob(await t.createUser({ roles: ['title_agent'] }), { title: 'Other company draft', signers });
  });

  it('counts the caller’s jobs in every status, whatever the status filter', async () => {
    const expected = { draft: 2, ready: 1, scheduled: 0, in_session: 0, completed: 0, cancelled: 0 };
    expect((await list(agent, 'withStatusCounts=true&pageSize=1')).statusCounts).toEqual(expected);
    const readyOnly = await list(agent, 'withStatusCounts=true&status=ready');
    expect(titlesOf(readyOnly)).toEqual(['Count ready']);
    expect(readyOnly.statusCounts).toEqual(expected);
  });

  it('counts only what the other filters keep', async () => {
    expect((await list(agent, 'withStatusCounts=true&q=draft%20one')).statusCounts).toMatchObject({ draft: 1, ready: 0 });
  });

  it('leaves the counts out unless asked', async () => {
    expect(await list(agent, 'pageSize=1')).not.toHaveProperty('statusCounts');
    expect(await list(agent, 'withStatusCounts=false')).not.toHaveProperty('statusCounts');
  });
});
