import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatuses, type Job, type JobStatus } from '#shared/jobs.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

/**
 * Every person who might touch a job × every (from, to) pair of statuses, written out by hand so
 * the test does not repeat the code's table: who may move a job, and what everyone else gets.
 */
const actors = ['creatorSigner', 'creatorTitle', 'jobNotary', 'otherNotary', 'admin', 'signer', 'witness', 'observer', 'billing'] as const;
type Actor = (typeof actors)[number];

const preparers: Actor[] = ['creatorSigner', 'creatorTitle'];
/** Who may make each move of the table by PATCH. */
const mayMove: Record<string, Actor[]> = {
  'draft>ready': [...preparers, 'jobNotary', 'admin'],
  'draft>cancelled': [...preparers, 'admin'],
  'ready>draft': [...preparers, 'jobNotary', 'admin'],
  'ready>scheduled': [...preparers, 'jobNotary', 'admin'],
  'ready>in_session': ['jobNotary'],
  'ready>cancelled': [...preparers, 'admin'],
  'scheduled>ready': [...preparers, 'jobNotary', 'admin'],
  'scheduled>in_session': ['jobNotary'],
  'scheduled>cancelled': [...preparers, 'admin'],
  'in_session>ready': ['jobNotary'],
  'in_session>completed': [],
  'in_session>cancelled': ['jobNotary', 'admin'],
};
const cannotSee: Actor[] = ['otherNotary', 'billing'];
const mayOnlyLook: Actor[] = ['signer', 'witness', 'observer'];

function expectedStatusCode(actor: Actor, from: JobStatus, to: JobStatus): number {
  if (cannotSee.includes(actor)) return 404;
  if (mayOnlyLook.includes(actor)) return 403;
  const allowed = mayMove[`${from}>${to}`];
  if (!allowed) return 409;
  if (allowed.includes(actor)) return 200;
  // Completing is the notary's, through POST /complete-job only.
  return to === 'completed' && actor === 'jobNotary' ? 409 : 403;
}

const pairs = jobStatuses.flatMap((from) => jobStatuses.filter((to) => to !== from).map((to) => [from, to] as [JobStatus, JobStatus]));

let t: TestApp;
let kit: JobKit;
let people: Record<Actor, TestUser>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '100000' });
  kit = createJobKit(t);
  people = {
    creatorSigner: await t.createUser({ roles: ['signer'], name: 'Cora Customer' }),
    creatorTitle: await t.createUser({ roles: ['title_agent'], name: 'Tia Title' }),
    jobNotary: await kit.createNotary({ name: 'Nora Notary' }),
    otherNotary: await kit.createNotary({ name: 'Otto Othernotary' }),
    admin: await t.createUser({ roles: ['admin'], name: 'Ada Admin' }),
    signer: await t.createUser({ roles: ['signer'], name: 'Sam Signer' }),
    witness: await t.createUser({ roles: ['witness'], name: 'Wes Witness' }),
    observer: await t.createUser({ roles: ['observer'], name: 'Oli Observer' }),
    billing: await t.createUser({ roles: ['billing'], name: 'Bill Billing' }),
  };
});
afterAll(async () => t?.close());

/** A job by this creator, with the notary, a signer, a witness and an observer who all accepted, moved to a status. */
async function jobIn(creator: TestUser, status: JobStatus): Promise<Job> {
  const { jobNotary, signer, witness, observer } = people;
  const job = await kit.createJob(creator, {
    notaryId: jobNotary.id,
    scheduledAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    signers: [
      { name: signer.name, email: signer.email },
      { name: witness.name, email: witness.email, role: 'witness' },
      { name: observer.name, email: observer.email, role: 'observer' },
      { name: 'Una Unlinked', email: uniqueEmail('una') },
    ],
  });
  for (const person of [signer, witness, observer]) expect((await kit.acceptInvitation(person)).statusCode).toBe(200);
  await kit.uploadPdf(creator, job.id);
  if (status === 'draft') return job;
  if (status === 'cancelled') return kit.moveJob(creator, job.id, ['cancelled']);
  if (status === 'scheduled') return kit.moveJob(creator, job.id, ['ready', 'scheduled']);
  await kit.moveJob(creator, job.id, ['ready']);
  if (status === 'ready') return kit.getJob(creator, job.id);
  const live = await kit.moveJob(jobNotary, job.id, ['in_session']);
  return status === 'in_session' ? live : kit.sealJob(jobNotary, job.id);
}

/** What an administrator sees of a job: enough to tell that a refused request changed nothing. */
async function snapshot(jobId: string) {
  const job = await kit.getJob(people.admin, jobId);
  const trail = (await kit.call(people.admin, 'GET', `/api/jobs/${jobId}/audit`)).json();
  return { status: job.status, version: job.version, updatedAt: job.updatedAt, events: trail.events.length as number };
}

