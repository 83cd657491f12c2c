import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, emailOutbox, notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { completeNotaryProfile } from '#test/notary-fixtures.ts';

let t: TestApp;
let adminHeaders: Record<string, string>;
let adminId: string;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  const admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin', email: `ada-${randomUUID().slice(0, 6)}@example.test` });
  adminId = admin.id;
  adminHeaders = await t.signInAs(admin);
});
afterAll(async () => t.close());

let counter = 0;
/** Registers a notary through the real route and completes their profile; they come back pending and signed in. */
async function registerNotary() {
  counter += 1;
  const email = `notary-${counter}-${randomUUID().slice(0, 6)}@example.test`;
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register/notary',
    payload: {
      name: `Nora ${counter}`,
      email,
      password: 'notary password',
      commissionState: 'VA',
      commissionNumber: `VA-${counter}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
    },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  // Approval needs a complete profile (decision 027); notary-profile.test.ts covers the refusal.
  await completeNotaryProfile(t.db, body.user.id as string);
  return { id: body.user.id as string, name: `Nora ${counter}`, email, headers: { authorization: `Bearer ${body.sessionToken as string}` } };
}

const list = async (which: 'pending' | 'approved') => {
  const res = await t.app.inject({ method: 'GET', url: `/api/notary/${which}`, headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().items as Array<Record<string, unknown>>;
};
const approve = (id: string, headers = adminHeaders) => t.app.inject({ method: 'POST', url: `/api/notary/approve/${id}`, headers });
const reject = (id: string, payload: unknown, headers = adminHeaders) =>
  t.app.inject({ method: 'POST', url: `/api/notary/reject/${id}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user;
const logIn = (email: string) => t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'notary password' } });
const mailTo = (email: string) => t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, email));
const auditOf = (action: string, notaryId: string) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.scope, 'account')))
    .then((rows) => rows.filter((row) => (row.data as { notaryId?: string }).notaryId === notaryId));

