import { and, desc, eq, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, emailSignInCodes, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

/** What an outsider tries against the emailed sign-in code of Notarize Now (decision 051). */
let t: TestApp;
let addressCounter = 0;
let emailCounter = 0;

beforeAll(async () => {
  t = await createTestApp({
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '4',
    EMAIL_CODES_PER_USER_PER_HOUR: '2',
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '8',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '7',
  });
});
afterAll(async () => t?.close());

function freshAddress(): string {
  addressCounter += 1;
  return `10.2.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function newEmail(): string {
  emailCounter += 1;
  return `outsider${emailCounter}-${Date.now().toString(36)}@example.test`;
}

function post(url: string, payload: unknown, remoteAddress = freshAddress(), extra: Partial<InjectOptions> = {}) {
  return t.app.inject({ method: 'POST', url, payload: payload as InjectOptions['payload'], remoteAddress, ...extra });
}
const start = (payload: unknown, remoteAddress?: string) => post('/api/auth/email-code/start', payload, remoteAddress);
const verify = (payload: unknown, remoteAddress?: string) => post('/api/auth/email-code/verify', payload, remoteAddress);

async function readMailedCode(email: string): Promise<string> {
  const [mail] = await t.db
    .select({ subject: emailOutbox.subject })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'email_sign_in_code')))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  const code = /\b(\d{6})\b/.exec(mail?.subject ?? '')?.[1];
  if (!code) throw new Error(`no sign-in code mailed to ${email}`);
  return code;
}

describe('bad input to the email-code calls', () => {
  it.each([
    ['a NUL in the email', '/api/auth/email-code/start', { email: 'a\u0000b@example.test' }],
    ['a NUL in the name', '/api/auth/email-code/start', { email: 'nul@example.test', name: 'Ada\u0000Lovelace' }],
    ['a NUL in the code', '/api/auth/email-code/verify', { email: 'nul@example.test', code: '12\u00003456' }],
    ['a line break in the name', '/api/auth/email-code/start', { email: 'crlf@example.test', name: 'Ada\r\nBcc: x@example.test' }],
    ['a name of 10,000 characters', '/api/auth/email-code/start', { email: 'long@example.test', name: 'A'.repeat(10_000) }],
    ['an email of 100,000 characters', '/api/auth/email-code/start', { email: `${'a'.repeat(100_000)}@example.test` }],
    ['an email that is not one', '/api/auth/email-code/start', { email: 'not an email' }],
    ['no email', '/api/auth/email-code/start', {}],
    ['an empty name', '/api/auth/email-code/start', { email: 'empty@example.test', name: '' }],
    ['a five-digit code', '/api/auth/email-code/verify', { email: 'five@example.test', code: '12345' }],
    ['a code of letters', '/api/auth/email-code/verify', { email: 'letters@example.test', code: 'abcdef' }],
    ['a code given as a number', '/api/auth/email-code/verify', { email: 'number@example.test', code: 123456 }],
    ['a code of 100,000 digits', '/api/auth/email-code/verify', { email: 'digits@example.test', code: '1'.repeat(100_000) }],
  ])('answers %s with 400 and a sentence, never a 500', async (_label, url, payload) => {
    const res = await post(url, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.stringMatching(/^[A-Z].*[.!]$/) });
  });

  it.each([
    ['a field the call does not take', '/api/auth/email-code/start', { email: 'extra@example.test', roles: ['admin'] }],
    ['a body that is an array', '/api/auth/email-code/verify', [{ email: 'array@example.test', code: '123456' }]],
  ])('answers %s with 400 and the validator’s words (the app-wide answer to a malformed body)', async (_label, url, payload) => {
    const res = await post(url, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.stringMatching(/\S/) });
  });

  it('says the SPEC sentence for a code that is not six digits', async () => {
    const res = await verify({ email: 'five@example.test', code: '12345' });
    expect(res.json().message).toBe('Please enter a valid 6-digit code.');
  });
});

describe('limits on the email-code calls', () => {
  it('caps the codes asked for from one network in an hour', async () => {
    const network = freshAddress();
    for (let call = 1; call <= 4; call += 1) expect((await start({ email: newEmail(), name: 'Net Worker' }, network)).statusCode).toBe(200);
    const capped = await start({ email: newEmail(), name: 'Net Worker' }, network);
    expect(capped.statusCode).toBe(429);
    expect(capped.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many sign-in codes requested from this network\. Please wait \d+ minutes and try again\.$/),
    });
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(3000);
    // Asking whether an address is new counts too: the limit is on looking, not only on mailing.
    const probe = await start({ email: newEmail() }, network);
    expect(probe.statusCode).toBe(429);
  });

  it('caps the codes mailed to one address in an hour, whatever the network', async () => {
    const email = newEmail();
    for (let sent = 1; sent <= 2; sent += 1) {
      expect((await start({ email, name: 'Mo Mailbox' })).statusCode).toBe(200);
      await t.db
        .update(emailSignInCodes)
        .set({ createdAt: sql`${emailSignInCodes.createdAt} - make_interval(secs => 31)` })
        .where(eq(emailSignInCodes.email, email));
    }
    const capped = await start({ email, name: 'Mo Mailbox' });
    expect(capped.statusCode).toBe(429);
    expect(capped.json()).toMatchObject({ error: 'rate_limited', message: 'Too many codes requested for this address. Please wait 60 minutes and try again.' });
  });

  it('counts code checks from one network with the sign-in attempts', async () => {
    const network = freshAddress();
    for (let call = 1; call <= 8; call += 1) expect((await verify({ email: newEmail(), code: '123456' }, network)).statusCode).toBe(400);
    const capped = await verify({ email: newEmail(), code: '123456' }, network);
    expect(capped.statusCode).toBe(429);
    expect(capped.json().message).toMatch(/^Too many sign-in attempts from this network\./);
  });

  it('locks the address after its failed sign-in limit, across fresh codes: the right code is then refused', async () => {
    const email = newEmail();
    let code = '';
    for (let round = 0; round < 2; round += 1) {
      await t.db.delete(emailSignInCodes).where(eq(emailSignInCodes.email, email));
      await start({ email, name: 'Gus Guesser' });
      code = await readMailedCode(email);
      const wrong = code === '000000' ? '111111' : '000000';
      for (let guess = 0; guess < 4 && round * 4 + guess < 7; guess += 1) await verify({ email, code: wrong });
    }
    const res = await verify({ email, code });
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many failed sign-in attempts for this account\./);
    expect(await t.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });
});

describe('what a code can and cannot open', () => {
  it('does not open another address with a code mailed to mine', async () => {
    const mine = newEmail();
    const theirs = await t.createUser({ roles: ['signer'] });
    await start({ email: mine, name: 'Mal Lory' });
    await start({ email: theirs.email });
    const myCode = await readMailedCode(mine);
    const theirCode = await readMailedCode(theirs.email);
    if (myCode === theirCode) return; // one in a million: the codes happen to match, nothing to tell apart
    const res = await verify({ email: theirs.email, code: myCode });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('email_code_invalid');
  });

  it('lets one of two requests with the same right code in, never both', async () => {
    const email = newEmail();
    await start({ email, name: 'Twin Tab' });
    const code = await readMailedCode(email);
    const answers = await Promise.all([verify({ email, code }), verify({ email, code })]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 400]);
    expect(await t.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
  });

  it('counts every wrong try sent at once: the code dies after five', async () => {
    const email = newEmail();
    await start({ email, name: 'Flo Flood' });
    const code = await readMailedCode(email);
    const guesses = ['000000', '111111', '222222', '333333', '444444', '555555'].filter((guess) => guess !== code).slice(0, 5);
    const answers = await Promise.all(guesses.map((guess) => verify({ email, code: guess })));
    expect(answers.every((res) => res.statusCode === 400)).toBe(true);
    const [row] = await t.db.select().from(emailSignInCodes).where(eq(emailSignInCodes.email, email));
    expect(row?.attempts).toBe(5);
    expect(row?.usedAt).not.toBeNull();
    expect((await verify({ email, code })).json().message).toBe('This code has expired or was already used. Ask for a new code.');
  });

  it('never logs the code or stores it readable', async () => {
    const email = newEmail();
    await start({ email, name: 'Sid Secret' });
    const code = await readMailedCode(email);
    const rows = await t.db.select().from(emailSignInCodes).where(eq(emailSignInCodes.email, email));
    expect(JSON.stringify(rows)).not.toContain(code);
  });
});
