import { and, eq, sql } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, mfaBackupCodes, mfaEmailCodes, mfaFactors, sessions, trustedDevices } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';
import { currentCode, nextCode, wrongCode } from '#test/totp-codes.ts';

/** Notaries and admins must use a second factor; signers may choose to. */
let t: TestApp;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    MFA_REQUIRED_ROLES: 'notary,admin',
    SMTP_URL: smtp.url,
    EMAIL_POLL_MS: '50',
    EMAIL_CODES_PER_USER_PER_HOUR: '3',
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function request(method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: unknown, extra: Partial<InjectOptions> = {}) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }), ...extra });
}

function logIn(user: TestUser, deviceCookie?: string) {
  return request('POST', '/api/auth/login', {}, { email: user.email, password: user.password }, deviceCookie ? { cookies: { ron_device: deviceCookie } } : {});
}

/** Signs in with the password and returns the ticket of the pending session. */
async function getTicket(user: TestUser): Promise<string> {
  const res = await logIn(user);
  expect(res.statusCode).toBe(200);
  const ticket = res.json().ticket as string | null;
  if (!ticket) throw new Error(`expected a second-factor step, got ${res.body}`);
  return ticket;
}

async function startSetup(headers: Record<string, string>) {
  const res = await request('POST', '/api/auth/mfa/totp/setup/start', headers);
  expect(res.statusCode).toBe(200);
  return res.json() as { qrCodeDataUrl: string; secret: string; otpauth: string };
}

/** Links an authenticator with a real code from a full session and returns its secret. */
async function enrolTotp(headers: Record<string, string>): Promise<string> {
  const { secret } = await startSetup(headers);
  const res = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: currentCode(secret) });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ ok: true, completedSignIn: null });
  return secret;
}

/** A notary (MFA required) whose linking code, from the pending session, finished the sign-in. */
async function createEnrolledNotary(rememberDevice = false) {
  const user = await t.createUser({ roles: ['notary'] });
  const ticket = await getTicket(user);
  const { secret } = await startSetup(bearer(ticket));
  const linkingCode = currentCode(secret);
  const res = await request('POST', '/api/auth/mfa/totp/setup/verify', bearer(ticket), { token: linkingCode, rememberDevice });
  expect(res.statusCode).toBe(200);
  return { user, secret, linkingCode, token: res.json().completedSignIn.sessionToken as string, response: res };
}

/** A signer (MFA not required) who linked an authenticator from a full session. */
async function createSignerWithTotp() {
  const user = await t.createUser({ roles: ['signer'] });
  const headers = await t.signInAs(user);
  const secret = await enrolTotp(headers);
  return { user, secret, headers };
}

function getStatus(headers: Record<string, string>) {
  return request('GET', '/api/auth/mfa/status', headers);
}

function cookieOf(res: LightMyRequestResponse, name: string) {
  return res.cookies.find((cookie) => cookie.name === name);
}

async function requestEmailCode(headers: Record<string, string>) {
  return request('POST', '/api/auth/mfa/email/request', headers);
}

