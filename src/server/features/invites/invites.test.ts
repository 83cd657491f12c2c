import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invites, users } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { issueBootstrapInvite } from './invites.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
});
afterAll(async () => t.close());
// Each test starts on a database without any account or invitation, as on a first start.
beforeEach(async () => {
  await t.db.delete(invites);
  await t.db.delete(users);
});

const invalidInvite = { error: 'invite_invalid', message: 'This invitation link is invalid, expired or already used.' };

async function issueToken(): Promise<string> {
  const issued = await issueBootstrapInvite(t.db, t.config.publicUrl);
  if (!issued) throw new Error('expected a bootstrap invite on a database without administrators');
  return issued.url.split('/claim/')[1] ?? '';
}

const getInvite = (token: string) => t.app.inject({ method: 'GET', url: `/api/invites/${token}` });
const claim = (token: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/claim`, payload });
const adminInput = (email = 'first.admin@example.test') => ({ name: 'Ada Admin', email, password: 'a long admin password' });
const countAdmins = async () =>
  (
    await t.db
      .select({ id: users.id })
      .from(users)
      .where(sql`'admin' = any(${users.roles})`)
  ).length;

describe('issueBootstrapInvite', () => {
  it('returns a one-time claim link on the public URL while no administrator exists, valid for 24 hours', async () => {
    const before = Date.now();
    const issued = await issueBootstrapInvite(t.db, t.config.publicUrl);
    expect(issued?.url).toMatch(/^http:\/\/localhost:3000\/claim\/[A-Za-z0-9_-]{43}$/);
    const lifetime = (issued?.expiresAt.getTime() ?? 0) - before;
    expect(lifetime).toBeGreaterThan(24 * 3600_000 - 5000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000 + 5000);
  });

  it('returns null once an administrator exists', async () => {
    await t.createUser({ roles: ['admin'] });
    expect(await issueBootstrapInvite(t.db, t.config.publicUrl)).toBeNull();
  });

  it('keeps issuing links while the only accounts are not administrators', async () => {
    await t.createUser({ roles: ['notary', 'signer'] });
    expect(await issueBootstrapInvite(t.db, t.config.publicUrl)).not.toBeNull();
  });

  it('stops the previous link working when it issues a new one', async () => {
    const first = await issueToken();
    const second = await issueToken();
    expect(first).not.toBe(second);
    const old = await getInvite(first);
    expect(old.statusCode).toBe(404);
    expect(old.json()).toEqual(invalidInvite);
    expect((await claim(first, adminInput())).statusCode).toBe(404);
    expect((await getInvite(second)).statusCode).toBe(200);
  });

  it('stores only a hash of the token', async () => {
    const token = await issueToken();
    const rows = await t.db.select({ tokenHash: invites.tokenHash }).from(invites);
    expect(rows).toEqual([{ tokenHash: hashToken(token) }]);
  });
});

describe('GET /api/invites/:token', () => {
  it('summarises a live invitation', async () => {
    const token = await issueToken();
    const res = await getInvite(token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      purpose: 'bootstrap_admin',
      roles: ['admin'],
      email: null,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      jobId: null,
      jobTitle: null,
      companyId: null,
      companyName: null,
      hasAccount: false,
    });
  });

  it.each([
    ['an unknown token', 'A'.repeat(43)],
    ['a short token', 'abc'],
    ['a token with odd characters', '..%2F..%2Fadmin'],
  ])('refuses %s with 404 invite_invalid', async (_label, token) => {
    await issueToken();
    const res = await getInvite(token);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
  });

  it('refuses an expired invitation', async () => {
    const token = await issueToken();
    await t.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invites.tokenHash, hashToken(token)));
    const res = await getInvite(token);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
  });

  it('refuses a bootstrap link once an administrator exists by another way, as the claim would', async () => {
    const token = await issueToken();
    await t.createUser({ roles: ['admin'] });
    expect((await getInvite(token)).json()).toEqual(invalidInvite);
    const res = await claim(token, adminInput());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
    expect(await countAdmins()).toBe(1);
  });
});

describe('POST /api/invites/:token/claim', () => {
  it('creates an active administrator and signs them in', async () => {
    const token = await issueToken();
    const res = await claim(token, adminInput(' First.Admin@Example.TEST '));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      user: {
        id: expect.any(String),
        name: 'Ada Admin',
        fullName: 'Ada Admin',
        email: 'first.admin@example.test',
        roles: ['admin'],
        role: 'admin',
        status: 'active',
        pendingApproval: null,
        emailVerified: true,
      },
      sessionToken: expect.any(String),
      mfa_required: false,
      enrolled: false,
      twofaRequired: false,
      ticket: null,
      nextAction: null,
      pendingApproval: false,
      message: 'Your account is ready.',
    });
    expect(res.cookies.find((c) => c.name === 'ron_session')?.value).toBe(body.sessionToken);
    const headers = { authorization: `Bearer ${body.sessionToken}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user.role).toBe('admin');
    expect((await t.app.inject({ method: 'GET', url: '/api/notary/pending', headers })).statusCode).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'first.admin@example.test', password: 'a long admin password' },
    });
    expect(login.statusCode).toBe(200);
    expect(await issueBootstrapInvite(t.db, t.config.publicUrl)).toBeNull();
  });

  it('refuses a link that was already used', async () => {
    const token = await issueToken();
    expect((await claim(token, adminInput('one@example.test'))).statusCode).toBe(201);
    const again = await claim(token, adminInput('two@example.test'));
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(invalidInvite);
    expect((await getInvite(token)).json()).toEqual(invalidInvite);
    expect(await countAdmins()).toBe(1);
  });

  it('refuses an expired link and creates nobody', async () => {
    const token = await issueToken();
    await t.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invites.tokenHash, hashToken(token)));
    const res = await claim(token, adminInput());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
    expect(await t.db.select().from(users)).toEqual([]);
  });

  it('refuses a garbage token', async () => {
    await issueToken();
    const res = await claim('garbage-token-that-matches-nothing-at-all-x', adminInput());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(invalidInvite);
  });

  it('refuses an email that already has an account with 409 and leaves the link usable', async () => {
    const existing = await t.createUser({ roles: ['signer'], email: 'taken@example.test' });
    const token = await issueToken();
    const res = await claim(token, adminInput('TAKEN@example.test'));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists. Sign in instead.' });
    expect(res.cookies.find((c) => c.name === 'ron_session')).toBeUndefined();
    expect((await getInvite(token)).statusCode).toBe(200);
    const stillSigner = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: existing.email, password: existing.password } });
    expect(stillSigner.json().user.roles).toEqual(['signer']);
    expect((await claim(token, adminInput('fresh@example.test'))).statusCode).toBe(201);
  });

  it('refuses a weak password with the minimum-length message and leaves the link usable', async () => {
    const token = await issueToken();
    const res = await claim(token, { ...adminInput(), password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Password must be at least 8 characters.' });
    expect((await getInvite(token)).statusCode).toBe(200);
  });

  it('refuses a bad email or a blank name and leaves the link usable', async () => {
    const token = await issueToken();
    expect((await claim(token, { ...adminInput(), email: 'nope' })).json()).toMatchObject({ message: 'Enter a valid email address.' });
    expect((await claim(token, { ...adminInput(), name: ' ' })).json()).toMatchObject({ message: 'Enter your full name.' });
    expect((await getInvite(token)).statusCode).toBe(200);
  });

  it('lets only one of two simultaneous claims of the same link succeed', async () => {
    const token = await issueToken();
    const results = await Promise.all([claim(token, adminInput('racer.one@example.test')), claim(token, adminInput('racer.two@example.test'))]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 404]);
    expect(await countAdmins()).toBe(1);
  });
});
