import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AdminUser } from '#shared/admin-users.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import {
  auditEvents,
  emailOutbox,
  jobs,
  notaryProfiles,
  passwordResetTokens,
  sessions,
  titleCompanies,
  titleCompanyMembers,
  trustedDevices,
  users,
} from '#server/db/schema/index.ts';
import { accountScope, appendAuditEvent, verifyAuditScope } from '#server/features/audit/audit.service.ts';
import { userChannel } from '#server/features/jobs/access-change.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

let t: TestApp;
let admin: TestUser;
let adminHeaders: Record<string, string>;
let kit: ReturnType<typeof createJobKit>;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  adminHeaders = await t.signInAs(admin);
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

let addressCounter = 0;
/** A network address of its own per call, so the per-address limits of the password routes start from zero. */
function freshAddress(): string {
  addressCounter += 1;
  return `10.44.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function api(method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = adminHeaders) {
  return t.app.inject({
    method,
    url,
    headers,
    remoteAddress: freshAddress(),
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

const logIn = (email: string, password: string) => api('POST', '/api/auth/login', { email, password }, {});
const me = (headers: Record<string, string>) => api('GET', '/api/auth/me', undefined, headers);

/** The newest email of a kind queued to an address, read from the outbox as a mailbox would. */
async function latestMail(to: string, kind: string) {
  const [mail] = await t.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, to), eq(emailOutbox.kind, kind)))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  if (!mail) throw new Error(`no ${kind} email queued to ${to}`);
  return mail;
}

async function accountEvents(userId: string, action: string) {
  const rows = await t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.scope, accountScope), eq(auditEvents.action, action)));
  return rows.filter((row) => (row.data as { userId?: string }).userId === userId);
}

function sentenceOf(row: { action: string; data: unknown }): string {
  return describeAuditEvent({ action: row.action, actorName: admin.name, actorId: admin.id, data: row.data as Record<string, unknown> });
}

/** Creates people whose names share a word no other test uses, with creation times a minute apart (oldest first). */
async function createPeople(
  word: string,
  specs: Array<{ name: string; email?: string; roles?: TestUser['roles']; status?: 'active' | 'pending' | 'disabled' }>,
) {
  const people: TestUser[] = [];
  for (const [index, spec] of specs.entries()) {
    const person = await t.createUser({
      name: `${spec.name} ${word}`,
      ...(spec.email ? { email: spec.email } : {}),
      ...(spec.roles ? { roles: spec.roles } : {}),
      ...(spec.status ? { status: spec.status } : {}),
    });
    await t.db
      .update(users)
      .set({ createdAt: new Date(Date.UTC(2030, 0, 1, 0, index)) })
      .where(eq(users.id, person.id));
    people.push(person);
  }
  return people;
}

const pageOf = async (query: string) => {
  const res = await api('GET', `/api/admin/users?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: AdminUser[]; total: number; page: number; pageSize: number };
};

