import { and, desc, eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { currentCode, nextCode, wrongCode } from '#test/totp-codes.ts';

/**
 * Linking an authenticator completes a pending sign-in, and every wrong second-factor code counts
 * toward the account's sign-in limit (LOGIN_MAX_FAILURES_PER_ACCOUNT, here 4).
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ MFA_REQUIRED_ROLES: 'notary,admin', LOGIN_MAX_FAILURES_PER_ACCOUNT: '4', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
});
afterAll(async () => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function request(method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: unknown, extra: Partial<InjectOptions> = {}) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }), ...extra });
}

const logIn = (user: TestUser, deviceCookie?: string) =>
  request('POST', '/api/auth/login', {}, { email: user.email, password: user.password }, deviceCookie ? { cookies: { ron_device: deviceCookie } } : {});

async function getTicket(user: TestUser): Promise<string> {
  const res = await logIn(user);
  expect(res.statusCode).toBe(200);
  const ticket = res.json().ticket as string | null;
  if (!ticket) throw new Error(`expected a second-factor step, got ${res.body}`);
  return ticket;
}

const cookieOf = (res: LightMyRequestResponse, name: string) => res.cookies.find((cookie) => cookie.name === name);

async function startSetup(headers: Record<string, string>): Promise<string> {
  const res = await request('POST', '/api/auth/mfa/totp/setup/start', headers);
  expect(res.statusCode).toBe(200);
  return res.json().secret as string;
}

const linkWith = (headers: Record<string, string>, payload: Record<string, unknown>) => request('POST', '/api/auth/mfa/totp/setup/verify', headers, payload);

/** A notary who linked an authenticator at a first sign-in; returns the secret. */
async function createEnrolledNotary() {
  const user = await t.createUser({ roles: ['notary'] });
  const ticket = await getTicket(user);
  const secret = await startSetup(bearer(ticket));
  expect((await linkWith(bearer(ticket), { token: currentCode(secret) })).statusCode).toBe(200);
  return { user, secret };
}

/** The newest sign-in code written to the outbox for this address. */
async function readQueuedCode(email: string): Promise<string> {
  const [mail] = await t.db
    .select({ text: emailOutbox.textBody })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'mfa_email_code')))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no sign-in code queued for ${email}`);
  return code;
}

const lockedMessage = /^Too many failed sign-in attempts for this account\. Please wait \d+ minutes and try again\.$/;

describe('linking an authenticator from a pending sign-in', () => {
  it('completes the sign-in with the linking code: a new full session, and the pending one ends', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = await getTicket(user);
    const secret = await startSetup(bearer(ticket));
    const res = await linkWith(bearer(ticket), { token: currentCode(secret), rememberDevice: false });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: true,
      completedSignIn: {
        user: expect.objectContaining({ id: user.id, roles: ['notary'] }),
        sessionToken: expect.any(String),
        mfa_required: false,
        enrolled: true,
        twofaRequired: false,
        ticket: null,
        nextAction: null,
      },
    });
    const full = body.completedSignIn.sessionToken as string;
    expect(full).not.toBe(ticket);
    expect(cookieOf(res, 'ron_session')?.value).toBe(full);
    expect(cookieOf(res, 'ron_device')).toBeUndefined();
    expect((await request('GET', '/api/auth/me', bearer(full))).json().user.id).toBe(user.id);
    expect((await request('POST', '/api/auth/mfa/backup/generate', bearer(full))).statusCode).toBe(200);
    const spent = await request('GET', '/api/auth/mfa/status', bearer(ticket));
    expect(spent.statusCode).toBe(401);
    expect(spent.json()).toMatchObject({ error: 'session_expired' });
  });

  it.each([
    ['when asked', { rememberDevice: true }],
    ['by default', {}],
  ])('remembers the device %s, so the next sign-in on it needs no code', async (_label, extra) => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = await getTicket(user);
    const secret = await startSetup(bearer(ticket));
    const res = await linkWith(bearer(ticket), { token: currentCode(secret), ...extra });
    expect(res.statusCode).toBe(200);
    const device = cookieOf(res, 'ron_device');
    expect(device).toMatchObject({ httpOnly: true, path: '/api/auth' });
    const next = await logIn(user, device?.value);
    expect(next.json()).toMatchObject({ user: { id: user.id }, sessionToken: expect.any(String), mfa_required: false });
  });

  it('keeps the session pending after a wrong linking code', async () => {
    const ticket = await getTicket(await t.createUser({ roles: ['notary'] }));
    const secret = await startSetup(bearer(ticket));
    const res = await linkWith(bearer(ticket), { token: wrongCode(secret) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid_code', message: 'Verification failed. Please try again.' });
    expect(cookieOf(res, 'ron_session')).toBeUndefined();
    expect((await request('GET', '/api/auth/me', bearer(ticket))).json()).toMatchObject({ error: 'mfa_required' });
  });

  it('refuses a rememberDevice that is not true or false', async () => {
    const ticket = await getTicket(await t.createUser({ roles: ['notary'] }));
    const secret = await startSetup(bearer(ticket));
    const res = await linkWith(bearer(ticket), { token: currentCode(secret), rememberDevice: 'yes' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed' });
  });

  it('accepts the linking code once only: at a later sign-in it is a replay', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = await getTicket(user);
    const secret = await startSetup(bearer(ticket));
    const code = currentCode(secret);
    expect((await linkWith(bearer(ticket), { token: code, rememberDevice: false })).statusCode).toBe(200);
    const replay = await request('POST', '/api/auth/mfa/verify', bearer(await getTicket(user)), { token: code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ error: 'invalid_code' });
  });
});

describe('linking an authenticator from a full session (the Security tab)', () => {
  it('keeps the session it was called with and completes no sign-in', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(user);
    const secret = await startSetup(headers);
    const res = await linkWith(headers, { token: currentCode(secret) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, completedSignIn: null });
    expect(cookieOf(res, 'ron_session')).toBeUndefined();
    expect(cookieOf(res, 'ron_device')).toBeUndefined();
    expect((await request('GET', '/api/auth/me', headers)).statusCode).toBe(200);
  });

  it('accepts the still-current code at the next sign-in: linking signed nobody in with it', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(user);
    const secret = await startSetup(headers);
    const code = currentCode(secret);
    expect((await linkWith(headers, { token: code })).statusCode).toBe(200);
    const login = await logIn(user);
    expect(login.json()).toMatchObject({ twofaRequired: true });
    const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket: login.json().ticket, code, rememberDevice: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { id: user.id }, sessionToken: expect.any(String) });
    const replay = await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code });
    expect(replay.statusCode).toBe(401);
  });
});

describe('wrong second-factor codes and the account sign-in limit', () => {
  it('counts wrong emailed codes, so the next sign-in with the right password is refused', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = await getTicket(user);
    expect((await request('POST', '/api/auth/mfa/email/request', bearer(ticket))).statusCode).toBe(200);
    const code = await readQueuedCode(user.email);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const res = await request('POST', '/api/auth/mfa/email/verify', bearer(ticket), { code: wrongCode(null, [code]) });
      expect(res.json()).toMatchObject({ error: 'invalid_code' });
    }
    const refused = await logIn(user);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(lockedMessage) });
  });

  it('refuses even the right emailed code on another pending session once the limit is reached', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const [first, second] = [await getTicket(user), await getTicket(user)];
    expect((await request('POST', '/api/auth/mfa/email/request', bearer(first))).statusCode).toBe(200);
    const code = await readQueuedCode(user.email);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await request('POST', '/api/auth/mfa/email/verify', bearer(first), { code: wrongCode(null, [code]) });
    }
    const res = await request('POST', '/api/auth/mfa/email/verify', bearer(second), { code });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(lockedMessage) });
    expect(cookieOf(res, 'ron_session')).toBeUndefined();
  });

  it('counts wrong authenticator and backup codes alike across pending sessions', async () => {
    const { user, secret } = await createEnrolledNotary();
    const first = await getTicket(user);
    for (const token of [wrongCode(secret), wrongCode(secret)]) await request('POST', '/api/auth/mfa/verify', bearer(first), { token });
    const second = await getTicket(user);
    for (const backupCode of ['WRONGCODE1', 'WRONGCODE2']) await request('POST', '/api/auth/mfa/verify', bearer(second), { backupCode });
    const refused = await logIn(user);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(lockedMessage);
  });

  it('refuses the right authenticator code on a pending session started before the limit was reached', async () => {
    const { user, secret } = await createEnrolledNotary();
    const [guessing, waiting] = [await getTicket(user), await getTicket(user)];
    for (let attempt = 1; attempt <= 4; attempt += 1) await request('POST', '/api/auth/mfa/verify', bearer(guessing), { token: wrongCode(secret) });
    const res = await request('POST', '/api/auth/mfa/verify', bearer(waiting), { token: nextCode(secret) });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ error: 'rate_limited' });
  });

  it('counts wrong codes of the login page step (POST /api/auth/2fa/verify) too', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(user);
    const secret = await startSetup(headers);
    expect((await linkWith(headers, { token: currentCode(secret) })).statusCode).toBe(200);
    const ticket = await getTicket(user);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: wrongCode(secret) });
      expect(res.json()).toMatchObject({ error: 'invalid_code' });
    }
    expect((await logIn(user)).statusCode).toBe(429);
  });
});
