import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { emailOutbox, jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

const publicUrl = 'https://ron.example.test';
let t: TestApp;
let agentHeaders: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: publicUrl, LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agentHeaders = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
});
afterAll(async () => t?.close());

const invalidInvite = { error: 'invite_invalid', message: 'This invitation link is invalid, expired or already used.' };
const email = (prefix = 'guest') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

async function createJob(participants: Array<{ name: string; email: string }>): Promise<Job> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: agentHeaders,
    payload: { title: `Closing ${randomUUID().slice(0, 6)}`, notarizationType: 'jurat', signers: participants },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function mailsTo(address: string) {
  return t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address)).orderBy(desc(emailOutbox.createdAt));
}

async function linkTokenFor(address: string): Promise<string> {
  const [mail] = await mailsTo(address);
  const token = mail?.textBody.match(new RegExp(`${publicUrl}/claim/([\\w-]+)`))?.[1];
  if (!token) throw new Error(`no claim link emailed to ${address}`);
  return token;
}

const getInvite = (token: string) => t.app.inject({ method: 'GET', url: `/api/invites/${token}` });
const claim = (token: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/claim`, payload });
const accept = (token: string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers });
const requestAccess = (address: string, ip = '127.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/invites/request-access', payload: { email: address }, remoteAddress: ip });

describe('POST /api/invites/request-access by an anonymous person', () => {
  const answer = { ok: true, message: 'If that email was invited to a job, a new link is on its way.' };

  it('sends a fresh link without revoking the one the participant already has; using one ends the other', async () => {
    const address = email('victim');
    await createJob([{ name: 'Vic Victim', email: address }]);
    const original = await linkTokenFor(address);

    const res = await requestAccess(address);
    expect(res.json()).toEqual(answer);
    expect((await mailsTo(address)).map((mail) => mail.kind)).toEqual(['job_invite_reminder', 'job_invite']);
    const fresh = await linkTokenFor(address);
    expect(fresh).not.toBe(original);
    expect((await getInvite(original)).statusCode).toBe(200);
    expect((await getInvite(fresh)).statusCode).toBe(200);

    const claimed = await claim(original, { name: 'Vic Victim', email: address, password: 'a long password' });
    expect(claimed.statusCode, claimed.body).toBe(201);
    expect((await getInvite(fresh)).json()).toEqual(invalidInvite);
  });

  it('answers the same, and rate limits the same, whether or not the address was invited', async () => {
    const invited = email('invited');
    await createJob([{ name: 'Ina', email: invited }]);
    const stranger = email('stranger');
    const answers = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      answers.push([await requestAccess(invited, '10.9.0.1'), await requestAccess(stranger, '10.9.0.1')]);
    }
    for (const [forInvited, forStranger] of answers.slice(0, 3)) {
      expect([forInvited?.statusCode, forStranger?.statusCode]).toEqual([200, 200]);
      expect(forInvited?.json()).toEqual(forStranger?.json());
    }
    const [limitedInvited, limitedStranger] = answers[3] ?? [];
    expect([limitedInvited?.statusCode, limitedStranger?.statusCode]).toEqual([429, 429]);
    expect(limitedInvited?.json().error).toBe('rate_limited');
    expect(limitedInvited?.json().error).toBe(limitedStranger?.json().error);
    expect((await mailsTo(invited)).filter((mail) => mail.kind === 'job_invite_reminder')).toHaveLength(3);
    expect(await mailsTo(stranger)).toEqual([]);
  });
});

describe('an invitation to a job that has ended', () => {
  it.each(['completed', 'cancelled'] as const)('is refused once the job is %s: no summary, no new account, no link to the job', async (status) => {
    const newcomer = email('newcomer');
    const member = await t.createUser({ roles: ['signer'] });
    const job = await createJob([
      { name: 'Nia Newcomer', email: newcomer },
      { name: member.name, email: member.email },
    ]);
    const [newcomerToken, memberToken] = [await linkTokenFor(newcomer), await linkTokenFor(member.email)];
    await t.db.update(jobs).set({ status }).where(eq(jobs.id, job.id));

    const accepted = await accept(memberToken, await t.signInAs(member));
    expect(accepted.statusCode).toBe(404);
    expect(accepted.json()).toEqual(invalidInvite);
    const claimed = await claim(newcomerToken, { name: 'Nia Newcomer', email: newcomer, password: 'a long password' });
    expect(claimed.statusCode).toBe(404);
    expect(claimed.json()).toEqual(invalidInvite);
    expect(await t.db.select().from(users).where(eq(users.email, newcomer))).toEqual([]);
    expect((await getInvite(newcomerToken)).json()).toEqual(invalidInvite);
    const participants = await t.db.select({ userId: jobParticipants.userId }).from(jobParticipants).where(eq(jobParticipants.jobId, job.id));
    expect(participants).toEqual([{ userId: null }, { userId: null }]);
    const seen = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: await t.signInAs(member) });
    expect(seen.statusCode).toBe(404);
  });
});