describe('GET /api/admin/users', () => {
  it('lists accounts newest first with their roles, companies and saved signatures, and never a password hash', async () => {
    const word = `list${randomUUID().slice(0, 6)}`;
    const [older, newer] = await createPeople(word, [{ name: 'Olive Older' }, { name: 'Nina Newer', roles: ['notary', 'signer'] }]);
    if (!older || !newer) throw new Error('people not created');
    await kit.saveSignature(newer, 'signature');
    const page = await pageOf(`q=${word}`);
    expect(page).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(page.items.map((item) => item.id)).toEqual([newer.id, older.id]);
    expect(page.items[0]).toEqual({
      id: newer.id,
      name: newer.name,
      email: newer.email,
      roles: ['notary', 'signer'],
      status: 'active',
      emailVerifiedAt: null,
      lastLoginAt: expect.any(String),
      createdAt: '2030-01-01T00:01:00.000Z',
      hasPassword: true,
      companies: [],
      hasSignature: true,
      hasInitials: false,
    });
    expect(page.items[1]).toMatchObject({ lastLoginAt: null, hasSignature: false });
    const [row] = await t.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, newer.id));
    const body = JSON.stringify(page);
    expect(body).not.toContain(row?.passwordHash ?? 'no hash');
    expect(body).not.toMatch(/"password(Hash)?"/i);
  });

  it('searches the name or the email whatever their case, every word, and treats % and _ as plain characters', async () => {
    const word = `srch${randomUUID().slice(0, 6)}`;
    const [percent, plain, underscore] = await createPeople(word, [
      { name: 'Paula 50% Off' },
      { name: 'Paula 50X Off', email: `PAULA.PLAIN-${word}@Example.test` },
      { name: 'Uma Under_score' },
    ]);
    expect((await pageOf(`q=${encodeURIComponent(`50% ${word}`)}`)).items.map((item) => item.id)).toEqual([percent?.id]);
    expect((await pageOf(`q=${encodeURIComponent(`_ ${word}`)}`)).items.map((item) => item.id)).toEqual([underscore?.id]);
    expect((await pageOf(`q=${encodeURIComponent(`PAULA.plain-${word.toUpperCase()}`)}`)).items.map((item) => item.id)).toEqual([plain?.id]);
    expect((await pageOf(`q=${encodeURIComponent(`paula ${word.toUpperCase()}`)}`)).items.map((item) => item.id)).toEqual([plain?.id, percent?.id]);
    expect((await pageOf(`q=${encodeURIComponent(`nobody ${word}`)}`)).total).toBe(0);
  });

  it('filters by role and by status, and pages with the total of every match', async () => {
    const word = `filt${randomUUID().slice(0, 6)}`;
    const people = await createPeople(word, [
      { name: 'Fay One', roles: ['billing'] },
      { name: 'Fay Two', roles: ['billing', 'finance'] },
      { name: 'Fay Three', roles: ['finance'], status: 'disabled' },
      { name: 'Fay Four', roles: ['notary'], status: 'pending' },
      { name: 'Fay Five' },
    ]);
    const ids = people.map((person) => person.id);
    expect((await pageOf(`q=${word}&role=billing`)).items.map((item) => item.id)).toEqual([ids[1], ids[0]]);
    expect((await pageOf(`q=${word}&role=finance&status=disabled`)).items.map((item) => item.id)).toEqual([ids[2]]);
    expect((await pageOf(`q=${word}&status=pending`)).items.map((item) => item.id)).toEqual([ids[3]]);
    const second = await pageOf(`q=${word}&page=2&pageSize=2`);
    expect(second).toMatchObject({ total: 5, page: 2, pageSize: 2 });
    expect(second.items.map((item) => item.id)).toEqual([ids[2], ids[1]]);
    expect((await pageOf(`q=${word}&page=4&pageSize=2`)).items).toEqual([]);
  });
});

