import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, emailOutbox, emailVerificationTokens, users } from '#server/db/schema/index.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

const publicUrl = 'https://ron.example.test';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: publicUrl, LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000' });
});
afterAll(async () => t?.close());

const newEmail = () => `verify-${randomUUID().slice(0, 8)}@example.test`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const invalidLink = { error: 'invalid_token', message: 'This confirmation link is invalid or expired. Sign in and send yourself a new one.' };

async function register(email = newEmail(), kind: 'user' | 'notary' = 'user') {
  const extra = kind === 'notary' ? { commissionState: 'TX', commissionNumber: 'C-9', commissionExpiresOn: '2031-06-30', county: 'Travis' } : {};
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/auth/register/${kind}`,
    payload: { name: 'Vera Verify', email, password: 'a long password 42', ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { email, userId: res.json().user.id as string, headers: bearer(res.json().sessionToken as string), body: res.json() };
}

/** The token of the newest confirmation link emailed to an address. */
async function linkTokenFor(address: string): Promise<string> {
  const [mail] = await t.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, address), eq(emailOutbox.kind, 'email_verification')))
    .orderBy(desc(emailOutbox.createdAt));
  const token = mail?.textBody.match(new RegExp(`${publicUrl}/verify-email/([\\w-]+)`))?.[1];
  if (!token) throw new Error(`no confirmation link emailed to ${address}`);
  return token;
}

const verify = (token: string) => t.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
const resend = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/auth/verify-email/resend', headers });
const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user;

describe('self-registration and the confirmation link', () => {
  it('registers the account unconfirmed and emails a single-use link valid for 24 hours, stored only as a hash', async () => {
    const { email, userId, body } = await register();
    expect(body.user).toMatchObject({ email, emailVerified: false });
    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'email_verification')));
    expect(mail?.subject).toBe('Confirm your email address for Open RON');
    const token = await linkTokenFor(email);
    const [row] = await t.db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId));
    expect(row?.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const lifetime = (row?.expiresAt.getTime() ?? 0) - (row?.createdAt.getTime() ?? 0);
    expect(lifetime).toBeGreaterThan(24 * 3600_000 - 5000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000 + 5000);
  });

  it('confirms the address once, without a session, and the account then shows as confirmed', async () => {
    const { email, userId, headers } = await register(newEmail(), 'notary');
    const token = await linkTokenFor(email);
    const res = await verify(token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: 'Your email address is confirmed.' });
    expect(await me(headers)).toMatchObject({ emailVerified: true, status: 'pending' });
    const [user] = await t.db.select().from(users).where(eq(users.id, userId));
    expect(user).toMatchObject({ emailVerifiedAt: expect.any(Date), emailVerifiedVia: 'email_link' });
    const [event] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'user.email_verified'));
    expect(event?.data).toEqual({ userId, userName: 'Vera Verify', via: 'email_link' });
    expect(describeAuditEvent({ action: 'user.email_verified', actorName: null, data: event?.data as Record<string, unknown> })).toBe(
      'The email address of Vera Verify was confirmed with an emailed link.',
    );

    expect((await verify(token)).json()).toEqual(invalidLink);
  });

  it('refuses an expired link, a made-up one and an empty one with the same clear error', async () => {
    const { email, userId, headers } = await register();
    const token = await linkTokenFor(email);
    await t.db
      .update(emailVerificationTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(emailVerificationTokens.userId, userId));
    const expired = await verify(token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual(invalidLink);
    expect((await verify('x'.repeat(43))).json()).toEqual(invalidLink);
    const empty = await verify('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ message: expect.any(String) });
    expect(await me(headers)).toMatchObject({ emailVerified: false });
  });

  it('counts the account as confirmed when it was made from an invitation sent to that address', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const invitee = newEmail();
    const job = await t.app.inject({
      method: 'POST',
      url: '/api/jobs',
      headers: await t.signInAs(agent),
      payload: { title: 'Deed', notarizationType: 'jurat', signers: [{ name: 'Ivy', email: invitee }] },
    });
    expect(job.statusCode).toBe(201);
    const [mail] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, invitee));
    const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1] ?? '';
    const claimed = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Ivy', email: invitee, password: 'a long password 42' },
    });
    expect(claimed.statusCode).toBe(201);
    expect(claimed.json().user).toMatchObject({ emailVerified: true });
    const [user] = await t.db.select().from(users).where(eq(users.email, invitee));
    expect(user).toMatchObject({ emailVerifiedVia: 'invitation' });
    expect(
      await t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, invitee), eq(emailOutbox.kind, 'email_verification'))),
    ).toEqual([]);
  });
});

describe('an existing account accepting an emailed invitation', () => {
  it('counts its address as confirmed, since the link went there, and its open session sees that at once', async () => {
    const { email, headers, userId } = await register();
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await t.app.inject({
      method: 'POST',
      url: '/api/jobs',
      headers: await t.signInAs(agent),
      payload: { title: 'Lease', notarizationType: 'jurat', signers: [{ name: 'Vera', email }] },
    });
    expect(job.statusCode).toBe(201);
    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'job_invite')));
    const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1] ?? '';
    expect(await me(headers)).toMatchObject({ emailVerified: false });
    expect((await t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers })).statusCode).toBe(200);
    expect(await me(headers)).toMatchObject({ emailVerified: true });
    const [user] = await t.db.select().from(users).where(eq(users.id, userId));
    expect(user).toMatchObject({ emailVerifiedVia: 'invitation' });
  });
});

describe('POST /api/auth/verify-email/resend', () => {
  it('sends a fresh link (the earlier one stops working) and then asks the person to wait', async () => {
    const { email, headers } = await register();
    const first = await linkTokenFor(email);
    // The registration mail counts as the first send: resending needs the cooldown to have passed.
    const tooSoon = await resend(headers);
    expect(tooSoon.statusCode).toBe(429);
    expect(tooSoon.headers['retry-after']).toEqual(expect.any(String));
    expect(tooSoon.json()).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(/wait \d+ seconds/) });

    await t.db.update(emailVerificationTokens).set({ createdAt: new Date(Date.now() - 120_000) });
    const res = await resend(headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: `We sent a new confirmation link to ${email}.` });
    const second = await linkTokenFor(email);
    expect(second).not.toBe(first);
    expect((await verify(first)).statusCode).toBe(400);
    expect((await verify(second)).statusCode).toBe(200);
  });

  it('stops after five links in an hour', async () => {
    const { headers } = await register();
    for (let sent = 1; sent <= 5; sent += 1) {
      await t.db.update(emailVerificationTokens).set({ createdAt: new Date(Date.now() - 120_000) });
      expect((await resend(headers)).statusCode).toBe(200);
    }
    await t.db.update(emailVerificationTokens).set({ createdAt: new Date(Date.now() - 120_000) });
    const capped = await resend(headers);
    expect(capped.statusCode).toBe(429);
    expect(capped.json().message).toMatch(/Too many confirmation links/);
  });

  it('tells a confirmed account there is nothing to confirm, and asks an anonymous caller to sign in', async () => {
    const confirmed = await t.createUser({ isEmailVerified: true });
    const res = await resend(await t.signInAs(confirmed));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'Your email address is already confirmed.' });
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/verify-email/resend' })).statusCode).toBe(401);
  });
});