/** The newest sign-in code mailed to this person, read from the real SMTP server. */
async function readMailedCode(email: string, after = 0): Promise<string> {
  const mail = await smtp.waitForMail((m) => m.to === email && /sign-in code/.test(m.subject) && smtp.messages.indexOf(m) >= after);
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in ${mail.text}`);
  expect(mail.subject).toContain(code);
  return code;
}

async function moveEmailCodesBack(userId: string, seconds: number) {
  await t.db
    .update(mfaEmailCodes)
    .set({ createdAt: sql`${mfaEmailCodes.createdAt} - make_interval(secs => ${seconds})` })
    .where(eq(mfaEmailCodes.userId, userId));
}

describe('GET /api/auth/mfa/status', () => {
  it('reports no second factor for a new signer, with the masked email', async () => {
    const user = await t.createUser({ roles: ['signer'], email: 'status.person@example.test' });
    const res = await getStatus(await t.signInAs(user));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ enrolled: false, totpEnabled: false, required: false, backupCodesRemaining: 0, maskedEmail: 's******@e******.test' });
  });

  it('tells a notary that the role requires a second factor, from the pending session', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const res = await getStatus(bearer(await getTicket(user)));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ enrolled: false, totpEnabled: false, required: true });
  });

  it('answers 401 to an anonymous caller', async () => {
    const res = await getStatus({});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });
});

describe('authenticator set-up', () => {
  it('returns a PNG QR code, the secret and the otpauth URI, and links the app with a real code', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(user);
    const start = await startSetup(headers);
    expect(start.qrCodeDataUrl).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]{100,}$/);
    expect(start.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(start.otpauth);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(start.secret);
    expect(uri.searchParams.get('issuer')).toBe('Open RON');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(uri.pathname)).toContain(user.email);

    const verify = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: currentCode(start.secret) });
    expect(verify.statusCode).toBe(200);
    expect((await getStatus(headers)).json()).toMatchObject({ enrolled: true, totpEnabled: true, required: false });
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'mfa.totp_enabled'), eq(auditEvents.actorId, user.id)));
    expect(audit?.data).toEqual({ userId: user.id });
  });

  it('stores the secret encrypted: the mfa_factors row never holds the base32 secret', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const secret = await enrolTotp(await t.signInAs(user));
    const [row] = await t.db.select().from(mfaFactors).where(eq(mfaFactors.userId, user.id));
    expect(row?.totpSecretEncrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row).toLowerCase()).not.toContain(secret.toLowerCase());
  });

  it('refuses a wrong code, and after five wrong codes asks to start again', async () => {
    const headers = await t.signInAs(await t.createUser());
    const { secret } = await startSetup(headers);
    const wrong = wrongCode(secret);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const res = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: wrong });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'invalid_code', message: 'Verification failed. Please try again.' });
    }
    const locked = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: wrong });
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ error: 'setup_locked', message: 'Too many wrong codes. Start the set-up again for a new QR code.' });
    const late = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: currentCode(secret) });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ error: 'setup_not_started' });
    expect((await getStatus(headers)).json()).toMatchObject({ totpEnabled: false });
  });

  it('asks to start set-up first when verifying without one', async () => {
    const res = await request('POST', '/api/auth/mfa/totp/setup/verify', await t.signInAs(await t.createUser()), { token: '123456' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'setup_not_started', message: 'Start the authenticator set-up first.' });
  });

  it('replaces the pending secret when set-up starts again: a code of the first secret no longer links', async () => {
    const headers = await t.signInAs(await t.createUser());
    const first = await startSetup(headers);
    const second = await startSetup(headers);
    expect(second.secret).not.toBe(first.secret);
    const stale = currentCode(first.secret);
    if (stale !== currentCode(second.secret)) {
      const res = await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: stale });
      expect(res.statusCode).toBe(401);
    }
    expect((await request('POST', '/api/auth/mfa/totp/setup/verify', headers, { token: currentCode(second.secret) })).statusCode).toBe(200);
  });

  it.each([
    ['five digits', { token: '12345' }],
    ['seven digits', { token: '1234567' }],
    ['letters', { token: 'abcdef' }],
    ['a number instead of a string', { token: 123456 }],
    ['no token', {}],
  ])('refuses a set-up code with %s', async (_label, payload) => {
    const res = await request('POST', '/api/auth/mfa/totp/setup/verify', await t.signInAs(await t.createUser()), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
    if (typeof (payload as { token?: unknown }).token === 'string') expect(res.json().message).toBe('Enter the 6-digit code from your authenticator app.');
  });
});

describe('signing in when the role requires MFA', () => {
  it('answers mfa_required with a ticket, and the pending session may call only the MFA routes', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const res = await logIn(user);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      user: null,
      sessionToken: null,
      mfa_required: true,
      enrolled: false,
      twofaRequired: false,
      ticket: expect.any(String),
      nextAction: null,
    });
    const cookie = cookieOf(res, 'ron_session');
    expect(cookie?.value).toBe(body.ticket);
    expect(new Date(cookie?.expires ?? 0).getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60_000 + 1000);

    const pending = bearer(body.ticket);
    for (const [method, url] of [
      ['GET', '/api/auth/me'],
      ['GET', '/api/notary/pending'],
      ['POST', '/api/auth/mfa/backup/generate'],
      ['DELETE', '/api/auth/mfa/devices'],
    ] as const) {
      const refused = await request(method, url, pending);
      expect(refused.statusCode, `${method} ${url}`).toBe(401);
      expect(refused.json(), `${method} ${url}`).toEqual({ error: 'mfa_required', message: 'Finish signing in with your second factor first.' });
    }
    expect((await getStatus(pending)).statusCode).toBe(200);
  });

  it('refuses a replayed authenticator code on the next sign-in', async () => {
    const { user, linkingCode: used } = await createEnrolledNotary();
    // The linking code finished that sign-in; the same code again is a replay.
    const login = await logIn(user);
    expect(login.json()).toMatchObject({ mfa_required: true, enrolled: true, twofaRequired: false });
    const res = await request('POST', '/api/auth/mfa/verify', bearer(login.json().ticket), { token: used });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'invalid_code' });
  });

  it('ends the pending session after five wrong codes with mfa_locked; a new sign-in starts over', async () => {
    const { user, secret } = await createEnrolledNotary();
    const ticket = await getTicket(user);
    const wrong = wrongCode(secret);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const res = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: wrong });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('invalid_code');
    }
    const locked = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: wrong });
    expect(locked.statusCode).toBe(401);
    expect(locked.json()).toEqual({ error: 'mfa_locked', message: 'Too many wrong codes. Please sign in again.' });

    const after = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: nextCode(secret) });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ error: 'session_expired' });

    const fresh = await request('POST', '/api/auth/mfa/verify', bearer(await getTicket(user)), { token: nextCode(secret) });
    expect(fresh.statusCode).toBe(200);
  });

  it('checks no further code once five tries are taken, even a right one racing the wrong ones', async () => {
    const { user, secret } = await createEnrolledNotary();
    const ticket = await getTicket(user);
    // Five guesses sent at once have all been counted; the session is not ended yet.
    await t.db
      .update(sessions)
      .set({ mfaFailures: 5 })
      .where(eq(sessions.tokenHash, hashToken(ticket)));
    const res = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: nextCode(secret) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'mfa_locked' });
    expect((await getStatus(bearer(ticket))).json()).toMatchObject({ error: 'session_expired' });
  });

  it('answers at most four invalid_code and then mfa_locked to ten wrong codes sent at once', async () => {
    const ticket = await getTicket(await t.createUser({ roles: ['notary'] }));
    const answers = await Promise.all(Array.from({ length: 10 }, () => request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: '000000' })));
    const errors = answers.map((res) => res.json().error as string);
    expect(answers.every((res) => res.statusCode === 401)).toBe(true);
    expect(errors.filter((error) => error === 'invalid_code')).toHaveLength(4);
    expect(errors.every((error) => ['invalid_code', 'mfa_locked', 'session_expired'].includes(error))).toBe(true);
  });

  it('counts wrong codes against the account too, so new sign-ins do not buy endless guesses', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    for (let round = 0; round < 2; round += 1) {
      const ticket = await getTicket(user);
      for (let attempt = 1; attempt <= 5; attempt += 1) await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: '000000' });
      expect((await getStatus(bearer(ticket))).statusCode).toBe(401);
    }
    const refused = await logIn(user);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many failed sign-in attempts for this account\. Please wait \d+ minutes and try again\.$/),
    });
  });

  it('does not let a pending session replace a linked authenticator', async () => {
    const { user } = await createEnrolledNotary();
    const res = await request('POST', '/api/auth/mfa/totp/setup/start', bearer(await getTicket(user)));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'verification_required' });
  });

  it('does not let a pending session link an authenticator beside email codes (the password alone is not enough)', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const first = await getTicket(user);
    const before = smtp.messages.length;
    expect((await requestEmailCode(bearer(first))).statusCode).toBe(200);
    const code = await readMailedCode(user.email, before);
    const signedIn = await request('POST', '/api/auth/mfa/email/verify', bearer(first), { code, rememberDevice: false });
    expect(signedIn.statusCode).toBe(200);

    const second = await logIn(user);
    expect(second.json()).toMatchObject({ mfa_required: true, enrolled: true });
    const start = await request('POST', '/api/auth/mfa/totp/setup/start', bearer(second.json().ticket));
    expect(start.statusCode).toBe(403);
    expect(start.json()).toMatchObject({ error: 'verification_required' });
    expect((await getStatus(bearer(second.json().ticket))).json()).toMatchObject({ totpEnabled: false });

    // Signed in fully, the same person may add the authenticator.
    const full = bearer(signedIn.json().sessionToken);
    expect((await request('POST', '/api/auth/mfa/totp/setup/start', full)).statusCode).toBe(200);
  });

  it.each([
    ['no code at all', {}],
    ['both a token and a backup code', { token: '123456', backupCode: 'ABCDEF' }],
    ['a five-digit token', { token: '12345' }],
    ['a token with letters', { token: '12a456' }],
    ['a backup code with a dash', { backupCode: 'ABCD-EFGH' }],
    ['a backup code of 13 characters', { backupCode: 'ABCDEFGHJKLMN' }],
    ['a rememberDevice that is not a boolean', { token: '123456', rememberDevice: 'yes' }],
    ['a numeric token', { token: 123456 }],
  ])('refuses /mfa/verify with %s and counts no failure', async (_label, payload) => {
    const ticket = await getTicket(await t.createUser({ roles: ['notary'] }));
    const res = await request('POST', '/api/auth/mfa/verify', bearer(ticket), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
    if (Object.keys(payload).length === 0) expect(res.json().message).toBe('Enter your 6-digit code or a backup code.');
  });
});

describe('remembering a device', () => {
  it('sets a 30-day httpOnly device cookie that skips MFA on that device only', async () => {
    const { user, response } = await createEnrolledNotary(true);
    const device = cookieOf(response, 'ron_device');
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth' });
    const expires = new Date(device?.expires ?? 0).getTime();
    expect(expires).toBeGreaterThan(Date.now() + 29.9 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000);

    const remembered = await logIn(user, device?.value);
    expect(remembered.statusCode).toBe(200);
    expect(remembered.json()).toMatchObject({
      user: { id: user.id },
      sessionToken: expect.any(String),
      mfa_required: false,
      twofaRequired: false,
      ticket: null,
      enrolled: true,
    });

    const otherDevice = await logIn(user);
    expect(otherDevice.json()).toMatchObject({ user: null, mfa_required: true });

    const someoneElse = await t.createUser({ roles: ['notary'] });
    expect((await logIn(someoneElse, device?.value)).json()).toMatchObject({ user: null, mfa_required: true });
  });

  it('remembers the device by default', async () => {
    const { user, secret } = await createEnrolledNotary();
    const ticket = await getTicket(user);
    const res = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { token: nextCode(secret) });
    expect(res.statusCode).toBe(200);
    expect(cookieOf(res, 'ron_device')?.value).toEqual(expect.any(String));
  });

  it('forgets every remembered device on DELETE /api/auth/mfa/devices', async () => {
    const { user, token, response } = await createEnrolledNotary(true);
    const device = cookieOf(response, 'ron_device')?.value;
    const res = await request('DELETE', '/api/auth/mfa/devices', bearer(token));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ revoked: 1 });
    const cleared = cookieOf(res, 'ron_device');
    expect(cleared).toMatchObject({ value: '', path: '/api/auth' });
    expect(new Date(cleared?.expires ?? Date.now()).getTime()).toBeLessThan(Date.now());

    expect((await logIn(user, device)).json()).toMatchObject({ user: null, mfa_required: true });
    expect((await request('DELETE', '/api/auth/mfa/devices', bearer(token))).json()).toEqual({ revoked: 0 });
  });

  it('stops trusting a device after 30 days', async () => {
    const { user, response } = await createEnrolledNotary(true);
    await t.db
      .update(trustedDevices)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(trustedDevices.userId, user.id));
    expect((await logIn(user, cookieOf(response, 'ron_device')?.value)).json()).toMatchObject({ user: null, mfa_required: true });
  });

  it('forgets remembered devices when the password is reset', async () => {
    const { user, response } = await createEnrolledNotary(true);
    const device = cookieOf(response, 'ron_device')?.value;
    const before = smtp.messages.length;
    await request('POST', '/api/auth/forgot-password', {}, { email: user.email });
    const mail = await smtp.waitForMail((m) => m.to === user.email && /Reset your/.test(m.subject) && smtp.messages.indexOf(m) >= before);
    const token = new URL(/https?:\/\/\S+/.exec(mail.text)?.[0] ?? '').searchParams.get('resetToken');
    const newPassword = 'a brand new password';
    expect((await request('POST', '/api/auth/reset-password', {}, { token, newPassword })).statusCode).toBe(200);
    const res = await logIn({ ...user, password: newPassword }, device);
    expect(res.json()).toMatchObject({ user: null, mfa_required: true });
  });
});

describe('POST /api/auth/2fa/verify (voluntary authenticator, ticket on the login page)', () => {
  it('asks a signer with an authenticator for the inline step and signs in with a newer real code', async () => {
    const { user, secret } = await createSignerWithTotp();
    const login = await logIn(user);
    expect(login.statusCode).toBe(200);
    const { ticket } = login.json();
    expect(login.json()).toEqual({
      user: null,
      sessionToken: null,
      mfa_required: false,
      enrolled: true,
      twofaRequired: true,
      ticket: expect.any(String),
      nextAction: null,
    });

    const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: nextCode(secret), rememberDevice: false, jobId: 'job-1', signerId: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { id: user.id }, sessionToken: expect.any(String), twofaRequired: false, ticket: null });
    expect(cookieOf(res, 'ron_session')?.value).toBe(res.json().sessionToken);
    expect(cookieOf(res, 'ron_device')).toBeUndefined();

    const again = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: nextCode(secret) });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'invalid_ticket', message: 'Your sign-in expired. Please sign in again.' });
  });

  it('refuses the same code on the next sign-in (replay)', async () => {
    const { user, secret } = await createSignerWithTotp();
    const code = nextCode(secret);
    expect((await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code })).statusCode).toBe(200);
    const replay = await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ error: 'invalid_code', message: 'Invalid 2FA code' });
  });

  it('answers Invalid 2FA code to wrong codes and locks the ticket at the fifth', async () => {
    const { user, secret } = await createSignerWithTotp();
    const ticket = await getTicket(user);
    for (const code of [wrongCode(secret), 'NOTACODE', '12345', wrongCode(secret)]) {
      const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code });
      expect(res.statusCode, code).toBe(401);
      expect(res.json(), code).toEqual({ error: 'invalid_code', message: 'Invalid 2FA code' });
    }
    const locked = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: '!!!' });
    expect(locked.statusCode).toBe(401);
    expect(locked.json()).toMatchObject({ error: 'mfa_locked' });
    const late = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: nextCode(secret) });
    expect(late.statusCode).toBe(401);
    expect(late.json()).toMatchObject({ error: 'invalid_ticket' });
  });

  it.each([
    ['a short garbage ticket', 'nope'],
    ['an unknown ticket of the right length', 'x'.repeat(43)],
  ])('refuses %s with invalid_ticket', async (_label, ticket) => {
    const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket, code: '123456' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid_ticket', message: 'Your sign-in expired. Please sign in again.' });
  });

  it('refuses a full session token used as a ticket', async () => {
    const user = await t.createUser();
    const token = (await logIn(user)).json().sessionToken as string;
    const res = await request('POST', '/api/auth/2fa/verify', {}, { ticket: token, code: '123456' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'invalid_ticket' });
  });

  it.each([
    ['no body fields', {}, undefined],
    ['an empty code', { ticket: 'x'.repeat(43), code: '' }, 'Please enter the 2FA code.'],
    ['a blank code', { ticket: 'x'.repeat(43), code: '   ' }, 'Please enter the 2FA code.'],
    ['a code longer than 12 characters', { ticket: 'x'.repeat(43), code: '1234567890123' }, undefined],
    ['a numeric code', { ticket: 'x'.repeat(43), code: 123456 }, undefined],
    ['a ticket that is not a string', { ticket: 42, code: '123456' }, undefined],
    ['a ticket over 200 characters', { ticket: 'x'.repeat(201), code: '123456' }, undefined],
    ['a rememberDevice that is not a boolean', { ticket: 'x'.repeat(43), code: '123456', rememberDevice: 'no' }, undefined],
  ])('refuses %s with a validation error', async (_label, payload, message) => {
    const res = await request('POST', '/api/auth/2fa/verify', {}, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: message ?? expect.any(String) });
  });
});

describe('backup codes', () => {
  it('generates ten single-use codes of at most 12 letters and digits, shown once and stored hashed', async () => {
    const { user, headers } = await createSignerWithTotp();
    const res = await request('POST', '/api/auth/mfa/backup/generate', headers);
    expect(res.statusCode).toBe(200);
    const { codes } = res.json() as { codes: string[] };
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{1,12}$/);
    expect(new Set(codes).size).toBe(10);
    expect((await getStatus(headers)).json()).toMatchObject({ backupCodesRemaining: 10 });
    const rows = await t.db.select().from(mfaBackupCodes).where(eq(mfaBackupCodes.userId, user.id));
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const code of codes) expect(stored).not.toContain(code);
  });

  it('signs in once with a backup code (any case); the used code is refused afterwards', async () => {
    const { user, headers } = await createSignerWithTotp();
    const { codes } = (await request('POST', '/api/auth/mfa/backup/generate', headers)).json() as { codes: string[] };
    const [first = '', second = ''] = codes;

    const viaTicket = await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code: first.toLowerCase() });
    expect(viaTicket.statusCode).toBe(200);

    const ticket = await getTicket(user);
    const reused = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { backupCode: first });
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toEqual({ error: 'invalid_code', message: 'Verification failed. Please try again.' });
    const viaVerify = await request('POST', '/api/auth/mfa/verify', bearer(ticket), { backupCode: ` ${second.toLowerCase()} `, rememberDevice: false });
    expect(viaVerify.statusCode).toBe(200);
    expect(viaVerify.json()).toMatchObject({ user: { id: user.id }, sessionToken: expect.any(String) });

    expect((await getStatus(bearer(viaVerify.json().sessionToken))).json()).toMatchObject({ backupCodesRemaining: 8 });
  });

  it('makes the earlier unused codes stop working when new ones are generated', async () => {
    const { user, headers } = await createSignerWithTotp();
    const old = (await request('POST', '/api/auth/mfa/backup/generate', headers)).json().codes as string[];
    const fresh = (await request('POST', '/api/auth/mfa/backup/generate', headers)).json().codes as string[];
    const refused = await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code: old[0] });
    expect(refused.statusCode).toBe(401);
    const accepted = await request('POST', '/api/auth/2fa/verify', {}, { ticket: await getTicket(user), code: fresh[0] });
    expect(accepted.statusCode).toBe(200);
  });

  it('refuses to generate codes before a second factor is set up', async () => {
    const res = await request('POST', '/api/auth/mfa/backup/generate', await t.signInAs(await t.createUser()));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'Set up an authenticator app or email codes before creating backup codes.' });
  });
});

describe('email codes', () => {
  it('mails a 6-digit code that finishes the sign-in once and enables email codes', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = await getTicket(user);
    const before = smtp.messages.length;
    const sent = await requestEmailCode(bearer(ticket));
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toEqual({ maskedEmail: expect.stringMatching(/^u\*+@e\*+\.test$/), cooldownSeconds: 120 });
    const code = await readMailedCode(user.email, before);

    const [row] = await t.db.select().from(mfaEmailCodes).where(eq(mfaEmailCodes.userId, user.id));
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row?.expiresAt.getTime()).toBeGreaterThan(Date.now() + 9 * 60_000);
    expect(row?.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60_000);

    const wrong = await request('POST', '/api/auth/mfa/email/verify', bearer(ticket), { code: wrongCode(null, [code]) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'invalid_code', message: 'Invalid or expired code. Please try again.' });

    const res = await request('POST', '/api/auth/mfa/email/verify', bearer(ticket), { code, rememberDevice: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { id: user.id }, sessionToken: expect.any(String), mfa_required: false });
    expect((await getStatus(bearer(res.json().sessionToken))).json()).toMatchObject({ enrolled: true, totpEnabled: false });

    const again = await logIn(user);
    expect(again.json()).toMatchObject({ mfa_required: true, enrolled: true });
    const reused = await request('POST', '/api/auth/mfa/email/verify', bearer(again.json().ticket), { code });
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toMatchObject({ error: 'invalid_code' });
  });

  it('lets a signer turn on email codes from a full session; the next sign-in then asks for a code', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(user);
    const before = smtp.messages.length;
    expect((await requestEmailCode(headers)).statusCode).toBe(200);
    const code = await readMailedCode(user.email, before);
    expect((await request('POST', '/api/auth/mfa/email/verify', headers, { code })).statusCode).toBe(200);
    const login = await logIn(user);
    expect(login.json()).toEqual({
      user: null,
      sessionToken: null,
      mfa_required: true,
      enrolled: true,
      twofaRequired: false,
      ticket: expect.any(String),
      nextAction: null,
    });
  });

  it('honours the 120-second cooldown with code_already_sent and the seconds left', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    const first = smtp.messages.length;
    expect((await requestEmailCode(ticket)).statusCode).toBe(200);
    await readMailedCode(user.email, first);
    const refused = await requestEmailCode(ticket);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(body).toMatchObject({
      error: 'code_already_sent',
      message: expect.stringMatching(/^A code was already sent\. Please wait \d+ seconds before requesting another\.$/),
    });
    const seconds = Number(/wait (\d+) seconds/.exec(body.message)?.[1]);
    expect(seconds).toBeGreaterThan(110);
    expect(seconds).toBeLessThanOrEqual(120);
    expect(refused.headers['retry-after']).toBe(String(seconds));
    expect(await t.db.select().from(mfaEmailCodes).where(eq(mfaEmailCodes.userId, user.id))).toHaveLength(1);

    await moveEmailCodesBack(user.id, 100);
    const stillWaiting = await requestEmailCode(ticket);
    expect(stillWaiting.statusCode).toBe(429);
    expect(Number(/wait (\d+) seconds/.exec(stillWaiting.json().message)?.[1])).toBeLessThanOrEqual(20);

    await moveEmailCodesBack(user.id, 21);
    const before = smtp.messages.length;
    expect((await requestEmailCode(ticket)).statusCode).toBe(200);
    await readMailedCode(user.email, before);
    expect(smtp.messages.filter((m) => m.to === user.email)).toHaveLength(2);
  });

  it('sends one code when two requests race, and answers the other with code_already_sent', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    const results = await Promise.all([requestEmailCode(ticket), requestEmailCode(ticket), requestEmailCode(ticket)]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 429, 429]);
    expect(results.filter((res) => res.statusCode === 429).map((res) => res.json().error)).toEqual(['code_already_sent', 'code_already_sent']);
    expect(await t.db.select().from(mfaEmailCodes).where(eq(mfaEmailCodes.userId, user.id))).toHaveLength(1);
  });

  it('refuses an expired code', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    const before = smtp.messages.length;
    await requestEmailCode(ticket);
    const code = await readMailedCode(user.email, before);
    await t.db
      .update(mfaEmailCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(mfaEmailCodes.userId, user.id));
    const res = await request('POST', '/api/auth/mfa/email/verify', ticket, { code });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid_code', message: 'Invalid or expired code. Please try again.' });
  });

  it('makes an earlier code useless once a new one is sent', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    let before = smtp.messages.length;
    await requestEmailCode(ticket);
    const first = await readMailedCode(user.email, before);
    await moveEmailCodesBack(user.id, 121);
    before = smtp.messages.length;
    await requestEmailCode(ticket);
    const second = await readMailedCode(user.email, before);
    if (first !== second) expect((await request('POST', '/api/auth/mfa/email/verify', ticket, { code: first })).statusCode).toBe(401);
    expect((await request('POST', '/api/auth/mfa/email/verify', ticket, { code: second })).statusCode).toBe(200);
  });

  it('locks a code after five wrong tries with code_locked; the right code then fails', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    const before = smtp.messages.length;
    await requestEmailCode(ticket);
    const code = await readMailedCode(user.email, before);
    const wrong = wrongCode(null, [code]);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await request('POST', '/api/auth/mfa/email/verify', ticket, { code: wrong })).json().error).toBe('invalid_code');
    }
    const locked = await request('POST', '/api/auth/mfa/email/verify', ticket, { code: wrong });
    expect(locked.statusCode).toBe(401);
    expect(locked.json()).toEqual({ error: 'code_locked', message: 'Too many wrong codes. Request a new code.' });
    const late = await request('POST', '/api/auth/mfa/email/verify', ticket, { code });
    expect(late.statusCode).toBe(401);
    expect(late.json()).toMatchObject({ error: 'invalid_code' });
  });

  it('counts every wrong try even when they arrive all at once', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    const before = smtp.messages.length;
    await requestEmailCode(ticket);
    const code = await readMailedCode(user.email, before);
    const wrong = ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777', '888888', '999999'].filter((guess) => guess !== code);
    const answers = await Promise.all(wrong.map((guess) => request('POST', '/api/auth/mfa/email/verify', ticket, { code: guess })));
    expect(answers.every((res) => res.statusCode === 401)).toBe(true);
    expect(answers.filter((res) => res.json().error === 'code_locked')).toHaveLength(1);
    // The right code, afterwards, is refused: the locked code is gone (401), or, when the wrong tries also
    // filled the account's sign-in limit first (wrong codes count toward it; timing decides which on
    // a server running them in parallel), because the account is locked (429). Never accepted.
    const late = await request('POST', '/api/auth/mfa/email/verify', ticket, { code });
    expect([401, 429]).toContain(late.statusCode);
    expect(late.json().sessionToken).toBeUndefined();
  });

  it('caps email codes per hour with a clear error, whatever the cooldown', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const ticket = bearer(await getTicket(user));
    for (let sent = 1; sent <= 3; sent += 1) {
      expect((await requestEmailCode(ticket)).statusCode).toBe(200);
      await moveEmailCodesBack(user.id, 121);
    }
    const capped = await requestEmailCode(ticket);
    expect(capped.statusCode).toBe(429);
    expect(capped.json()).toMatchObject({ error: 'rate_limited', message: 'Too many email codes requested. Please wait 60 minutes and try again.' });
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(3500);
  });

  it.each([
    ['five digits', { code: '12345' }, 'Please enter a valid 6-digit code.'],
    ['letters', { code: '12ab56' }, 'Please enter a valid 6-digit code.'],
    ['a number', { code: 123456 }, undefined],
    ['no code', {}, undefined],
    ['a rememberDevice that is not a boolean', { code: '123456', rememberDevice: 1 }, undefined],
  ])('refuses an email code with %s', async (_label, payload, message) => {
    const ticket = bearer(await getTicket(await t.createUser({ roles: ['notary'] })));
    const res = await request('POST', '/api/auth/mfa/email/verify', ticket, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: message ?? expect.any(String) });
  });
});
