import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { emailOutbox, invites } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

const publicUrl = 'https://ron.example.test';
let t: TestApp;
let agent: TestUser;
let agentHeaders: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: publicUrl, LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agent = await t.createUser({ roles: ['title_agent'] });
  agentHeaders = await t.signInAs(agent);
});
afterAll(async () => t?.close());

const invalidInvite = { error: 'invite_invalid', message: 'This invitation link is invalid, expired or already used.' };
const email = (prefix = 'guest') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

async function createJob(participants: Array<{ name: string; email: string; role?: string }>, title = `Closing ${randomUUID().slice(0, 6)}`): Promise<Job> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: agentHeaders,
    payload: { title, notarizationType: 'jurat', signers: participants },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function mailsTo(address: string) {
  return t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address)).orderBy(desc(emailOutbox.createdAt));
}

/** The token of the newest invitation link emailed to an address. */
async function linkTokenFor(address: string): Promise<string> {
  const [mail] = await mailsTo(address);
  const token = mail?.textBody.match(new RegExp(`${publicUrl}/claim/([\\w-]+)`))?.[1];
  if (!token) throw new Error(`no claim link emailed to ${address}`);
  return token;
}

const getInvite = (token: string) => t.app.inject({ method: 'GET', url: `/api/invites/${token}` });
const claim = (token: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/claim`, payload });
const accept = (token: string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers });
const requestAccess = (address: string) => t.app.inject({ method: 'POST', url: '/api/invites/request-access', payload: { email: address } });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the invitation email', () => {
  it('sends each participant their own link to /claim/<token>, valid once for seven days', async () => {
    const [sam, wendy] = [email('sam'), email('wendy')];
    const before = Date.now();
    const job = await createJob(
      [
        { name: 'Sam Signer', email: sam },
        { name: 'Wendy Witness', email: wendy, role: 'witness' },
      ],
      'Sale of 12 Elm Street',
    );
    const [mail] = await mailsTo(sam);
    expect(mail).toMatchObject({ kind: 'job_invite', subject: 'You are invited to sign "Sale of 12 Elm Street"', status: 'pending' });
    expect(mail?.textBody).toContain('Hello Sam Signer,');
    expect(mail?.textBody).toMatch(new RegExp(`^${publicUrl}/claim/[\\w-]{40,}$`, 'm'));
    expect(mail?.textBody).toContain('it works once and expires in 7 days');

    const [samToken, wendyToken] = [await linkTokenFor(sam), await linkTokenFor(wendy)];
    expect(samToken).not.toBe(wendyToken);
    const [row] = await t.db
      .select()
      .from(invites)
      .where(eq(invites.tokenHash, hashToken(samToken)));
    expect(row).toMatchObject({
      purpose: 'job_participant',
      jobId: job.id,
      participantId: job.participants[0]?.id,
      email: sam,
      roles: ['signer'],
      usedAt: null,
    });
    const lifetime = (row?.expiresAt.getTime() ?? 0) - before;
    expect(lifetime).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86_400_000 + 60_000);
  });
});

describe('GET /api/invites/:token for a job invitation', () => {
  it('shows the job it is for and that the person has no account yet', async () => {
    const address = email();
    const job = await createJob([{ name: 'Sam', email: address }], 'Refinance for Sam');
    const res = await getInvite(await linkTokenFor(address));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      purpose: 'job_participant',
      roles: ['signer'],
      email: address,
      expiresAt: expect.any(String),
      jobId: job.id,
      jobTitle: 'Refinance for Sam',
      companyId: null,
      companyName: null,
      hasAccount: false,
    });
  });

  it('says when the invited address already has an account', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    await createJob([{ name: member.name, email: member.email, role: 'observer' }]);
    const res = await getInvite(await linkTokenFor(member.email));
    expect(res.json()).toMatchObject({ roles: ['observer'], hasAccount: true });
  });
});

describe('POST /api/invites/:token/claim by a new person', () => {
  it('creates their account, links them to the job and shows them the job', async () => {
    const address = email('new');
    const job = await createJob([{ name: 'Nina New', email: address }]);
    const token = await linkTokenFor(address);
    const res = await claim(token, { name: 'Nina New', email: address, password: 'a long password' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      user: { email: address, roles: ['signer'], status: 'active' },
      sessionToken: expect.any(String),
      pendingApproval: false,
    });
    const headers = bearer(res.json().sessionToken);

    const seen = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers });
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({ permissions: { isParticipant: true, canEdit: false }, participants: [{ email: address, hasAccount: true }] });
    const listed = await t.app.inject({ method: 'GET', url: '/api/jobs', headers });
    expect(listed.json()).toMatchObject({ total: 1, items: [{ id: job.id }] });
    const audit = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers: agentHeaders });
    expect(audit.json().events.at(-1)).toMatchObject({
      action: 'invite.claimed',
      data: { participantId: job.participants[0]?.id, userId: res.json().user.id },
    });
  });

  it('gives a witness an account with the witness role', async () => {
    const address = email('witness');
    await createJob([{ name: 'Wes', email: address, role: 'witness' }]);
    const res = await claim(await linkTokenFor(address), { name: 'Wes', email: address, password: 'a long password' });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.roles).toEqual(['witness']);
  });

  it('works once: the second claim, a look at the link or an accept by anyone else are refused', async () => {
    const address = email('once');
    const job = await createJob([{ name: 'Olly Once', email: address }]);
    const token = await linkTokenFor(address);
    expect((await claim(token, { name: 'Olly Once', email: address, password: 'a long password' })).statusCode).toBe(201);

    const again = await claim(token, { name: 'Olly Twice', email: address, password: 'another password' });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(invalidInvite);
    expect((await getInvite(token)).json()).toEqual(invalidInvite);
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: address, password: 'a long password' } });
    // The person who used it is only told again which job it linked them to (nothing changes).
    expect((await accept(token, bearer(signedIn.json().sessionToken))).json()).toEqual({ jobId: job.id });
    const someoneElse = await t.createUser({ roles: ['signer'] });
    expect((await accept(token, await t.signInAs(someoneElse))).json()).toEqual(invalidInvite);
  });

  it('refuses another email address and leaves the link usable', async () => {
    const address = email('right');
    await createJob([{ name: 'Rita Right', email: address }]);
    const token = await linkTokenFor(address);
    const wrong = await claim(token, { name: 'Rita Right', email: email('wrong'), password: 'a long password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invite_email_mismatch', message: 'This invitation was sent to a different email address.' });
    expect((await claim(token, { name: 'Rita Right', email: address, password: 'a long password' })).statusCode).toBe(201);
  });

  it('sends a person who already has an account to sign in, and keeps the link for them', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: member.name, email: member.email }]);
    const token = await linkTokenFor(member.email);
    const res = await claim(token, { name: member.name, email: member.email, password: 'a long password' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'An account with this email already exists. Sign in instead.' });
    const accepted = await accept(token, await t.signInAs(member));
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ jobId: job.id });
  });

  it('refuses an expired link', async () => {
    const address = email('late');
    await createJob([{ name: 'Larry Late', email: address }]);
    const token = await linkTokenFor(address);
    await t.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invites.tokenHash, hashToken(token)));
    expect((await getInvite(token)).json()).toEqual(invalidInvite);
    const res = await claim(token, { name: 'Larry Late', email: address, password: 'a long password' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
  });

  it('refuses a token nobody issued', async () => {
    const res = await claim('x'.repeat(43), { name: 'Mallory', email: email(), password: 'a long password' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
  });
});

describe('POST /api/invites/:token/accept by an existing account', () => {
  it('links the signed-in person with the invited address to the job', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: member.name, email: member.email }]);
    const headers = await t.signInAs(member);
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers })).statusCode).toBe(404);

    const res = await accept(await linkTokenFor(member.email), headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ jobId: job.id });
    const seen = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers });
    expect(seen.statusCode).toBe(200);
    expect(seen.json().participants[0]).toMatchObject({ email: member.email, hasAccount: true });
  });

  it('answers a second accept by the same person (a tap again after a dropped connection) with the job, not an invalid link', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: member.name, email: member.email }]);
    const token = await linkTokenFor(member.email);
    const headers = await t.signInAs(member);
    expect((await accept(token, headers)).json()).toEqual({ jobId: job.id });
    const again = await accept(token, headers);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ jobId: job.id });
    const claimedEvents = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers });
    expect((claimedEvents.json().events as Array<{ action: string }>).filter((event) => event.action === 'invite.claimed')).toHaveLength(1);
    const other = await t.createUser({ roles: ['signer'] });
    expect((await accept(token, await t.signInAs(other))).json()).toEqual(invalidInvite);
  });

  it('refuses another account with 403 and keeps the link for the right person', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    const other = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: member.name, email: member.email }]);
    const token = await linkTokenFor(member.email);
    const otherHeaders = await t.signInAs(other);
    const res = await accept(token, otherHeaders);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'invite_email_mismatch', message: expect.stringContaining('different email address') });
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: otherHeaders })).statusCode).toBe(404);
    expect((await accept(token, await t.signInAs(member))).statusCode).toBe(200);
  });

  it('asks an anonymous caller to sign in', async () => {
    const address = email();
    await createJob([{ name: 'Anon', email: address }]);
    const res = await t.app.inject({ method: 'POST', url: `/api/invites/${await linkTokenFor(address)}/accept` });
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/invites/request-access', () => {
  const answer = { ok: true, message: 'If that email was invited to a job, a new link is on its way.' };

  it('answers the same whether or not the address was invited, and mails only a pending participant', async () => {
    const pending = email('pending');
    const job = await createJob([{ name: 'Pat Pending', email: pending }], 'Pat’s closing');
    const oldToken = await linkTokenFor(pending);
    const stranger = email('stranger');

    const forStranger = await requestAccess(stranger);
    const forPending = await requestAccess(pending.toUpperCase());
    expect(forStranger.statusCode).toBe(200);
    expect(forPending.statusCode).toBe(200);
    expect(forStranger.json()).toEqual(answer);
    expect(forPending.json()).toEqual(answer);

    expect(await mailsTo(stranger)).toEqual([]);
    const [mail] = await mailsTo(pending);
    expect(mail).toMatchObject({ kind: 'job_invite_reminder', subject: 'Reminder: You are invited to sign "Pat’s closing"' });
    const newToken = await linkTokenFor(pending);
    expect(newToken).not.toBe(oldToken);
    expect((await getInvite(oldToken)).statusCode).toBe(200);
    expect((await getInvite(newToken)).json()).toMatchObject({ jobId: job.id });
    const audit = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers: agentHeaders });
    expect(audit.json().events.at(-1)).toMatchObject({ action: 'participant.access_requested', data: { participantId: job.participants[0]?.id } });
  });

  it('sends nothing for a participant who already accepted, or whose job was cancelled', async () => {
    const member = await t.createUser({ roles: ['signer'] });
    await createJob([{ name: member.name, email: member.email }]);
    expect((await accept(await linkTokenFor(member.email), await t.signInAs(member))).statusCode).toBe(200);
    const cancelledAddress = email('cancelled');
    const cancelled = await createJob([{ name: 'Cass', email: cancelledAddress }]);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/jobs/${cancelled.id}`,
      headers: agentHeaders,
      payload: { status: 'cancelled', version: cancelled.version },
    });
    expect(patched.statusCode).toBe(200);

    for (const address of [member.email, cancelledAddress]) {
      const res = await requestAccess(address);
      expect(res.json()).toEqual(answer);
      expect((await mailsTo(address)).map((mail) => mail.kind)).toEqual(['job_invite']);
    }
  });

  it('refuses an address that is not one', async () => {
    const res = await requestAccess('not an address');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Enter a valid email address.' });
  });
});