describe('GET /api/admin/users/{id}', () => {
  it('answers one account as the list shows it, with its title companies', async () => {
    const person = await t.createUser({ roles: ['title'] });
    const [company] = await t.db.insert(titleCompanies).values({ name: 'Acme Title', approvalStatus: 'approved' }).returning();
    if (!company) throw new Error('company not created');
    await t.db.insert(titleCompanyMembers).values({ companyId: company.id, userId: person.id, role: 'title' });
    const res = await api('GET', `/api/admin/users/${person.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: person.id,
      email: person.email,
      roles: ['title'],
      companies: [{ id: company.id, name: 'Acme Title', role: 'title' }],
    });
  });
});

describe('POST /api/admin/users', () => {
  it('creates an active account without a password and emails a 7-day link with which the person chooses one and signs in', async () => {
    const email = uniqueEmail('new-person');
    const res = await api('POST', '/api/admin/users', { name: 'Sam Signer', email: `  ${email.toUpperCase()} `, roles: ['signer', 'billing', 'signer'] });
    expect(res.statusCode, res.body).toBe(201);
    const { user, message } = res.json() as { user: AdminUser; message: string };
    expect(user).toMatchObject({ name: 'Sam Signer', email, roles: ['signer', 'billing'], status: 'active', hasPassword: false, emailVerifiedAt: null });
    expect(message).toBe(`Sam Signer’s account was created. An email with a link to choose a password went to ${email}; it works for 7 days.`);

    const mail = await latestMail(email, 'account_created');
    expect(mail.subject).toBe('An Open RON account was created for you');
    expect(mail.textBody).toContain('roles: Signer, Billing');
    const token = mail.textBody.match(new RegExp(`${t.config.publicUrl}/login\\?resetToken=([\\w-]+)`))?.[1];
    if (!token) throw new Error(`no set-password link in ${mail.textBody}`);
    expect(res.body).not.toContain(token);
    const [stored] = await t.db
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.tokenHash, hashToken(token)));
    const lifetimeDays = ((stored?.expiresAt.getTime() ?? 0) - Date.now()) / (24 * 3600_000);
    expect(lifetimeDays).toBeGreaterThan(6.9);
    expect(lifetimeDays).toBeLessThanOrEqual(7);

    // No password yet: nothing signs in.
    expect((await logIn(email, '')).statusCode).toBe(400);
    expect((await logIn(email, 'any password at all')).json()).toMatchObject({ error: 'invalid_credentials' });

    expect((await api('GET', `/api/auth/reset-password/validate?token=${token}`, undefined, {})).json()).toEqual({ valid: true });
    const chosen = await api('POST', '/api/auth/reset-password', { token, newPassword: 'my own good password' }, {});
    expect(chosen.statusCode, chosen.body).toBe(200);
    const signedIn = await logIn(email, 'my own good password');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    // The link reached the address, so it confirmed it; a first password is no change to warn about.
    expect(signedIn.json().user).toMatchObject({ email, roles: ['signer', 'billing'], emailVerified: true });
    expect(
      await t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'password_changed'))),
    ).toEqual([]);
    expect((await api('POST', '/api/auth/reset-password', { token, newPassword: 'a second password' }, {})).statusCode).toBe(400);
    expect((await api('GET', `/api/admin/users/${user.id}`)).json()).toMatchObject({ hasPassword: true, emailVerifiedAt: expect.any(String) });

    const [created] = await accountEvents(user.id, 'user.created');
    expect(created).toMatchObject({
      actorId: admin.id,
      data: { userId: user.id, userName: 'Sam Signer', before: {}, after: { name: 'Sam Signer', email, roles: ['signer', 'billing'], status: 'active' } },
    });
    expect(sentenceOf(created ?? { action: '', data: {} })).toBe(
      `Ada Admin created an account for Sam Signer (${email}) with the signer and billing roles and emailed them a link to set their password.`,
    );
    expect(await accountEvents(user.id, 'user.email_verified')).toEqual([
      expect.objectContaining({ data: { userId: user.id, userName: 'Sam Signer', via: 'invitation' } }),
    ]);
    expect(await verifyAuditScope(t.db, accountScope)).toMatchObject({ isValid: true });
  });

  it('gives the signer role when none is named', async () => {
    const res = await api('POST', '/api/admin/users', { name: 'Rita Roleless', email: uniqueEmail('roleless') });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().user.roles).toEqual(['signer']);
  });

  it('refuses an address already in use, whatever its case, and says when that account is deactivated', async () => {
    const existing = await t.createUser();
    const taken = await api('POST', '/api/admin/users', { name: 'Copy Cat', email: existing.email.toUpperCase() });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists.' });
    const disabled = await t.createUser({ status: 'disabled' });
    const again = await api('POST', '/api/admin/users', { name: 'Copy Cat', email: disabled.email });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('An account with this email already exists. That account is deactivated: reactivate it instead of creating another.');
    expect(await t.db.select().from(users).where(eq(users.name, 'Copy Cat'))).toEqual([]);
  });

  it('gives the notary role without approving anyone: the new notary takes no work and is listed nowhere as approved', async () => {
    const email = uniqueEmail('notary');
    const res = await api('POST', '/api/admin/users', { name: 'Nell Newnotary', email, roles: ['notary'] });
    expect(res.statusCode, res.body).toBe(201);
    const { user, message } = res.json() as { user: AdminUser; message: string };
    expect(user).toMatchObject({ status: 'active', roles: ['notary'] });
    expect(message).toContain('As a notary they take no work until their notary profile is approved.');

    const job = await api('POST', '/api/jobs', { title: 'Deed', notarizationType: 'acknowledgment', notaryId: user.id });
    expect(job.statusCode).toBe(400);
    expect(job.json()).toMatchObject({ message: 'Choose an approved, active notary.' });
    const approved = (await api('GET', '/api/notary/approved')).json() as { items: Array<{ userId: string }> };
    expect(approved.items.map((item) => item.userId)).not.toContain(user.id);
    const lookup = (await api('GET', `/api/notary/lookup?q=Newnotary`)).json() as { items: unknown[] };
    expect(lookup.items).toEqual([]);
  });
});

describe('PUT /api/admin/users/{id}', () => {
  it('renames the account, and the person’s own next request already carries the new name', async () => {
    const person = await t.createUser({ name: 'Sam Signer' });
    const headers = await t.signInAs(person);
    expect((await me(headers)).json().user.name).toBe('Sam Signer');
    const res = await api('PUT', `/api/admin/users/${person.id}`, { name: '  Samuel Signer ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ user: { name: 'Samuel Signer' }, message: 'The name is now Samuel Signer.' });
    expect((await me(headers)).json().user.name).toBe('Samuel Signer');
    const [event] = await accountEvents(person.id, 'user.updated');
    expect(event?.data).toEqual({ userId: person.id, userName: 'Samuel Signer', before: { name: 'Sam Signer' }, after: { name: 'Samuel Signer' } });
    expect(sentenceOf(event ?? { action: '', data: {} })).toBe('Ada Admin renamed Sam Signer to Samuel Signer.');
  });

  it('changes the email: the new address must be confirmed, the old one is told, and links sent to the old one stop working', async () => {
    const person = await t.createUser({ name: 'Edna Email', isEmailVerified: true });
    const oldEmail = person.email;
    expect((await api('POST', '/api/auth/forgot-password', { email: oldEmail }, {})).statusCode).toBe(200);
    const resetToken = (await latestMail(oldEmail, 'password_reset')).textBody.match(/resetToken=([\w-]+)/)?.[1] ?? '';
    const headers = await t.signInAs(person);

    const other = await t.createUser();
    const taken = await api('PUT', `/api/admin/users/${person.id}`, { email: other.email });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists.' });

    const newEmail = uniqueEmail('edna-new');
    const res = await api('PUT', `/api/admin/users/${person.id}`, { email: newEmail.toUpperCase() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      user: expect.objectContaining({ email: newEmail, emailVerifiedAt: null }),
      message: `The email address is now ${newEmail}: a confirmation link went there, and a notice went to ${oldEmail}.`,
    });
    expect((await me(headers)).json().user).toMatchObject({ email: newEmail, emailVerified: false });

    const notice = await latestMail(oldEmail, 'email_changed');
    expect(notice.subject).toBe('The email address of your Open RON account was changed');
    expect(notice.textBody).toContain(`it no longer uses ${oldEmail}`);
    expect(notice.textBody).not.toContain(newEmail);
    const reset = await api('POST', '/api/auth/reset-password', { token: resetToken, newPassword: 'taken over password' }, {});
    expect(reset.json()).toMatchObject({ error: 'invalid_token' });

    expect((await logIn(oldEmail, person.password)).statusCode).toBe(401);
    expect((await logIn(newEmail, person.password)).statusCode).toBe(200);
    const confirmation = await latestMail(newEmail, 'email_verification');
    const token = confirmation.textBody.match(/\/verify-email\/([\w-]+)/)?.[1] ?? '';
    expect((await api('POST', '/api/auth/verify-email', { token }, {})).statusCode).toBe(200);
    expect((await api('GET', `/api/admin/users/${person.id}`)).json()).toMatchObject({ email: newEmail, emailVerifiedAt: expect.any(String) });

    const [event] = await accountEvents(person.id, 'user.updated');
    expect(event?.data).toEqual({ userId: person.id, userName: 'Edna Email', before: { email: oldEmail }, after: { email: newEmail } });
    expect(sentenceOf(event ?? { action: '', data: {} })).toBe(
      `Ada Admin changed Edna Email’s email from ${oldEmail} to ${newEmail}; the new address must be confirmed.`,
    );
  });

  it('changes nothing, and records nothing, when every value is the current one', async () => {
    const person = await t.createUser({ name: 'Stan Still' });
    const res = await api('PUT', `/api/admin/users/${person.id}`, { name: 'Stan Still', email: person.email, status: 'active' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Nothing changed.', user: { name: 'Stan Still', status: 'active' } });
    expect(await accountEvents(person.id, 'user.updated')).toEqual([]);
  });

  it('deactivates with status disabled and reactivates with status active', async () => {
    const person = await t.createUser({ name: 'Toggle Person' });
    const headers = await t.signInAs(person);
    const off = await api('PUT', `/api/admin/users/${person.id}`, { status: 'disabled' });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({
      user: { status: 'disabled' },
      message: 'Toggle Person’s account is deactivated: they were signed out everywhere and cannot sign in.',
    });
    expect((await me(headers)).statusCode).toBe(401);
    expect((await logIn(person.email, person.password)).json()).toMatchObject({ error: 'account_disabled' });

    const on = await api('PUT', `/api/admin/users/${person.id}`, { status: 'active' });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ user: { status: 'active' }, message: 'Toggle Person’s account is active again: they can sign in.' });
    expect((await logIn(person.email, person.password)).statusCode).toBe(200);
    const [event] = await accountEvents(person.id, 'user.reactivated');
    expect(event?.data).toEqual({ userId: person.id, userName: 'Toggle Person', before: { status: 'disabled' }, after: { status: 'active' } });
    expect(sentenceOf(event ?? { action: '', data: {} })).toBe('Ada Admin reactivated the account of Toggle Person.');
  });

  it('leaves applications to the approvals pages: a pending or turned-down account is neither activated nor deactivated here', async () => {
    const pending = await t.createUser({ name: 'Penny Pending', roles: ['notary'], status: 'pending' });
    const activate = await api('PUT', `/api/admin/users/${pending.id}`, { status: 'active' });
    expect(activate.statusCode).toBe(409);
    expect(activate.json()).toEqual({ error: 'conflict', message: 'Penny Pending’s application is waiting for a decision: approve it in Approvals instead.' });
    const deactivate = await api('DELETE', `/api/admin/users/${pending.id}`);
    expect(deactivate.statusCode).toBe(409);
    expect(deactivate.json().message).toBe(
      'Penny Pending’s application is waiting for a decision: turn it down in Approvals instead of deactivating the account.',
    );

    const rejected = await t.createUser({ name: 'Rex Rejected', roles: ['title'] });
    await t.db.update(users).set({ status: 'rejected' }).where(eq(users.id, rejected.id));
    const reopen = await api('PUT', `/api/admin/users/${rejected.id}`, { status: 'active', name: 'Rex Renamed' });
    expect(reopen.statusCode).toBe(409);
    expect(reopen.json().message).toMatch(/^Rex Renamed’s application was turned down; .*Approvals/);
    // The refusal undid the whole change, the new name too.
    const [row] = await t.db.select({ name: users.name, status: users.status }).from(users).where(eq(users.id, rejected.id));
    expect(row).toEqual({ name: 'Rex Rejected', status: 'rejected' });
  });
});

describe('DELETE /api/admin/users/{id}', () => {
  it('signs the person out everywhere at once, ends remembered devices, tells their open tabs, and keeps their jobs and history', async () => {
    const person = await t.createUser({ name: 'Dora Departing' });
    const first = await t.signInAs(person);
    const second = await t.signInAs(person);
    expect((await me(first)).statusCode).toBe(200);
    expect((await me(second)).statusCode).toBe(200);
    const job = await kit.createJob(person, { title: 'Dora’s deed' });
    await t.db.insert(trustedDevices).values({ userId: person.id, tokenHash: hashToken(randomUUID()), expiresAt: new Date(Date.now() + 86_400_000) });
    const heard: string[] = [];
    const unsubscribe = await t.realtime.subscribe(userChannel(person.id), (message) => heard.push(message));
    try {
      const res = await api('DELETE', `/api/admin/users/${person.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        user: { id: person.id, status: 'disabled' },
        message: 'Dora Departing’s account is deactivated: they were signed out everywhere and cannot sign in.',
      });
      for (const headers of [first, second]) {
        const stale = await me(headers);
        expect(stale.statusCode).toBe(401);
        expect(stale.json()).toMatchObject({ error: 'session_expired' });
      }
      await vi.waitFor(() => expect(heard.map((message) => JSON.parse(message))).toEqual([{ type: 'signed-out' }]));
    } finally {
      await unsubscribe();
    }
    expect((await t.db.select().from(sessions).where(eq(sessions.userId, person.id))).every((row) => row.revokedAt !== null)).toBe(true);
    expect((await t.db.select().from(trustedDevices).where(eq(trustedDevices.userId, person.id))).every((row) => row.revokedAt !== null)).toBe(true);
    expect(await t.db.select({ id: jobs.id }).from(jobs).where(eq(jobs.id, job.id))).toEqual([{ id: job.id }]);
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, job.id))).length).toBeGreaterThan(0);
    const [event] = await accountEvents(person.id, 'user.deactivated');
    expect(event).toMatchObject({
      actorId: admin.id,
      data: { userId: person.id, userName: 'Dora Departing', before: { status: 'active' }, after: { status: 'disabled' } },
    });
    expect(sentenceOf(event ?? { action: '', data: {} })).toBe(
      'Ada Admin deactivated the account of Dora Departing: they were signed out everywhere and cannot sign in.',
    );
  });

  it('keeps a deactivated address from signing in, registering again or getting a reset link, until it is reactivated', async () => {
    const person = await t.createUser({ name: 'Gone Person' });
    expect((await api('DELETE', `/api/admin/users/${person.id}`)).statusCode).toBe(200);
    const login = await logIn(person.email, person.password);
    expect(login.statusCode).toBe(403);
    expect(login.json()).toEqual({ error: 'account_disabled', message: 'This account is disabled. Please contact your administrator.' });
    const register = await api('POST', '/api/auth/register/user', { name: 'Gone Again', email: person.email, password: 'another password 1' }, {});
    expect(register.statusCode).toBe(409);
    expect(register.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists. Sign in instead, or use Forgot password.' });
    const forgot = await api('POST', '/api/auth/forgot-password', { email: person.email }, {});
    expect(forgot.statusCode).toBe(200);
    expect(
      await t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, person.email), eq(emailOutbox.kind, 'password_reset'))),
    ).toEqual([]);
    const again = await api('DELETE', `/api/admin/users/${person.id}`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'Gone Person’s account is already deactivated.' });

    expect((await api('PUT', `/api/admin/users/${person.id}`, { status: 'active' })).statusCode).toBe(200);
    expect((await logIn(person.email, person.password)).statusCode).toBe(200);
  });

  it('keeps a deactivated address from registering as a notary or a title company too, in any case, and creates nothing', async () => {
    const person = await t.createUser({ name: 'Gone Notary' });
    expect((await api('DELETE', `/api/admin/users/${person.id}`)).statusCode).toBe(200);
    const companyName = `Comeback Title ${randomUUID().slice(0, 6)}`;
    const attempts = [
      [
        '/api/auth/register/notary',
        {
          name: 'Gone Again',
          email: person.email.toUpperCase(),
          password: 'another password 1',
          commissionState: 'VA',
          commissionNumber: 'VA-GONE',
          commissionExpiresOn: '2031-06-30',
          county: 'Fairfax',
        },
      ],
      ['/api/auth/register/title-company', { name: 'Gone Again', email: person.email, password: 'another password 1', companyName }],
    ] as const;
    for (const [url, payload] of attempts) {
      const res = await api('POST', url, payload, {});
      expect(res.statusCode, url).toBe(409);
      expect(res.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists. Sign in instead, or use Forgot password.' });
      expect(res.headers['set-cookie'], url).toBeUndefined();
    }
    const [row] = await t.db.select().from(users).where(eq(users.id, person.id));
    expect(row).toMatchObject({ name: 'Gone Notary', status: 'disabled', roles: ['signer'] });
    expect(await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, person.id))).toEqual([]);
    expect(await t.db.select().from(titleCompanies).where(eq(titleCompanies.name, companyName))).toEqual([]);
    expect(await t.db.select().from(titleCompanyMembers).where(eq(titleCompanyMembers.userId, person.id))).toEqual([]);
    // The password the attempts sent was never set.
    expect((await logIn(person.email, 'another password 1')).statusCode).toBe(401);
  });
});

