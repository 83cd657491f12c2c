import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, Participant } from '#shared/jobs.ts';
import { emailOutbox, jobParticipants, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

/**
 * An invitation link proves an address only when it was emailed to that address. A staff reminder
 * may send a participant's link to another address (emailOverride); whoever opens it there may join
 * that one job, but must not come away with a confirmed address, which would show them every other
 * job inviting it (decision 010).
 */
let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let otherAgent: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  otherAgent = await t.createUser({ roles: ['title_agent'] });
});
afterAll(async () => t?.close());

async function newestLinkTo(address: string): Promise<string> {
  const [mail] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address)).orderBy(desc(emailOutbox.createdAt)).limit(1);
  const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no invitation link was emailed to ${address}`);
  return token;
}

/** A job inviting `inviteeEmail`, whose link a reminder then sends to `sentTo` instead. */
async function remindElsewhere(inviteeEmail: string, sentTo: string): Promise<{ job: Job; token: string }> {
  const job = await kit.createJob(agent, { signers: [{ name: 'Bob Invitee', email: inviteeEmail }] });
  const participant = job.participants[0] as Participant;
  await t.db
    .update(jobParticipants)
    .set({ invitedAt: new Date(Date.now() - 3600_000) })
    .where(eq(jobParticipants.id, participant.id));
  const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/remind`, { emailOverride: sentTo });
  expect(res.statusCode, res.body).toBe(200);
  return { job, token: await newestLinkTo(sentTo) };
}

async function isConfirmed(email: string): Promise<boolean> {
  const [row] = await t.db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.email, email));
  return Boolean(row?.at);
}

describe('an invitation link emailed to another address', () => {
  it('creates an account that may open that job but whose address stays unconfirmed, so it sees no other job inviting it', async () => {
    const invitee = uniqueEmail('bob');
    const { job, token } = await remindElsewhere(invitee, uniqueEmail('elsewhere'));
    const otherJob = await kit.createJob(otherAgent, { title: 'Another company’s job', signers: [{ name: 'Bob Invitee', email: invitee }] });

    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Bob Invitee', email: invitee, password: 'long enough password' },
    });
    expect(claim.statusCode, claim.body).toBe(201);
    const headers = { authorization: `Bearer ${claim.json().sessionToken as string}` };
    expect(claim.json().user).toMatchObject({ email: invitee, emailVerified: false });
    expect(await isConfirmed(invitee)).toBe(false);

    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers })).statusCode).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/jobs?pageSize=100', headers });
    expect((list.json().items as Array<{ id: string }>).map((item) => item.id)).toEqual([job.id]);
    const accept = await t.app.inject({ method: 'POST', url: `/api/invites/jobs/${otherJob.id}/accept`, headers });
    expect(accept.statusCode).toBe(403);
    expect(accept.json()).toMatchObject({ error: 'email_not_verified' });
    const [seat] = await t.db
      .select()
      .from(jobParticipants)
      .where(and(eq(jobParticipants.jobId, otherJob.id), eq(jobParticipants.email, invitee)));
    expect(seat?.userId).toBeNull();
  });

  it('emails the new account a confirmation link of its own, to the address it claimed', async () => {
    const invitee = uniqueEmail('carol');
    const { token } = await remindElsewhere(invitee, uniqueEmail('elsewhere'));
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Carol Invitee', email: invitee, password: 'long enough password' },
    });
    expect(claim.statusCode, claim.body).toBe(201);
    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, invitee), eq(emailOutbox.kind, 'email_verification')));
    expect(mail?.textBody).toMatch(/\/verify-email\/[\w-]{32,}/);
  });

  it('links an existing unconfirmed account that accepts it, without confirming its address', async () => {
    const person = await t.createUser({ name: 'Dan Invitee' });
    const { job, token } = await remindElsewhere(person.email, uniqueEmail('elsewhere'));
    const otherJob = await kit.createJob(otherAgent, { title: 'Another company’s job', signers: [{ name: 'Dan Invitee', email: person.email }] });

    const accept = await kit.call(person, 'POST', `/api/invites/${token}/accept`);
    expect(accept.statusCode, accept.body).toBe(200);
    expect((await kit.call(person, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
    expect(await isConfirmed(person.email)).toBe(false);
    expect((await kit.call(person, 'POST', `/api/invites/jobs/${otherJob.id}/accept`)).statusCode).toBe(403);
  });
});

describe('an invitation link emailed to the invited address', () => {
  it('still confirms the address of the account that claims it', async () => {
    const invitee = uniqueEmail('erin');
    await kit.createJob(agent, { signers: [{ name: 'Erin Invitee', email: invitee }] });
    const token = await newestLinkTo(invitee);
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Erin Invitee', email: invitee, password: 'long enough password' },
    });
    expect(claim.statusCode, claim.body).toBe(201);
    expect(claim.json().user).toMatchObject({ emailVerified: true });
  });

  it('still confirms the address of an existing account that accepts it', async () => {
    const person = await t.createUser({ name: 'Finn Invitee' });
    await kit.createJob(agent, { signers: [{ name: 'Finn Invitee', email: person.email }] });
    expect((await kit.acceptInvitation(person)).statusCode).toBe(200);
    expect(await isConfirmed(person.email)).toBe(true);
  });
});