describe('notary approval', () => {
  it('lists a newly registered notary with their commission as pending for an admin', async () => {
    const notary = await registerNotary();
    const pending = await list('pending');
    expect(pending).toContainEqual({
      userId: notary.id,
      name: notary.name,
      email: notary.email,
      commissionState: 'VA',
      commissionNumber: `VA-${counter}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
      approvalStatus: 'pending',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await list('approved')).map((item) => item.userId)).not.toContain(notary.id);
  });

  it('makes an approved notary active at once, although their session was just cached', async () => {
    const notary = await registerNotary();
    expect(await me(notary.headers)).toMatchObject({ status: 'pending', pendingApproval: 'notary' });
    const res = await approve(notary.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: `${notary.name} was approved and told by email.` });
    expect(await me(notary.headers)).toMatchObject({ id: notary.id, status: 'active', pendingApproval: null, role: 'notary' });
    expect((await list('pending')).map((item) => item.userId)).not.toContain(notary.id);
    expect(await list('approved')).toContainEqual(expect.objectContaining({ userId: notary.id, approvalStatus: 'approved' }));
  });

  it('lets an approved notary sign in again as an active notary', async () => {
    const notary = await registerNotary();
    await approve(notary.id);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: notary.email, password: 'notary password' } });
    expect(res.json().user).toMatchObject({ status: 'active', roles: ['notary'] });
  });

  it('answers 409 when the notary is already approved', async () => {
    const notary = await registerNotary();
    expect((await approve(notary.id)).statusCode).toBe(200);
    const again = await approve(notary.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'already_approved', message: 'This notary is already approved.' });
  });

  it('answers 404 for an id that is not a notary', async () => {
    const res = await approve(randomUUID());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No notary with that id.' });
    const signer = await t.createUser({ roles: ['signer'] });
    expect((await approve(signer.id)).statusCode).toBe(404);
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const res = await approve('12345');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Notary id must be a UUID.' });
  });

  it('refuses anyone but an admin, and changes nothing', async () => {
    const notary = await registerNotary();
    for (const role of ['signer', 'notary', 'title', 'billing'] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const res = await approve(notary.id, headers);
      expect(res.statusCode, role).toBe(403);
      expect(res.json(), role).toMatchObject({ error: 'forbidden' });
      const listing = await t.app.inject({ method: 'GET', url: '/api/notary/pending', headers });
      expect(listing.statusCode, role).toBe(403);
    }
    const self = await approve(notary.id, notary.headers);
    expect(self.statusCode).toBe(403);
    expect(self.json()).toMatchObject({ error: 'pending_approval' });
    expect(await me(notary.headers)).toMatchObject({ status: 'pending' });
  });
});

describe('notary approval: what it records and tells', () => {
  it('records who approved whom in the audit trail and emails the notary a welcome with the sign-in link', async () => {
    const notary = await registerNotary();
    expect((await approve(notary.id)).statusCode).toBe(200);
    const [event, ...others] = await auditOf('notary.approved', notary.id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({ actorId: adminId, jobId: null, data: { notaryId: notary.id, notaryName: notary.name, notaryEmail: notary.email } });
    const welcome = (await mailTo(notary.email)).filter((mail) => mail.kind === 'notary_approved');
    expect(welcome).toHaveLength(1);
    expect(welcome[0]?.subject).toBe('Your notary account is approved');
    expect(welcome[0]?.textBody).toContain(`Hello ${notary.name},`);
    expect(welcome[0]?.textBody).toContain(`${t.config.publicUrl}/login`);
  });

  it('answers 409 when the notary was rejected: a rejection is final', async () => {
    const notary = await registerNotary();
    expect((await reject(notary.id, { reason: 'The commission number does not match the state register.' })).statusCode).toBe(200);
    const res = await approve(notary.id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'already_rejected', message: 'This notary’s application was already rejected.' });
    expect(await auditOf('notary.approved', notary.id)).toEqual([]);
  });
});

describe('notary rejection', () => {
  const reason = 'The commission number does not match the Virginia register.';

  it('turns the application down, stores who, when and why, and leaves the pending list', async () => {
    const notary = await registerNotary();
    const before = Date.now();
    const res = await reject(notary.id, { reason: `  ${reason}  ` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: `${notary.name} was not approved and was told by email, with your reason.` });
    const [profile] = await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, notary.id));
    expect(profile).toMatchObject({ approvalStatus: 'rejected', rejectedBy: adminId, rejectionReason: reason, approvedAt: null });
    expect(profile?.rejectedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect((await list('pending')).map((item) => item.userId)).not.toContain(notary.id);
    expect((await list('approved')).map((item) => item.userId)).not.toContain(notary.id);
  });

  it('appends a notary.rejected audit event with the reason', async () => {
    const notary = await registerNotary();
    await reject(notary.id, { reason });
    const [event, ...others] = await auditOf('notary.rejected', notary.id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({ actorId: adminId, jobId: null, data: { notaryId: notary.id, notaryName: notary.name, notaryEmail: notary.email, reason } });
  });

  it('emails the notary the reason and whom to contact', async () => {
    const notary = await registerNotary();
    await reject(notary.id, { reason });
    const mails = (await mailTo(notary.email)).filter((mail) => mail.kind === 'notary_rejected');
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe('Your notary application was not approved');
    expect(mails[0]?.textBody).toContain(`Hello ${notary.name},`);
    expect(mails[0]?.textBody).toContain(`Reason: ${reason}`);
    expect(mails[0]?.textBody).toMatch(/contact Ada Admin at ada-\w+@example\.test/);
  });

  it('names SUPPORT_EMAIL as the contact when it is set', async () => {
    const other = await createTestApp({ SUPPORT_EMAIL: 'help@notary.example' });
    try {
      const adminUser = await other.createUser({ roles: ['admin'] });
      const headers = await other.signInAs(adminUser);
      const email = `notary-support-${randomUUID().slice(0, 6)}@example.test`;
      const registered = await other.app.inject({
        method: 'POST',
        url: '/api/auth/register/notary',
        payload: {
          name: 'Nell Notary',
          email,
          password: 'notary password',
          commissionState: 'VA',
          commissionNumber: 'VA-9',
          commissionExpiresOn: '2031-06-30',
          county: 'Fairfax',
        },
      });
      const res = await other.app.inject({ method: 'POST', url: `/api/notary/reject/${registered.json().user.id as string}`, headers, payload: { reason } });
      expect(res.statusCode).toBe(200);
      const [mail] = (await other.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, email))).filter((row) => row.kind === 'notary_rejected');
      expect(mail?.textBody).toContain('contact help@notary.example');
      expect(mail?.textBody).not.toContain(adminUser.email);
    } finally {
      await other.close();
    }
  });

  it('ends the notary’s open session and refuses their sign-in with a sentence', async () => {
    const notary = await registerNotary();
    expect(await me(notary.headers)).toMatchObject({ status: 'pending' });
    await reject(notary.id, { reason });
    const stale = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: notary.headers });
    expect(stale.statusCode).toBe(401);
    const res = await logIn(notary.email);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'account_rejected',
      message: 'Your notary application was not approved, so this account cannot sign in. The email we sent you gives the reason and whom to contact.',
      detail: 'The application was not approved.',
    });
    expect(res.cookies.find((cookie) => cookie.name === 'ron_session')).toBeUndefined();
  });

  it('still gives a wrong password the ordinary 401, revealing nothing about the rejection', async () => {
    const notary = await registerNotary();
    await reject(notary.id, { reason });
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: notary.email, password: 'wrong password' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_credentials');
  });

  it('sends no password reset link to a rejected account', async () => {
    const notary = await registerNotary();
    await reject(notary.id, { reason });
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: notary.email } });
    expect(res.statusCode).toBe(200);
    expect((await mailTo(notary.email)).filter((mail) => mail.kind === 'password_reset')).toEqual([]);
  });

  it('makes a reset link sent while the application was pending useless: no "you can now log in", no new password', async () => {
    const notary = await registerNotary();
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: notary.email } })).statusCode).toBe(200);
    const link = (await mailTo(notary.email)).find((mail) => mail.kind === 'password_reset')?.textBody.match(/resetToken=([\w-]+)/)?.[1];
    expect(link).toBeTruthy();
    await reject(notary.id, { reason });
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/reset-password', payload: { token: link, newPassword: 'a whole new password' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe('invalid_token');
    expect((await mailTo(notary.email)).filter((mail) => mail.kind === 'password_changed')).toEqual([]);
  });

  it.each([
    ['no body', undefined, 'Enter the reason for turning down this application; it is sent to the applicant.'],
    ['no reason', {}, 'Enter the reason for turning down this application; it is sent to the applicant.'],
    ['a blank reason', { reason: '   ' }, 'Enter the reason for turning down this application; it is sent to the applicant.'],
    [
      'a reason on two lines',
      { reason: 'Expired.\nCall us.' },
      'The reason must be one line of text, without line breaks, control characters or text-direction overrides.',
    ],
    ['a reason too long', { reason: 'x'.repeat(501) }, 'The reason must be at most 500 characters.'],
    ['a reason that is not text', { reason: 42 }, 'The reason must be text.'],
  ])('answers 400 with a field error for %s, and changes nothing', async (_case, payload, message) => {
    const notary = await registerNotary();
    const res = await reject(notary.id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    if (payload !== undefined) expect(res.json().detail).toEqual([{ path: 'reason', message }]);
    expect((await list('pending')).map((item) => item.userId)).toContain(notary.id);
  });

  it('answers 409 when the notary is already approved or already rejected', async () => {
    const approved = await registerNotary();
    await approve(approved.id);
    const late = await reject(approved.id, { reason });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ error: 'already_approved', message: 'This notary is already approved.' });
    expect(await me(approved.headers)).toMatchObject({ status: 'active' });

    const rejected = await registerNotary();
    await reject(rejected.id, { reason });
    const again = await reject(rejected.id, { reason: 'Another reason.' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'already_rejected', message: 'This notary’s application was already rejected.' });
    expect(await auditOf('notary.rejected', rejected.id)).toHaveLength(1);
  });

  it('answers 404 for an id that is not a notary and 400 for one that is not a UUID', async () => {
    const unknown = await reject(randomUUID(), { reason });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found', message: 'No notary with that id.' });
    const signer = await t.createUser({ roles: ['signer'] });
    expect((await reject(signer.id, { reason })).statusCode).toBe(404);
    const malformed = await reject('12345', { reason });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'Notary id must be a UUID.' });
  });

  it('refuses anyone but an admin, and changes nothing', async () => {
    const notary = await registerNotary();
    for (const role of ['signer', 'notary', 'title', 'title_agent'] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const res = await reject(notary.id, { reason }, headers);
      expect(res.statusCode, role).toBe(403);
      expect(res.json(), role).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    const anonymous = await reject(notary.id, { reason }, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized', message: 'Please sign in to continue.' });
    const self = await reject(notary.id, { reason }, notary.headers);
    expect(self.statusCode).toBe(403);
    expect(self.json()).toMatchObject({ error: 'pending_approval' });
    expect(await me(notary.headers)).toMatchObject({ status: 'pending' });
    expect(await auditOf('notary.rejected', notary.id)).toEqual([]);
    expect(await mailTo(notary.email).then((mails) => mails.filter((mail) => mail.kind === 'notary_rejected'))).toEqual([]);
  });
});
