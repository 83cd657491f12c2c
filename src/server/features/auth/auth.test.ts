import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessions, titleCompanies, users } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

/** The main app: address limits are out of the way so every other rule can be tested alone. */
let t: TestApp;
/** An app with tiny limits, a tiny body limit and Secure cookies. */
let limited: TestApp;
let addressCounter = 0;

beforeAll(async () => {
  [t, limited] = await Promise.all([
    createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' }),
    createTestApp({
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '3',
      REGISTRATIONS_PER_ADDRESS_PER_HOUR: '2',
      BODY_LIMIT_BYTES: '2048',
      COOKIE_SECURE: 'true',
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.close(), limited?.close()]);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A network address no other test uses, so per-address limits start from zero. */
function freshAddress(): string {
  addressCounter += 1;
  return `10.0.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function login(app: TestApp, payload: unknown, extra: Partial<InjectOptions> = {}) {
  return app.app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as InjectOptions['payload'], ...extra });
}

function me(app: TestApp, headers: Record<string, string>) {
  return app.app.inject({ method: 'GET', url: '/api/auth/me', headers });
}

const sameOrigin = () => ({ origin: t.config.publicUrl });
let emailCounter = 0;
const newEmail = (label = 'person') => `${label}-${(emailCounter += 1)}-${Date.now()}@example.test`;
const strongPassword = 'correct horse battery';

describe('POST /api/auth/login', () => {
  it('signs a user in and returns the login response fields with a session cookie', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const res = await login(t, { email: user.email.toUpperCase(), password: user.password });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      user: { id: user.id, email: user.email, roles: ['signer'], role: 'signer', name: user.name, fullName: user.name },
      sessionToken: expect.any(String),
      mfa_required: false,
      enrolled: false,
      twofaRequired: false,
      ticket: null,
      nextAction: null,
    });
    expect(body.user).not.toHaveProperty('passwordHash');
    const cookie = res.cookies.find((c) => c.name === 'ron_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.value).toBe(body.sessionToken);
  });

  it('sets the session cookie to expire with the session, after SESSION_TTL_HOURS', async () => {
    const user = await t.createUser();
    const before = Date.now();
    const res = await login(t, { email: user.email, password: user.password });
    const cookie = res.cookies.find((c) => c.name === 'ron_session');
    const expires = new Date(cookie?.expires ?? 0).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + t.config.session.ttlMs - 2000);
    expect(expires).toBeLessThanOrEqual(Date.now() + t.config.session.ttlMs + 1000);
  });

  it('marks the session cookie Secure when COOKIE_SECURE is set', async () => {
    const user = await limited.createUser();
    const res = await login(limited, { email: user.email, password: user.password }, { remoteAddress: freshAddress() });
    expect(res.statusCode).toBe(200);
    expect(res.cookies.find((c) => c.name === 'ron_session')?.secure).toBe(true);
  });

  it('ignores spaces around the email', async () => {
    const user = await t.createUser();
    const res = await login(t, { email: `  ${user.email}  `, password: user.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(user.id);
  });

  it('accepts a job id and signer id in the body or in the query', async () => {
    const user = await t.createUser();
    const inBody = await login(t, { email: user.email, password: user.password, jobId: 'job-1', signerId: 'signer-1', rememberDevice: false });
    expect(inBody.statusCode).toBe(200);
    const inQuery = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login?jobId=job-2&signerId=signer-2',
      payload: { email: user.email, password: user.password },
    });
    expect(inQuery.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown account with the same 401', async () => {
    const user = await t.createUser();
    const wrong = await login(t, { email: user.email, password: 'not-the-password' });
    const unknown = await login(t, { email: 'nobody@example.test', password: 'whatever1' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ error: 'invalid_credentials', message: 'Invalid email or password.' });
    expect(wrong.cookies.find((c) => c.name === 'ron_session')).toBeUndefined();
  });

  it('refuses a password that differs only in case or by a trailing space', async () => {
    const user = await t.createUser({ password: 'Case-Sensitive-1' });
    expect((await login(t, { email: user.email, password: 'case-sensitive-1' })).statusCode).toBe(401);
    expect((await login(t, { email: user.email, password: 'Case-Sensitive-1 ' })).statusCode).toBe(401);
  });

  it.each([
    ['no email', { password: 'secret-password' }],
    ['no password', { email: 'someone@example.test' }],
    ['neither field', {}],
    ['an empty email', { email: '', password: 'secret-password' }],
    ['a blank email', { email: '   ', password: 'secret-password' }],
    ['an empty password', { email: 'someone@example.test', password: '' }],
    ['null fields', { email: null, password: null }],
  ])('asks for both email and password when given %s', async (_label, payload) => {
    const res = await login(t, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Please enter both email and password.' });
  });

  it('asks for both email and password when the request has no body at all', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Please enter both email and password.' });
  });

  it('refuses fields of the wrong type and names them', async () => {
    const res = await login(t, { email: 42, password: ['a'] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
    expect(body.detail.map((issue: { path: string }) => issue.path)).toEqual(['email', 'password']);
  });

  it('refuses a rememberDevice that is not true or false', async () => {
    const res = await login(t, { email: 'a@example.test', password: 'secret-password', rememberDevice: 'yes' });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toEqual([expect.objectContaining({ path: 'rememberDevice' })]);
  });

  it('refuses a JSON body that is not an object', async () => {
    for (const payload of ['[]', '"text"', '42']) {
      const res = await login(t, payload, { headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error, payload).toBe('validation_failed');
    }
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('answers 415 to a %s body', async (contentType) => {
    const res = await login(t, 'email=a@example.test&password=x', { headers: { 'content-type': contentType } });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: 'unsupported_media_type', message: 'Send the body as JSON (application/json) or multipart form data.' });
  });

  it('answers 400 invalid_json to a body that is not valid JSON', async () => {
    const res = await login(t, '{"email": "a@example.test", ', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('answers 400 invalid_json to an empty JSON body', async () => {
    const res = await login(t, '', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_json' });
  });

  it('answers 413 payload_too_large to a body over BODY_LIMIT_BYTES and says the limit', async () => {
    const res = await login(limited, { email: 'a@example.test', password: 'x'.repeat(3000) }, { remoteAddress: freshAddress() });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'payload_too_large', message: 'The request body is too large (limit 2048 bytes).' });
  });

  it('answers 413 to a body over the default 1 MiB limit', async () => {
    const res = await login(t, { email: 'a@example.test', password: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'payload_too_large', message: expect.stringContaining('1048576') });
  });

  it('refuses a password longer than 256 characters before hashing it', async () => {
    const res = await login(t, { email: 'a@example.test', password: 'x'.repeat(257) });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toEqual([expect.objectContaining({ path: 'password' })]);
  });

  it('refuses a disabled account with the right password and says why', async () => {
    const user = await t.createUser({ status: 'disabled' });
    const res = await login(t, { email: user.email, password: user.password });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'account_disabled', message: 'This account is disabled. Please contact your administrator.' });
    expect(res.cookies.find((c) => c.name === 'ron_session')).toBeUndefined();
  });

  it('gives a disabled account with a wrong password the ordinary 401, revealing nothing', async () => {
    const user = await t.createUser({ status: 'disabled' });
    const res = await login(t, { email: user.email, password: 'wrong-password' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_credentials');
  });

  it('signs in a pending account and tells it that approval is pending', async () => {
    const user = await t.createUser({ roles: ['notary'], status: 'pending' });
    const res = await login(t, { email: user.email, password: user.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ status: 'pending', pendingApproval: 'notary', role: 'notary' });
  });
});

describe('sign-in limits', () => {
  it('locks an account after LOGIN_MAX_FAILURES_PER_ACCOUNT failures, even for the right password, and says how long to wait', async () => {
    const user = await t.createUser();
    const maximum = t.config.limits.loginFailuresPerAccount;
    for (let attempt = 0; attempt < maximum; attempt += 1) {
      expect((await login(t, { email: user.email, password: `wrong-${attempt}` })).statusCode).toBe(401);
    }
    const res = await login(t, { email: user.email, password: user.password });
    expect(res.statusCode).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(15 * 60 - 30);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(res.json()).toEqual({
      error: 'rate_limited',
      message: 'Too many failed sign-in attempts for this account. Please wait 15 minutes and try again.',
      detail: { retryAfterSeconds: retryAfter },
    });
    expect(res.cookies.find((c) => c.name === 'ron_session')).toBeUndefined();
  });

  it('locks the account whatever the case or spacing of the email', async () => {
    const user = await t.createUser();
    for (let attempt = 0; attempt < t.config.limits.loginFailuresPerAccount; attempt += 1) {
      await login(t, { email: attempt % 2 ? user.email.toUpperCase() : ` ${user.email} `, password: 'wrong-password' });
    }
    expect((await login(t, { email: user.email, password: user.password })).statusCode).toBe(429);
  });

  it('locks an unknown email the same way, so the answer does not reveal whether an account exists', async () => {
    const email = newEmail('ghost');
    for (let attempt = 0; attempt < t.config.limits.loginFailuresPerAccount; attempt += 1) await login(t, { email, password: 'wrong-password' });
    const res = await login(t, { email, password: 'wrong-password' });
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toBe('Too many failed sign-in attempts for this account. Please wait 15 minutes and try again.');
  });

  it('keeps other accounts usable while one is locked', async () => {
    const locked = await t.createUser();
    const other = await t.createUser();
    for (let attempt = 0; attempt < t.config.limits.loginFailuresPerAccount; attempt += 1) await login(t, { email: locked.email, password: 'wrong-password' });
    expect((await login(t, { email: locked.email, password: locked.password })).statusCode).toBe(429);
    expect((await login(t, { email: other.email, password: other.password })).statusCode).toBe(200);
  });

  it('forgets earlier failures after a successful sign-in', async () => {
    const user = await t.createUser();
    const almost = t.config.limits.loginFailuresPerAccount - 1;
    for (let attempt = 0; attempt < almost; attempt += 1) await login(t, { email: user.email, password: 'wrong-password' });
    expect((await login(t, { email: user.email, password: user.password })).statusCode).toBe(200);
    for (let attempt = 0; attempt < almost; attempt += 1) await login(t, { email: user.email, password: 'wrong-password' });
    expect((await login(t, { email: user.email, password: user.password })).statusCode).toBe(200);
  });

  it('limits attempts per network address, even with the right password, while other addresses go on', async () => {
    const user = await limited.createUser();
    const address = freshAddress();
    for (let attempt = 0; attempt < limited.config.limits.loginAttemptsPerAddress; attempt += 1) {
      expect((await login(limited, { email: user.email, password: 'wrong-password' }, { remoteAddress: address })).statusCode).toBe(401);
    }
    const res = await login(limited, { email: user.email, password: user.password }, { remoteAddress: address });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()).toMatchObject({ error: 'rate_limited', message: 'Too many sign-in attempts from this network. Please wait 15 minutes and try again.' });
    expect((await login(limited, { email: user.email, password: user.password }, { remoteAddress: freshAddress() })).statusCode).toBe(200);
  });

  it('counts successful sign-ins toward the address limit too', async () => {
    const user = await limited.createUser();
    const address = freshAddress();
    for (let attempt = 0; attempt < limited.config.limits.loginAttemptsPerAddress; attempt += 1) {
      expect((await login(limited, { email: user.email, password: user.password }, { remoteAddress: address })).statusCode).toBe(200);
    }
    expect((await login(limited, { email: user.email, password: user.password }, { remoteAddress: address })).statusCode).toBe(429);
  });
});

describe('GET /api/auth/me', () => {
  it('returns the signed-in user for a bearer token', async () => {
    const user = await t.createUser({ roles: ['title_agent', 'signer'] });
    const res = await me(t, await t.signInAs(user));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      user: {
        id: user.id,
        name: user.name,
        fullName: user.name,
        email: user.email,
        roles: ['title_agent', 'signer'],
        role: 'title_agent',
        status: 'active',
        pendingApproval: null,
        emailVerified: false,
      },
    });
  });

  it('returns the signed-in user for the session cookie', async () => {
    const user = await t.createUser();
    const signIn = await login(t, { email: user.email, password: user.password });
    const token = signIn.json().sessionToken as string;
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { ron_session: token } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(user.id);
  });

  it('prefers the bearer token over the cookie', async () => {
    const first = await t.createUser();
    const second = await t.createUser();
    const firstToken = (await login(t, { email: first.email, password: first.password })).json().sessionToken as string;
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: await t.signInAs(second), cookies: { ron_session: firstToken } });
    expect(res.json().user.id).toBe(second.id);
  });

  it('answers 401 unauthorized without any credential', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'unauthorized', message: 'Please sign in to continue.' });
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the bearer token at once, although the session was just cached, and clears the cookie', async () => {
    const user = await t.createUser();
    const headers = await t.signInAs(user);
    expect((await me(t, headers)).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const cleared = res.cookies.find((c) => c.name === 'ron_session');
    expect(cleared?.value).toBe('');
    expect(new Date(cleared?.expires ?? Date.now()).getTime()).toBeLessThanOrEqual(Date.now());
    const after = await me(t, headers);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ error: 'session_expired' });
  });

  it('revokes a cookie session when the browser logs out from the same origin', async () => {
    const user = await t.createUser();
    const token = (await login(t, { email: user.email, password: user.password })).json().sessionToken as string;
    const cookies = { ron_session: token };
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', cookies })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', cookies, headers: sameOrigin() });
    expect(res.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', cookies })).statusCode).toBe(401);
  });

  it('ends only the session it was called with', async () => {
    const user = await t.createUser();
    const laptop = await t.signInAs(user);
    const phone = await t.signInAs(user);
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: laptop });
    expect((await me(t, laptop)).statusCode).toBe(401);
    expect((await me(t, phone)).statusCode).toBe(200);
  });

  it('revokes both sessions when the bearer token and the cookie name different ones', async () => {
    const user = await t.createUser();
    const bearerToken = (await login(t, { email: user.email, password: user.password })).json().sessionToken as string;
    const cookieToken = (await login(t, { email: user.email, password: user.password })).json().sessionToken as string;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${bearerToken}`, ...sameOrigin() },
      cookies: { ron_session: cookieToken },
    });
    expect(res.statusCode).toBe(200);
    expect((await me(t, { authorization: `Bearer ${bearerToken}` })).statusCode).toBe(401);
    const cookieAfter = await t.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { ron_session: cookieToken } });
    expect(cookieAfter.statusCode).toBe(401);
    expect(cookieAfter.json()).toMatchObject({ error: 'session_expired' });
  });

  it('answers ok without a session, and for an already revoked one', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/logout' })).json()).toEqual({ ok: true });
    const headers = await t.signInAs(await t.createUser());
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
    const again = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
    expect(again.statusCode).toBe(200);
  });
});

