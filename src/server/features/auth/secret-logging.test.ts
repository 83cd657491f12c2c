import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordResetTokens } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';

interface ReadMail {
  to: string;
  subject: string;
  text: string;
}

/** One app logging everything (trace) into memory, and how a test reads the mail it sent. */
interface Mode {
  app: TestApp;
  logLines: string[];
  waitForMail(predicate: (mail: ReadMail) => boolean): Promise<ReadMail>;
}

let smtp: SmtpCatcher;
let overSmtp: Mode;
let toMailbox: Mode;

async function createMode(env: Record<string, string>): Promise<Omit<Mode, 'waitForMail'>> {
  const logLines: string[] = [];
  const app = await createTestApp(
    { MFA_REQUIRED_ROLES: 'notary', LOG_LEVEL: 'trace', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '1000', ...env },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
  return { app, logLines };
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  const smtpMode = await createMode({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '50' });
  overSmtp = { ...smtpMode, waitForMail: (predicate) => smtp.waitForMail(predicate) };
  const mailboxMode = await createMode({ EMAIL_POLL_MS: '60000' });
  // Without SMTP_URL an administrator reads the mail at /admin/mail, as a person running it locally would.
  const reader = await mailboxMode.app.createUser({ roles: ['admin'] });
  toMailbox = {
    ...mailboxMode,
    async waitForMail(predicate) {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        await mailboxMode.app.app.emailDelivery.runOnce();
        const res = await mailboxMode.app.app.inject({ method: 'GET', url: '/api/admin/mail?pageSize=100', headers: await mailboxMode.app.signInAs(reader) });
        const found = (res.json().items as ReadMail[]).find(predicate);
        if (found) return found;
      }
      throw new Error('no such mail in the local mailbox');
    },
  };
});
afterAll(async () => {
  await Promise.all([overSmtp?.app.close(), toMailbox?.app.close()]);
  await smtp?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const linkIn = (text: string) => new URL(/https?:\/\/\S+/.exec(text)?.[0] ?? 'http://invalid/');

/** Runs sign-in, second factors, a password reset, a job invitation and an address confirmation; returns every secret it saw. */
async function exerciseSecrets({ app: t, waitForMail }: Mode): Promise<string[]> {
  const call = (method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: unknown) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
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
  const linked = await call('POST', '/api/auth/mfa/totp/setup/verify', bearer(ticket), { token: keep(totp.generate()) });
  expect(linked.statusCode).toBe(200);
  keep(linked.json().completedSignIn.sessionToken as string);
  keep(linked.cookies.find((cookie) => cookie.name === 'ron_device')?.value ?? '');
  const again = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  const verified = await call('POST', '/api/auth/mfa/verify', bearer(again), {
    token: keep(totp.generate({ timestamp: Date.now() + 30_000 })),
    rememberDevice: false,
  });
  expect(verified.statusCode).toBe(200);
  const session = keep(verified.json().sessionToken as string);
  const codes = (await call('POST', '/api/auth/mfa/backup/generate', bearer(session))).json().codes as string[];
  codes.forEach(keep);

  // An emailed code, and a backup code through the login page's ticket step.
  const second = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  expect((await call('POST', '/api/auth/mfa/email/request', bearer(second))).statusCode).toBe(200);
  const codeMail = await waitForMail((m) => m.to === user.email && /sign-in code/.test(m.subject));
  const emailCode = keep(/\b(\d{6})\b/.exec(codeMail.text)?.[1] ?? '');
  expect((await call('POST', '/api/auth/mfa/email/verify', bearer(second), { code: emailCode })).statusCode).toBe(200);
  const third = keep((await call('POST', '/api/auth/login', {}, { email: user.email, password: user.password })).json().ticket as string);
  expect((await call('POST', '/api/auth/2fa/verify', {}, { ticket: third, code: codes[0] })).statusCode).toBe(200);

  // A password reset link, checked and used; wrong tokens too.
  await call('POST', '/api/auth/forgot-password', {}, { email: user.email });
  const resetMail = await waitForMail((m) => m.to === user.email && /Reset your/.test(m.subject));
  const resetToken = keep(linkIn(resetMail.text).searchParams.get('resetToken') ?? '');
  expect((await call('GET', `/api/auth/reset-password/validate?token=${resetToken}`)).statusCode).toBe(200);
  expect((await call('POST', '/api/auth/reset-password', {}, { token: resetToken, newPassword: keep('the reset password 42') })).statusCode).toBe(200);
  await call('GET', `/api/auth/reset-password/validate?token=${keep('W'.repeat(43))}`);
  await call('POST', '/api/auth/2fa/verify', {}, { ticket: keep('T'.repeat(43)), code: '123456' });
  await call('GET', '/api/auth/me', { cookie: `ron_session=${keep('S'.repeat(43))}` });

  // A job invitation: looked at, refused once (a short password), then claimed. The token sits in the path.
  const agent = await t.createUser({ roles: ['title_agent'] });
  const invitee = `invitee-${user.id.slice(0, 8)}@example.test`;
  const job = await call('POST', '/api/jobs', await t.signInAs(agent), {
    title: 'Deed of trust',
    notarizationType: 'acknowledgment',
    signers: [{ name: 'Ivy Invitee', email: invitee }],
  });
  expect(job.statusCode, job.body).toBe(201);
  const inviteMail = await waitForMail((m) => m.to === invitee && /invited/.test(m.subject));
  const inviteToken = keep(linkIn(inviteMail.text).pathname.split('/claim/')[1] ?? '');
  expect((await call('GET', `/api/invites/${inviteToken}`)).statusCode).toBe(200);
  expect((await call('POST', `/api/invites/${inviteToken}/claim`, {}, { name: 'Ivy Invitee', email: invitee, password: 'short' })).statusCode).toBe(400);
  const claimed = await call('POST', `/api/invites/${inviteToken}/claim`, {}, { name: 'Ivy Invitee', email: invitee, password: keep('invitee password 42') });
  expect(claimed.statusCode, claimed.body).toBe(201);
  keep(claimed.json().sessionToken as string);
  expect((await call('GET', `/api/invites/${inviteToken}`)).statusCode).toBe(404);

  // A self-registered account confirms its address with the emailed link.
  const newcomer = `newcomer-${user.id.slice(0, 8)}@example.test`;
  const registered = await call('POST', '/api/auth/register/user', {}, { name: 'Nia Newcomer', email: newcomer, password: keep('newcomer password 42') });
  expect(registered.statusCode).toBe(201);
  keep(registered.json().sessionToken as string);
  const confirmMail = await waitForMail((m) => m.to === newcomer && /Confirm your email/.test(m.subject));
  const confirmToken = keep(linkIn(confirmMail.text).pathname.split('/verify-email/')[1] ?? '');
  expect((await call('GET', `/verify-email/${confirmToken}`)).statusCode).toBe(503);
  expect((await call('POST', '/api/auth/verify-email', {}, { token: confirmToken })).statusCode).toBe(200);
  expect((await call('POST', '/api/auth/verify-email', {}, { token: confirmToken })).statusCode).toBe(400);
  await t.app.emailDelivery.runOnce();

  const [tokenRow] = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
  expect(JSON.stringify(tokenRow)).not.toContain(resetToken);
  return secrets.filter(Boolean);
}

function findLeaks(secrets: string[], log: string): string[] {
  return secrets.filter((value) => new RegExp(`(?<![0-9A-Za-z])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`).test(log));
}

describe('secrets and the log', () => {
  it('never writes passwords, tokens, tickets, TOTP secrets, codes, reset, invitation or confirmation links to the log when mail goes over SMTP', async () => {
    const secrets = await exerciseSecrets(overSmtp);
    const log = overSmtp.logLines.join('');
    expect(overSmtp.logLines.length).toBeGreaterThan(20);
    expect(findLeaks(secrets, log)).toEqual([]);
    // Request lines keep the path and the names of query parameters, not their values.
    expect(log).toContain('/api/auth/reset-password/validate?token=[redacted]');
    expect(log).toContain('/api/invites/[redacted]/claim');
  });

  it('never writes them to the log without SMTP_URL either: the log only says mail is waiting at /admin/mail', async () => {
    const secrets = await exerciseSecrets(toMailbox);
    const log = toMailbox.logLines.join('');
    expect(findLeaks(secrets, log)).toEqual([]);
    expect(log).toContain('is waiting in the local mailbox at /admin/mail');
    expect(log).not.toMatch(/sign-in code|Reset your|You are invited/);
  });
});
