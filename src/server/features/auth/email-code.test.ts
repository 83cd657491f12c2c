import { and, desc, eq, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, emailOutbox, emailSignInCodes, mfaFactors, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

/** Notarize Now's way in (decision 051): a code mailed to the address signs in or creates a signer account. */
let t: TestApp;
let addressCounter = 0;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' });
});
afterAll(async () => t?.close());
afterEach(() => {
  vi.useRealTimers();
});

function freshAddress(): string {
  addressCounter += 1;
  return `10.1.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

let emailCounter = 0;
function newEmail(): string {
  emailCounter += 1;
  return `newcomer${emailCounter}-${Date.now().toString(36)}@example.test`;
}

function post(url: string, payload: unknown, extra: Partial<InjectOptions> = {}) {
  return t.app.inject({ method: 'POST', url, payload: payload as InjectOptions['payload'], remoteAddress: freshAddress(), ...extra });
}

const start = (payload: unknown) => post('/api/auth/email-code/start', payload);
const verify = (payload: unknown) => post('/api/auth/email-code/verify', payload);

/** The newest sign-in code mailed to the address, read from the outbox (the subject names it). */
async function readMailedCode(email: string): Promise<{ code: string; text: string; subject: string }> {
  const [mail] = await t.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'email_sign_in_code')))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  const code = mail ? /\b(\d{6})\b/.exec(mail.subject)?.[1] : undefined;
  if (!mail || !code) throw new Error(`no sign-in code mailed to ${email}`);
  return { code, text: mail.textBody, subject: mail.subject };
}

async function countMails(email: string): Promise<number> {
  const rows = await t.db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'email_sign_in_code')));
  return rows.length;
}

/** Makes the codes of an address older, so the 30 s cooldown has passed. */
async function ageCodes(email: string, seconds: number) {
  await t.db
    .update(emailSignInCodes)
    .set({ createdAt: sql`${emailSignInCodes.createdAt} - make_interval(secs => ${seconds})` })
    .where(eq(emailSignInCodes.email, email));
}

function otherThan(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

describe('POST /api/auth/email-code/start', () => {
  it('asks a new address for a name before it mails anything', async () => {
    const email = newEmail();
    const res = await start({ email });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      isNewAccount: true,
      isCodeSent: false,
      message: 'There is no account for this address yet. Enter your full name to create one, and we will email you a code.',
    });
    expect(await countMails(email)).toBe(0);
    expect(await t.db.select().from(emailSignInCodes).where(eq(emailSignInCodes.email, email))).toHaveLength(0);
  });

  it('mails a new address a 6-digit code, keeping only its hash, for 10 minutes', async () => {
    const email = newEmail();
    const before = Date.now();
    const res = await start({ email: `  ${email.toUpperCase()} `, name: 'Ada Newcomer' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ isNewAccount: true, isCodeSent: true, message: `We emailed a 6-digit code to ${email}. It works for 10 minutes.` });
    const { code, text, subject } = await readMailedCode(email);
    expect(subject).toBe(`Your Open RON code: ${code}`);
    expect(text).toContain('Hello Ada Newcomer,');
    expect(text).toContain('To create your Open RON account and continue to Notarize Now');
    const [row] = await t.db.select().from(emailSignInCodes).where(eq(emailSignInCodes.email, email));
    expect(row?.name).toBe('Ada Newcomer');
    expect(row?.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.codeHash).not.toContain(code);
    const lifetime = (row?.expiresAt.getTime() ?? 0) - before;
    expect(lifetime).toBeGreaterThan(9.9 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(10 * 60_000 + 1000);
  });

  it('answers an address with an account in the same words, mailing a sign-in code', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const res = await start({ email: user.email });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ isNewAccount: false, isCodeSent: true, message: `We emailed a 6-digit code to ${user.email}. It works for 10 minutes.` });
    const { text } = await readMailedCode(user.email);
    expect(text).toContain(`Hello ${user.name},`);
    expect(text).toContain('To sign in and continue to Notarize Now');
  });

  it('refuses a second code within 30 s with the wait in seconds, and mails one after', async () => {
    const email = newEmail();
    expect((await start({ email, name: 'Cora Cooldown' })).statusCode).toBe(200);
    const again = await start({ email, name: 'Cora Cooldown' });
    expect(again.statusCode).toBe(429);
    expect(again.json()).toMatchObject({
      error: 'code_already_sent',
      message: expect.stringMatching(/^A code was already sent\. Please wait \d+ seconds before requesting another\.$/),
    });
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(25);
    expect(await countMails(email)).toBe(1);
    await ageCodes(email, 31);
    expect((await start({ email, name: 'Cora Cooldown' })).statusCode).toBe(200);
    expect(await countMails(email)).toBe(2);
  });
});

describe('POST /api/auth/email-code/verify', () => {
  it('creates a signer account for a new address, its email confirmed and no password, signed in as login signs in', async () => {
    const email = newEmail();
    await start({ email, name: 'Ada Newcomer' });
    const { code } = await readMailedCode(email);
    const res = await verify({ email, code });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['enrolled', 'mfa_required', 'nextAction', 'sessionToken', 'ticket', 'twofaRequired', 'user']);
    expect(body).toMatchObject({
      user: { name: 'Ada Newcomer', email, roles: ['signer'], role: 'signer', status: 'active', emailVerified: true },
      mfa_required: false,
      twofaRequired: false,
      ticket: null,
    });
    expect(res.cookies.find((cookie) => cookie.name === 'ron_session')?.value).toBe(body.sessionToken);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${body.sessionToken as string}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(email);
    const [account] = await t.db.select().from(users).where(eq(users.email, email));
    expect(account).toMatchObject({ passwordHash: null, roles: ['signer'], emailVerifiedVia: 'email_code' });
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'user.created_with_email_code'))
      .orderBy(desc(auditEvents.sequence))
      .limit(1);
    expect(event?.actorId).toBe(account?.id);
    expect(describeAuditEvent({ action: 'user.created_with_email_code', actorName: 'Ada Newcomer', data: event?.data as Record<string, unknown> })).toBe(
      `Ada Newcomer (${email}) created a signer account on the way into Notarize Now, proving the address with a code emailed to it; the account has no password.`,
    );
  });

  it('signs in a signer account with a password and confirms its address', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    await start({ email: user.email });
    const { code } = await readMailedCode(user.email);
    const res = await verify({ email: user.email, code });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { id: user.id, emailVerified: true }, mfa_required: false });
    const [event] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'user.email_verified')).orderBy(desc(auditEvents.sequence)).limit(1);
    expect(describeAuditEvent({ action: 'user.email_verified', actorName: null, data: event?.data as Record<string, unknown> })).toBe(
      `The email address of ${user.name} was confirmed with an emailed sign-in code.`,
    );
    // The password still works: the code added nothing and took nothing away.
    expect((await post('/api/auth/login', { email: user.email, password: user.password })).statusCode).toBe(200);
  });

  it('signs in a witness account', async () => {
    const user = await t.createUser({ roles: ['witness'] });
    await start({ email: user.email });
    const res = await verify({ email: user.email, code: (await readMailedCode(user.email)).code });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.roles).toEqual(['witness']);
  });

  it.each([[['notary']], [['admin']], [['signer', 'title']], [['title_agent']], [['billing']], [['observer']]] as const)(
    'sends an account with roles %j to its password with 409 password_sign_in_required',
    async (roles) => {
      const user = await t.createUser({ roles: [...roles] });
      await start({ email: user.email });
      const res = await verify({ email: user.email, code: (await readMailedCode(user.email)).code });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'password_sign_in_required',
        message:
          'Sign in with your password: this account is protected by more than an emailed code. If you have no password yet, use Forgot password on the sign-in page.',
      });
      expect(res.cookies.find((cookie) => cookie.name === 'ron_session')).toBeUndefined();
    },
  );

  it('sends a signer with a second factor to the password and that factor', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    await t.db.insert(mfaFactors).values({ userId: user.id, emailEnabledAt: new Date() });
    await start({ email: user.email });
    const res = await verify({ email: user.email, code: (await readMailedCode(user.email)).code });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('password_sign_in_required');
  });

  it('refuses a deactivated account as sign-in does, after the right code', async () => {
    const user = await t.createUser({ roles: ['signer'], status: 'disabled' });
    await start({ email: user.email });
    const res = await verify({ email: user.email, code: (await readMailedCode(user.email)).code });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'account_disabled', message: 'This account is disabled. Please contact your administrator.' });
  });

  it('refuses a rejected application as sign-in does', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    await t.db.update(users).set({ status: 'rejected' }).where(eq(users.id, user.id));
    await start({ email: user.email });
    const res = await verify({ email: user.email, code: (await readMailedCode(user.email)).code });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'account_rejected', message: expect.stringContaining('Your notary application was not approved') });
  });

  it('says how many tries are left after a wrong code, and ends the code at the fifth', async () => {
    const email = newEmail();
    await start({ email, name: 'Wes Wrong' });
    const { code } = await readMailedCode(email);
    const wrong = otherThan(code);
    for (const triesLeft of [4, 3, 2, 1]) {
      const res = await verify({ email, code: wrong });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'email_code_invalid',
        message: `That code is not right. You have ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left.`,
        detail: { triesLeft },
      });
    }
    const fifth = await verify({ email, code: wrong });
    expect(fifth.json()).toEqual({
      error: 'email_code_invalid',
      message: 'That code is not right, and that was the fifth try: this code no longer works. Ask for a new code.',
      detail: { triesLeft: 0 },
    });
    const late = await verify({ email, code });
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({
      error: 'email_code_invalid',
      message: 'This code has expired or was already used. Ask for a new code.',
      detail: { triesLeft: 0 },
    });
    expect(await t.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it('refuses a code used once already', async () => {
    const email = newEmail();
    await start({ email, name: 'Una Once' });
    const { code } = await readMailedCode(email);
    expect((await verify({ email, code })).statusCode).toBe(200);
    const again = await verify({ email, code });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'email_code_invalid', message: 'This code has expired or was already used. Ask for a new code.' });
  });

  it('ends the older code when a new one is mailed', async () => {
    const email = newEmail();
    await start({ email, name: 'Nell New' });
    const first = (await readMailedCode(email)).code;
    await ageCodes(email, 31);
    await start({ email, name: 'Nell New' });
    const second = (await readMailedCode(email)).code;
    if (first !== second) expect((await verify({ email, code: first })).statusCode).toBe(400);
    expect((await verify({ email, code: second })).statusCode).toBe(200);
  });

  it('takes a code until 10 minutes have passed, and refuses it after', async () => {
    const early = newEmail();
    const late = newEmail();
    await start({ email: early, name: 'Eve Early' });
    await start({ email: late, name: 'Lou Late' });
    const earlyCode = (await readMailedCode(early)).code;
    const lateCode = (await readMailedCode(late)).code;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 9 * 60_000 + 50_000);
    expect((await verify({ email: early, code: earlyCode })).statusCode).toBe(200);
    vi.setSystemTime(Date.now() + 20_000);
    const res = await verify({ email: late, code: lateCode });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'email_code_invalid', message: 'This code has expired or was already used. Ask for a new code.' });
  });

  it('refuses a code when none was asked for', async () => {
    const res = await verify({ email: newEmail(), code: '123456' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'email_code_invalid', message: 'This code has expired or was already used. Ask for a new code.' });
  });
});

describe('email codes when signers must use a second factor', () => {
  it('gives a new account only the step to set one up, as registration does', async () => {
    const strict = await createTestApp({ MFA_REQUIRED_ROLES: 'signer' });
    try {
      const email = newEmail();
      await strict.app.inject({ method: 'POST', url: '/api/auth/email-code/start', payload: { email, name: 'Stu Strict' } });
      const [mail] = await strict.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, email));
      const code = /\b(\d{6})\b/.exec(mail?.subject ?? '')?.[1];
      const res = await strict.app.inject({ method: 'POST', url: '/api/auth/email-code/verify', payload: { email, code } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ user: null, sessionToken: null, mfa_required: true, enrolled: false, ticket: expect.any(String) });
    } finally {
      await strict.close();
    }
  });
});