describe('session expiry', () => {
  it('refuses a session whose expiry has passed in the database', async () => {
    const user = await t.createUser();
    const token = (await login(t, { email: user.email, password: user.password })).json().sessionToken as string;
    await t.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(sessions.tokenHash, hashToken(token)));
    const res = await me(t, { authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'session_expired', message: 'Your session has expired. Please sign in again.' });
  });

  it('refuses a session once SESSION_TTL_HOURS have passed, even right after it was cached', async () => {
    const user = await t.createUser();
    const headers = await t.signInAs(user);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect((await me(t, headers)).statusCode).toBe(200);
    vi.setSystemTime(Date.now() + t.config.session.ttlMs - 60_000);
    expect((await me(t, headers)).statusCode).toBe(200);
    vi.setSystemTime(Date.now() + 61_000);
    const res = await me(t, headers);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('session_expired');
  });

  it('refuses the session of an account disabled after it signed in', async () => {
    const user = await t.createUser();
    const token = (await login(t, { email: user.email, password: user.password })).json().sessionToken as string;
    await t.db.update(users).set({ status: 'disabled' }).where(eq(users.id, user.id));
    expect((await me(t, { authorization: `Bearer ${token}` })).statusCode).toBe(401);
  });
});

describe('registration', () => {
  const register = (kind: 'user' | 'notary' | 'title-company', payload: Record<string, unknown>, app = t, extra: Partial<InjectOptions> = {}) =>
    app.app.inject({ method: 'POST', url: `/api/auth/register/${kind}`, payload, ...extra });
  const notaryFields = { commissionState: 'TX', commissionNumber: 'C-123', commissionExpiresOn: '2031-06-30', county: 'Travis' };

  it('creates an active signer account and signs the person in', async () => {
    const email = newEmail('signer');
    const res = await register('user', { name: 'Sam Signer', email, password: strongPassword });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      user: {
        id: expect.any(String),
        name: 'Sam Signer',
        fullName: 'Sam Signer',
        email,
        roles: ['signer'],
        role: 'signer',
        status: 'active',
        pendingApproval: null,
        emailVerified: false,
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
    expect((await me(t, { authorization: `Bearer ${body.sessionToken}` })).json().user.id).toBe(body.user.id);
    expect((await login(t, { email, password: strongPassword })).statusCode).toBe(200);
  });

  it('creates a notary account pending approval and signs the person in', async () => {
    const res = await register('notary', { name: 'Nora Notary', email: newEmail('notary'), password: strongPassword, ...notaryFields });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ pendingApproval: true, user: { roles: ['notary'], role: 'notary', status: 'pending', pendingApproval: 'notary' } });
    expect(body.message).toMatch(/pending approval/);
    const current = await me(t, { authorization: `Bearer ${body.sessionToken}` });
    expect(current.json().user).toMatchObject({ status: 'pending', pendingApproval: 'notary' });
  });

  it('creates a title company account pending approval and signs the person in', async () => {
    const res = await register('title-company', { name: 'Tom Title', email: newEmail('title'), password: strongPassword, companyName: 'Acme Title' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ pendingApproval: true, user: { roles: ['title'], role: 'title', status: 'pending', pendingApproval: 'title_company' } });
    expect(body.message).toMatch(/pending approval/);
    expect((await me(t, { authorization: `Bearer ${body.sessionToken}` })).statusCode).toBe(200);
  });

  it('stores the email trimmed and in lower case', async () => {
    const email = newEmail('mixed');
    const res = await register('user', { name: 'Mia', email: `  ${email.toUpperCase()} `, password: strongPassword });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.email).toBe(email);
  });

  it('refuses an email that is already registered, whatever its case, with 409', async () => {
    const existing = await t.createUser();
    for (const [kind, extra] of [
      ['user', {}],
      ['notary', notaryFields],
      ['title-company', { companyName: 'Duplicate Title Co' }],
    ] as const) {
      const res = await register(kind, { name: 'Dup', email: existing.email.toUpperCase(), password: strongPassword, ...extra });
      expect(res.statusCode, kind).toBe(409);
      expect(res.json(), kind).toEqual({ error: 'conflict', message: 'An account with this email already exists. Sign in instead, or use Forgot password.' });
      expect(
        res.cookies.find((c) => c.name === 'ron_session'),
        kind,
      ).toBeUndefined();
    }
    expect(await t.db.select().from(titleCompanies).where(eq(titleCompanies.name, 'Duplicate Title Co'))).toEqual([]);
    expect((await login(t, { email: existing.email, password: existing.password })).statusCode).toBe(200);
  });

  it('creates exactly one account when the same email registers twice at once', async () => {
    const email = newEmail('race');
    const results = await Promise.all([
      register('user', { name: 'One', email, password: strongPassword }),
      register('notary', { name: 'Two', email, password: strongPassword, ...notaryFields }),
    ]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect(await t.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
  });

  it('refuses a password shorter than 8 characters with the minimum-length message', async () => {
    const res = await register('user', { name: 'Short', email: newEmail(), password: 'short12' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Password must be at least 8 characters.', detail: [{ path: 'password' }] });
  });

  it('accepts a password of exactly 8 characters', async () => {
    expect((await register('user', { name: 'Eight', email: newEmail(), password: '12345678' })).statusCode).toBe(201);
  });

  it.each(['not-an-email', 'a@', '@example.test', 'two@@example.test', ''])('refuses the email %j', async (email) => {
    const res = await register('user', { name: 'Bad Email', email, password: strongPassword });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Enter a valid email address.' });
  });

  it('refuses a blank name', async () => {
    const res = await register('user', { name: '   ', email: newEmail(), password: strongPassword });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Enter your full name.' });
  });

  it('refuses a notary registration without its commission fields and names each one', async () => {
    const res = await register('notary', { name: 'No Commission', email: newEmail(), password: strongPassword });
    expect(res.statusCode).toBe(400);
    const paths = res.json().detail.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['commissionState', 'commissionNumber', 'commissionExpiresOn', 'county']));
  });

  it.each([
    ['an unknown state', { commissionState: 'ZZ' }, 'Choose the state of your commission.'],
    ['a malformed expiry date', { commissionExpiresOn: '30/06/2031' }, 'Enter the commission expiry date.'],
    ['a blank commission number', { commissionNumber: ' ' }, 'Enter your commission number.'],
    ['a blank county', { county: '' }, 'Enter the county of your commission.'],
  ])('refuses a notary registration with %s', async (_label, override, message) => {
    const res = await register('notary', { name: 'Bad Commission', email: newEmail(), password: strongPassword, ...notaryFields, ...override });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
  });

  it('refuses a title company registration without a company name', async () => {
    const res = await register('title-company', { name: 'No Company', email: newEmail(), password: strongPassword, companyName: '' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Enter the company name.' });
  });

  it('limits registrations per network address per hour, while other addresses go on', async () => {
    const address = freshAddress();
    for (let count = 0; count < limited.config.limits.registrationsPerAddressPerHour; count += 1) {
      expect(
        (await register('user', { name: 'Batch', email: newEmail('batch'), password: strongPassword }, limited, { remoteAddress: address })).statusCode,
      ).toBe(201);
    }
    const res = await register('user', { name: 'Batch', email: newEmail('batch'), password: strongPassword }, limited, { remoteAddress: address });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    expect(res.json()).toMatchObject({ error: 'rate_limited', message: 'Too many registrations from this network. Please wait 60 minutes and try again.' });
    const elsewhere = await register('user', { name: 'Elsewhere', email: newEmail('elsewhere'), password: strongPassword }, limited, {
      remoteAddress: freshAddress(),
    });
    expect(elsewhere.statusCode).toBe(201);
  });

  it('does not count a refused form toward the registration limit', async () => {
    const address = freshAddress();
    for (let count = 0; count < 5; count += 1) {
      await register('user', { name: 'Bad', email: 'not-an-email', password: strongPassword }, limited, { remoteAddress: address });
    }
    expect((await register('user', { name: 'Good', email: newEmail('good'), password: strongPassword }, limited, { remoteAddress: address })).statusCode).toBe(
      201,
    );
  });
});
