import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, emailOutbox, passwordResetTokens } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';

let t: TestApp;
let smtp: SmtpCatcher;
let addressCounter = 0;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '50', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const invalidLink = { error: 'invalid_token', message: 'This reset link is invalid or expired.' };
const newPassword = 'a fresh new password';

/** A network address no other test uses, so the per-address limits start from zero. */
function freshAddress(): string {
  addressCounter += 1;
  return `10.9.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function call(method: InjectOptions['method'], url: string, payload?: unknown, remoteAddress = freshAddress(), headers: Record<string, string> = {}) {
  return t.app.inject({ method, url, remoteAddress, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
}

const forgot = (email: unknown, remoteAddress?: string) => call('POST', '/api/auth/forgot-password', { email }, remoteAddress);
const validate = (token: string, remoteAddress?: string) =>
  call('GET', `/api/auth/reset-password/validate?token=${encodeURIComponent(token)}`, undefined, remoteAddress);
const reset = (payload: unknown, remoteAddress?: string) => call('POST', '/api/auth/reset-password', payload, remoteAddress);
const logIn = (email: string, password: string) => call('POST', '/api/auth/login', { email, password });

/** Asks for a reset link and follows it out of the mail the real SMTP server received. */
async function requestResetLink(user: TestUser): Promise<{ link: URL; token: string }> {
  const before = smtp.messages.length;
  const res = await forgot(user.email);
  expect(res.statusCode).toBe(200);
  const mail = await smtp.waitForMail((m) => m.to === user.email && m.subject === 'Reset your Open RON password' && smtp.messages.indexOf(m) >= before);
  const found = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!found) throw new Error(`no link in ${mail.text}`);
  const link = new URL(found);
  return { link, token: link.searchParams.get('resetToken') ?? '' };
}

describe('POST /api/auth/forgot-password', () => {
  it('mails a link to /login?resetToken= that validates, and the reset lets the user sign in with the new password', async () => {
    const user = await t.createUser();
    const { link, token } = await requestResetLink(user);
    expect(`${link.origin}${link.pathname}`).toBe(`${t.config.publicUrl}/login`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const check = await validate(token);
    expect(check.statusCode).toBe(200);
    expect(check.json()).toEqual({ valid: true });

    const res = await reset({ token, newPassword });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: 'Password updated! You can now log in.' });

    expect((await logIn(user.email, newPassword)).statusCode).toBe(200);
    const old = await logIn(user.email, user.password);
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ error: 'invalid_credentials' });

    const notice = await smtp.waitForMail((m) => m.to === user.email && m.subject === 'Your Open RON password was changed');
    expect(notice.text).toContain('signed out');
    expect(notice.text).not.toContain(token);

    const events = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'user.password_reset'));
    const event = events.find((row) => (row.data as { userId?: string }).userId === user.id);
    expect(event?.data).toEqual({ userId: user.id, userName: user.name });
    expect(
      describeAuditEvent({ action: 'user.password_reset', actorName: null, actorId: event?.actorId ?? null, data: event?.data as Record<string, unknown> }),
    ).toBe(`The password of ${user.name} was reset with an emailed link.`);
  });

  it('answers the same whether or not the account exists, and mails only a real account', async () => {
    const user = await t.createUser();
    const known = await forgot(user.email);
    const unknown = await forgot('nobody-here@example.test');
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    expect(known.json()).toEqual({ ok: true, message: 'If an account exists for that email, a reset link is on its way.' });
    expect(await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, 'nobody-here@example.test'))).toEqual([]);
    await smtp.waitForMail((m) => m.to === user.email);
  });

  it('finds the account whatever the case of the email and the spaces around it', async () => {
    const user = await t.createUser();
    expect((await forgot(`  ${user.email.toUpperCase()} `)).statusCode).toBe(200);
    await smtp.waitForMail((m) => m.to === user.email && m.subject === 'Reset your Open RON password');
  });

  it('sends no link to a disabled account, with the same answer', async () => {
    const user = await t.createUser({ status: 'disabled' });
    const res = await forgot(user.email);
    expect(res.json()).toEqual({ ok: true, message: 'If an account exists for that email, a reset link is on its way.' });
    expect(await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, user.email))).toEqual([]);
  });

  it('limits requests per email, for unknown accounts too, with the wait in the message', async () => {
    for (const email of [(await t.createUser()).email, 'ghost-limit@example.test']) {
      for (let request = 1; request <= 3; request += 1) expect((await forgot(email)).statusCode).toBe(200);
      const refused = await forgot(email);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({
        error: 'rate_limited',
        message: expect.stringMatching(/^Too many password reset requests for this email\. Please wait \d+ minutes and try again\.$/),
        detail: { retryAfterSeconds: expect.any(Number) },
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    }
  });

  it('limits requests per network address', async () => {
    const address = freshAddress();
    for (let request = 1; request <= 10; request += 1) expect((await forgot(`someone-${request}@example.test`, address)).statusCode).toBe(200);
    const refused = await forgot('someone-11@example.test', address);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/^Too many password reset requests from this network\. Please wait \d+ minutes and try again\.$/);
    expect((await forgot('someone-11@example.test')).statusCode).toBe(200);
  });

  it.each([
    ['no email', {}, undefined],
    ['an empty email', { email: '' }, 'Please enter your email first.'],
    ['a blank email', { email: '   ' }, 'Please enter your email first.'],
    ['an email that is not a string', { email: 42 }, undefined],
    ['an email over 254 characters', { email: `${'a'.repeat(250)}@example.test` }, undefined],
  ])('refuses %s with a validation error', async (_label, payload, message) => {
    const res = await call('POST', '/api/auth/forgot-password', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: message ?? expect.any(String) });
  });

  it('refuses a request without a body', async () => {
    const res = await call('POST', '/api/auth/forgot-password');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed' });
  });
});

describe('the reset link', () => {
  it('works once: a token used twice is refused', async () => {
    const user = await t.createUser();
    const { token } = await requestResetLink(user);
    expect((await reset({ token, newPassword })).statusCode).toBe(200);
    const second = await reset({ token, newPassword: 'yet another password' });
    expect(second.statusCode).toBe(400);
    expect(second.json()).toEqual(invalidLink);
    const check = await validate(token);
    expect(check.statusCode).toBe(400);
    expect(check.json()).toEqual(invalidLink);
    expect((await logIn(user.email, newPassword)).statusCode).toBe(200);
  });

  it('accepts exactly one of two resets racing with the same link', async () => {
    const user = await t.createUser();
    const { token } = await requestResetLink(user);
    const results = await Promise.all([reset({ token, newPassword }), reset({ token, newPassword: 'the other new password' })]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 400]);
    const winner = results[0]?.statusCode === 200 ? newPassword : 'the other new password';
    expect((await logIn(user.email, winner)).statusCode).toBe(200);
  });

  it('expires after one hour', async () => {
    const user = await t.createUser();
    const { token } = await requestResetLink(user);
    const [row] = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
    expect(row?.expiresAt.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect(row?.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect(row?.tokenHash).not.toBe(token);

    await t.db
      .update(passwordResetTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResetTokens.userId, user.id));
    expect((await validate(token)).json()).toEqual(invalidLink);
    const res = await reset({ token, newPassword });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalidLink);
    expect((await logIn(user.email, user.password)).statusCode).toBe(200);
  });

  it('ends every session of the user', async () => {
    const user = await t.createUser();
    const headers = await t.signInAs(user);
    expect((await call('GET', '/api/auth/me', undefined, undefined, headers)).statusCode).toBe(200);
    const { token } = await requestResetLink(user);
    expect((await reset({ token, newPassword })).statusCode).toBe(200);
    const me = await call('GET', '/api/auth/me', undefined, undefined, headers);
    expect(me.statusCode).toBe(401);
    expect(me.json()).toMatchObject({ error: 'session_expired' });
  });

  it('makes the other links of the user stop working once one is used', async () => {
    const user = await t.createUser();
    const first = await requestResetLink(user);
    const second = await requestResetLink(user);
    expect(first.token).not.toBe(second.token);
    expect((await validate(first.token)).statusCode).toBe(200);
    expect((await reset({ token: second.token, newPassword })).statusCode).toBe(200);
    expect((await reset({ token: first.token, newPassword: 'another password here' })).json()).toEqual(invalidLink);
  });

  it('refuses a new password shorter than 8 characters and leaves the link usable', async () => {
    const user = await t.createUser();
    const { token } = await requestResetLink(user);
    const res = await reset({ token, newPassword: 'short12' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Password must be at least 8 characters.' });
    expect((await validate(token)).statusCode).toBe(200);
    expect((await reset({ token, newPassword: 'exactly8' })).statusCode).toBe(200);
  });

  it.each([
    ['no token', ''],
    ['a short garbage token', 'abc'],
    ['an unknown token of the right shape', 'A'.repeat(43)],
  ])('answers a link with %s as invalid or expired', async (_label, token) => {
    const res = await call('GET', token ? `/api/auth/reset-password/validate?token=${token}` : '/api/auth/reset-password/validate');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalidLink);
  });

  it('refuses a validation token over 200 characters', async () => {
    const res = await validate('x'.repeat(201));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed' });
  });

  it('answers an unknown token on reset as invalid or expired', async () => {
    const res = await reset({ token: 'B'.repeat(43), newPassword });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalidLink);
  });

  it.each([
    ['no fields', {}],
    ['no token', { newPassword }],
    ['an empty token', { token: '', newPassword }],
    ['no new password', { token: 'C'.repeat(43) }],
    ['a new password that is not a string', { token: 'C'.repeat(43), newPassword: 12345678 }],
    ['a token that is not a string', { token: 42, newPassword }],
    ['a new password over 256 characters', { token: 'C'.repeat(43), newPassword: 'p'.repeat(257) }],
  ])('refuses a reset with %s', async (_label, payload) => {
    const res = await reset(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
  });

  it('limits reset link checks per network address', async () => {
    const address = freshAddress();
    for (let check = 1; check <= 60; check += 1) expect((await validate('D'.repeat(43), address)).statusCode).toBe(400);
    const refused = await validate('D'.repeat(43), address);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/^Too many reset link checks from this network\. Please wait \d+ minutes and try again\.$/);
  });
});