describe('GET /api/admin/users/{id}/audit', () => {
  it('lists the account events about this person only, newest first, with who acted', async () => {
    const person = await t.createUser({ name: 'Audrey Audited' });
    const bystander = await t.createUser();
    expect((await api('PUT', `/api/admin/users/${person.id}`, { name: 'Audrey Renamed' })).statusCode).toBe(200);
    expect((await api('POST', `/api/admin/users/${person.id}/roles`, { role: 'billing' })).statusCode).toBe(200);
    expect((await api('DELETE', `/api/admin/users/${person.id}`)).statusCode).toBe(200);
    expect((await api('PUT', `/api/admin/users/${bystander.id}`, { name: 'Someone Else' })).statusCode).toBe(200);

    const res = await api('GET', `/api/admin/users/${person.id}/audit`);
    expect(res.statusCode, res.body).toBe(200);
    const { items } = res.json() as { items: Array<{ action: string; actorId: string | null; actorName: string | null; data: Record<string, unknown> }> };
    expect(items.map((item) => item.action)).toEqual(['user.deactivated', 'user.role_added', 'user.updated']);
    expect(items.every((item) => item.actorId === admin.id && item.actorName === 'Ada Admin' && item.data.userId === person.id)).toBe(true);
    expect(items.map((item) => describeAuditEvent(item))).toEqual([
      'Ada Admin deactivated the account of Audrey Renamed: they were signed out everywhere and cannot sign in.',
      'Ada Admin gave Audrey Renamed the billing role.',
      'Ada Admin renamed Audrey Audited to Audrey Renamed.',
    ]);
  });

  it('answers the latest 200 events', async () => {
    const person = await t.createUser();
    const ctx = { db: t.db, user: null, ipAddress: '127.0.0.1', userAgent: null };
    for (let index = 0; index < 203; index += 1) {
      await appendAuditEvent(ctx, { action: 'user.password_reset', data: { userId: person.id, userName: `reset ${index}` } });
    }
    const { items } = (await api('GET', `/api/admin/users/${person.id}/audit`)).json() as { items: Array<{ data: { userName: string } }> };
    expect(items).toHaveLength(200);
    expect(items[0]?.data.userName).toBe('reset 202');
    expect(items[199]?.data.userName).toBe('reset 3');
  });
});
