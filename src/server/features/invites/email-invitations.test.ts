import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobSummary } from '#shared/jobs.ts';
import type { PendingJobItem } from '#shared/notifications.ts';
import { auditEvents, emailOutbox, jobParticipants } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

/**
 * A person who already has an account is invited to a job by email. Once their address is
 * confirmed, the job shows in their list and bell as an invitation they can accept; never before.
 */
let t: TestApp;
let agent: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agent = await t.createUser({ roles: ['title_agent'] });
});
afterAll(async () => t?.close());

const headersOf = new Map<string, Record<string, string>>();
async function call(user: TestUser, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  let headers = headersOf.get(user.id);
  if (!headers) {
    headers = await t.signInAs(user);
    headersOf.set(user.id, headers);
  }
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

async function createJob(participants: Array<{ name: string; email: string; role?: string }>): Promise<Job> {
  const res = await call(agent, 'POST', '/api/jobs', {
    title: `Refinance ${randomUUID().slice(0, 6)}`,
    notarizationType: 'acknowledgment',
    signers: participants,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function listed(user: TestUser): Promise<Array<JobSummary & { isInvitation: boolean }>> {
  const res = await call(user, 'GET', '/api/jobs?pageSize=100');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

async function bell(user: TestUser): Promise<PendingJobItem[]> {
  const res = await call(user, 'GET', '/api/notifications/users/me/pending-jobs');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

async function participantOf(job: Job, email: string) {
  const [row] = await t.db
    .select()
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, job.id), eq(jobParticipants.email, email)));
  return row;
}

describe('a confirmed account invited by email', () => {
  it('sees the job in its jobs list and its bell as an invitation, and can read what it is invited to', async () => {
    const person = await t.createUser({ isEmailVerified: true });
    const job = await createJob([{ name: 'Pat Person', email: person.email, role: 'witness' }]);

    expect((await listed(person)).find((item) => item.id === job.id)).toMatchObject({ title: job.title, isInvitation: true });
    expect((await bell(person)).find((item) => item.jobId === job.id)).toMatchObject({
      kind: 'job_invitation',
      title: job.title,
      message: `You are invited to witness "${job.title}". Open it to accept.`,
      isBlocking: false,
    });
    const invitation = await call(person, 'GET', `/api/invites/jobs/${job.id}`);
    expect(invitation.statusCode, invitation.body).toBe(200);
    expect(invitation.json()).toEqual({ jobId: job.id, jobTitle: job.title, role: 'witness', participantName: 'Pat Person', status: 'draft' });
    // Not yet a participant: the job itself stays closed until the invitation is accepted.
    expect((await call(person, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    // The creator sees it as an ordinary job.
    expect((await listed(agent)).find((item) => item.id === job.id)).toMatchObject({ isInvitation: false });
  });

  it('accepts like the emailed link: linked to the job, recorded, and the link no longer works', async () => {
    const person = await t.createUser({ isEmailVerified: true });
    const job = await createJob([{ name: 'Pat Person', email: person.email }]);
    const [mail] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, person.email)).orderBy(desc(emailOutbox.createdAt));
    const linkToken = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1] ?? '';

    const res = await call(person, 'POST', `/api/invites/jobs/${job.id}/accept`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ jobId: job.id });
    expect(await participantOf(job, person.email)).toMatchObject({ userId: person.id });
    const opened = await call(person, 'GET', `/api/jobs/${job.id}`);
    expect(opened.statusCode).toBe(200);
    expect(opened.json().permissions).toMatchObject({ isParticipant: true, canEdit: false });
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, job.id), eq(auditEvents.action, 'invite.claimed')));
    expect(event).toMatchObject({ actorId: person.id, data: expect.objectContaining({ userId: person.id, via: 'confirmed_email' }) });
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${linkToken}` })).statusCode).toBe(404);

    // Accepted: an ordinary job now, and accepting again changes nothing.
    expect((await listed(person)).find((item) => item.id === job.id)).toMatchObject({ isInvitation: false });
    expect((await bell(person)).some((item) => item.kind === 'job_invitation' && item.jobId === job.id)).toBe(false);
    expect((await call(person, 'POST', `/api/invites/jobs/${job.id}/accept`)).statusCode).toBe(200);
  });

  it('lets the person dismiss the invitation from the bell, and keeps it in the jobs list', async () => {
    const person = await t.createUser({ isEmailVerified: true });
    const job = await createJob([{ name: 'Pat Person', email: person.email }]);
    const dismissed = await call(person, 'POST', '/api/notifications/dismiss', { jobId: job.id, kind: 'job_invitation' });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect((await bell(person)).some((item) => item.jobId === job.id)).toBe(false);
    expect((await listed(person)).some((item) => item.id === job.id)).toBe(true);
  });

  it('is not offered a participant another account took, a cancelled job, or a job that did not invite it', async () => {
    const person = await t.createUser({ isEmailVerified: true });
    const other = await t.createUser({ isEmailVerified: true });
    const taken = await createJob([{ name: 'Pat Person', email: person.email }]);
    await t.db.update(jobParticipants).set({ userId: other.id }).where(eq(jobParticipants.jobId, taken.id));
    const cancelled = await createJob([{ name: 'Pat Person', email: person.email }]);
    const cancel = await call(agent, 'PATCH', `/api/jobs/${cancelled.id}`, { version: cancelled.version, status: 'cancelled', reason: 'Deal fell through' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const elsewhere = await createJob([{ name: 'Someone Else', email: `else-${randomUUID().slice(0, 8)}@example.test` }]);

    const ids = (await listed(person)).map((item) => item.id);
    const bellIds = (await bell(person)).map((item) => item.jobId);
    for (const job of [taken, cancelled, elsewhere]) {
      expect(ids).not.toContain(job.id);
      expect(bellIds).not.toContain(job.id);
      expect((await call(person, 'GET', `/api/invites/jobs/${job.id}`)).statusCode).toBe(404);
      const accept = await call(person, 'POST', `/api/invites/jobs/${job.id}/accept`);
      expect(accept.statusCode).toBe(404);
      expect(accept.json()).toMatchObject({ error: 'invite_invalid', message: 'There is no open invitation for your email address on this job.' });
    }
    expect(await participantOf(taken, person.email)).toMatchObject({ userId: other.id });
  });
});

describe('an account whose email is not confirmed', () => {
  it('never sees or enters a job by matching email: not in the list, the bell, the job, the invitation, nor by accepting', async () => {
    const unconfirmed = await t.createUser();
    const job = await createJob([{ name: 'Una Unconfirmed', email: unconfirmed.email }]);

    expect((await listed(unconfirmed)).map((item) => item.id)).not.toContain(job.id);
    expect((await bell(unconfirmed)).map((item) => item.jobId)).not.toContain(job.id);
    expect((await call(unconfirmed, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect((await call(unconfirmed, 'GET', `/api/invites/jobs/${job.id}`)).statusCode).toBe(404);
    expect((await call(unconfirmed, 'POST', '/api/notifications/dismiss', { jobId: job.id, kind: 'job_invitation' })).statusCode).toBe(404);
    const accept = await call(unconfirmed, 'POST', `/api/invites/jobs/${job.id}/accept`);
    expect(accept.statusCode).toBe(403);
    expect(accept.json()).toEqual({
      error: 'email_not_verified',
      message: 'Confirm your email address first: open the link we emailed you, or send a new one from your dashboard.',
    });
    expect(await participantOf(job, unconfirmed.email)).toMatchObject({ userId: null });
  });

  it('sees the invitation once it confirms its address with the emailed link', async () => {
    const email = `late-${randomUUID().slice(0, 8)}@example.test`;
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register/user',
      payload: { name: 'Lee Late', email, password: 'a long password 42' },
    });
    expect(registered.statusCode).toBe(201);
    const person: TestUser = { id: registered.json().user.id, name: 'Lee Late', email, password: 'a long password 42', roles: ['signer'] };
    const job = await createJob([{ name: 'Lee Late', email }]);
    expect((await listed(person)).map((item) => item.id)).not.toContain(job.id);

    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'email_verification')));
    const token = mail?.textBody.match(/\/verify-email\/([\w-]+)/)?.[1] ?? '';
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } })).statusCode).toBe(200);
    // The session that was already open sees it at once (the cached session is refreshed).
    expect((await listed(person)).find((item) => item.id === job.id)).toMatchObject({ isInvitation: true });
    expect((await call(person, 'POST', `/api/invites/jobs/${job.id}/accept`)).statusCode).toBe(200);
  });

  it('asks an anonymous caller to sign in', async () => {
    const job = await createJob([{ name: 'Anon', email: `anon-${randomUUID().slice(0, 8)}@example.test` }]);
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/jobs/${job.id}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/api/invites/jobs/${job.id}/accept` })).statusCode).toBe(401);
  });
});