const creatorOf = (actor: Actor) => (actor === 'creatorSigner' ? people.creatorSigner : people.creatorTitle);

/** One job per creator and status, shared by every refused request (a refusal changes nothing). */
const sharedJobs = new Map<string, Promise<Job>>();
function sharedJob(actor: Actor, status: JobStatus): Promise<Job> {
  const creator = creatorOf(actor);
  const key = `${creator.id}:${status}`;
  if (!sharedJobs.has(key)) sharedJobs.set(key, jobIn(creator, status));
  return sharedJobs.get(key) as Promise<Job>;
}

describe.each(actors)('PATCH /api/jobs/:id status moves by %s', (actor) => {
  it.each(pairs)(`${actor}: %s -> %s`, async (from, to) => {
    const expected = expectedStatusCode(actor, from, to);
    const job = expected === 200 ? await jobIn(creatorOf(actor), from) : await sharedJob(actor, from);
    expect(job.status).toBe(from);
    const before = await snapshot(job.id);
    const res = await kit.call(people[actor], 'PATCH', `/api/jobs/${job.id}`, { status: to, version: job.version, reason: 'table test' });
    expect(res.statusCode, res.body).toBe(expected);
    if (expected === 200) {
      expect(res.json()).toMatchObject({ status: to, version: job.version + 1 });
      const trail = (await kit.call(people.admin, 'GET', `/api/jobs/${job.id}/audit`)).json();
      expect(trail.events.at(-1)).toMatchObject({ action: 'job.status_changed', actorId: people[actor].id, data: { from, to, reason: 'table test' } });
      return;
    }
    const error = { 403: 'forbidden', 404: 'not_found', 409: 'invalid_transition' }[expected];
    expect(res.json()).toMatchObject({ error, message: expect.stringMatching(/^[A-Z].+\.$/) });
    expect(await snapshot(job.id)).toEqual(before);
  });

  it(`${actor}: the job lists only the moves this person may make now`, async () => {
    for (const status of jobStatuses) {
      const job = await sharedJob(actor, status);
      if (cannotSee.includes(actor)) {
        expect((await kit.call(people[actor], 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
        continue;
      }
      const seen = await kit.getJob(people[actor], job.id);
      const expected = jobStatuses.filter((to) => to !== status && expectedStatusCode(actor, status, to) === 200);
      expect(seen.allowedTransitions, `${actor} looking at a ${status} job`).toEqual(expected);
    }
  });
});

describe('the words of a refusal', () => {
  it('tells a creator that only the notary starts the session, and the notary how a job is completed', async () => {
    const ready = await jobIn(people.creatorSigner, 'ready');
    const start = await kit.call(people.creatorSigner, 'PATCH', `/api/jobs/${ready.id}`, { status: 'in_session', version: ready.version });
    expect(start.json()).toEqual({
      error: 'forbidden',
      message: 'Only the job’s notary may start the session.',
      detail: { from: 'ready', to: 'in_session', allowed: ['draft', 'scheduled', 'cancelled'] },
    });

    const live = await kit.moveJob(people.jobNotary, ready.id, ['in_session']);
    const complete = await kit.call(people.jobNotary, 'PATCH', `/api/jobs/${live.id}`, { status: 'completed', version: live.version });
    expect(complete.json()).toMatchObject({
      error: 'invalid_transition',
      message: 'A job is completed only by sealing it: the notary uses “Seal and complete the job” in the signing workspace.',
    });
    const cancel = await kit.call(people.creatorSigner, 'PATCH', `/api/jobs/${live.id}`, { status: 'cancelled', version: live.version });
    expect(cancel.json()).toMatchObject({ error: 'forbidden', message: 'Only an administrator or the job’s notary may cancel a job in session.' });
  });
});

describe('choosing the notary', () => {
  it('lets a signer who created a job request any approved notary, who alone then starts the session', async () => {
    const { creatorSigner, otherNotary } = people;
    const job = await kit.createJob(creatorSigner, { signers: [{ name: 'Cora Customer', email: creatorSigner.email }] });
    await kit.uploadPdf(creatorSigner, job.id);
    const assigned = await kit.call(creatorSigner, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: otherNotary.id });
    expect(assigned.statusCode).toBe(200);
    const ready = await kit.moveJob(creatorSigner, job.id, ['ready']);
    expect(ready.allowedTransitions).toEqual(['draft', 'scheduled', 'cancelled']);
    expect((await kit.getJob(otherNotary, job.id)).allowedTransitions).toEqual(['draft', 'scheduled', 'in_session']);
    expect((await kit.moveJob(otherNotary, job.id, ['in_session'])).status).toBe('in_session');
  });
});
