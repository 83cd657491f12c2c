import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { passwordResetTokens } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';

/** An app logging everything (trace) into memory, mailing through a real SMTP server. */
let t: TestApp;
let smtp: SmtpCatcher;
const logLines: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp(
    { MFA_REQUIRED_ROLES: 'notary', SMTP_URL: smtp.url, EMAIL_POLL_MS: '50', LOG_LEVEL: 'trace' },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

function call(method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: unknown) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

it('never writes passwords, tokens, tickets, TOTP secrets or codes to the log, even at trace level', async () => {
  const secrets: string[] = [];
  const keep = <T extends string>(value: T): T => {
    secrets.push(value);
    return value;
  };
  const user = await t.createUser({ roles: ['notary'] });
  keep(user.password);

  // Password, ticket, authenticator set-up and second factor.
  const ticket = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  const { secret, otpauth } = (await call('POST', '/api/auth/mfa/totp/setup/start', bearer(ticket))).json();
  keep(secret);
  keep(otpauth);
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  expect((await call('POST', '/api/auth/mfa/totp/setup/verify', bearer(ticket), { token: keep(totp.generate()) })).statusCode).toBe(200);
  const verified = await call('POST', '/api/auth/mfa/verify', bearer(ticket), { token: keep(totp.generate({ timestamp: Date.now() + 30_000 })) });
  expect(verified.statusCode).toBe(200);
  const session = keep(verified.json().sessionToken as string);
  keep(verified.cookies.find((cookie) => cookie.name === 'ron_device')?.value ?? '');
  const codes = (await call('POST', '/api/auth/mfa/backup/generate', bearer(session))).json().codes as string[];
  codes.forEach(keep);

  // An emailed code, and a backup code through the login page's ticket step.
  const second = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  expect((await call('POST', '/api/auth/mfa/email/request', bearer(second))).statusCode).toBe(200);
  const codeMail = await smtp.waitForMail((m) => m.to === user.email && /sign-in code/.test(m.subject));
  const emailCode = keep(/\b(\d{6})\b/.exec(codeMail.text)?.[1] ?? '');
  expect((await call('POST', '/api/auth/mfa/email/verify', bearer(second), { code: emailCode })).statusCode).toBe(200);
  const third = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  expect((await call('POST', '/api/auth/2fa/verify', {}, { ticket: third, code: codes[0] })).statusCode).toBe(200);

  // A password reset link, checked and used; wrong tokens too.
  await call('POST', '/api/auth/forgot-password', {}, { email: user.email });
  const resetMail = await smtp.waitForMail((m) => m.to === user.email && /Reset your/.test(m.subject));
  const resetToken = keep(new URL(/https?:\/\/\S+/.exec(resetMail.text)?.[0] ?? '').searchParams.get('resetToken') ?? '');
  expect((await call('GET', `/api/auth/reset-password/validate?token=${resetToken}`)).statusCode).toBe(200);
  expect((await call('POST', '/api/auth/reset-password', {}, { token: resetToken, newPassword: keep('the reset password 42') })).statusCode).toBe(200);
  await call('GET', `/api/auth/reset-password/validate?token=${keep('W'.repeat(43))}`);
  await call('POST', '/api/auth/2fa/verify', {}, { ticket: keep('T'.repeat(43)), code: '123456' });
  await call('GET', '/api/auth/me', { cookie: `ron_session=${keep('S'.repeat(43))}` });
  await t.app.emailDelivery.runOnce();

  const [tokenRow] = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
  expect(JSON.stringify(tokenRow)).not.toContain(resetToken);

  const log = logLines.join('');
  expect(logLines.length).toBeGreaterThan(20);
  const leaked = secrets.filter((value) => value && new RegExp(`(?<![0-9A-Za-z])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`).test(log));
  expect(leaked).toEqual([]);
  // Request lines keep the path and the names of query parameters, not their values.
  expect(log).toContain('/api/auth/reset-password/validate?token=[redacted]');
});
