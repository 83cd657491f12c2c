import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, emailOutbox, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
let adminHeaders: Record<string, string>;
let adminId: string;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', SUPPORT_EMAIL: 'support@ron.example' });
  const admin = await t.createUser({ roles: ['admin'] });
  adminId = admin.id;
  adminHeaders = await t.signInAs(admin);
});
afterAll(async () => t.close());

let counter = 0;
/** Registers a title company through the real route; its owner comes back pending and signed in. */
async function registerCompany() {
  counter += 1;
  const companyName = `Acme Title ${counter} ${randomUUID().slice(0, 6)}`;
  const email = `owner-${counter}-${randomUUID().slice(0, 6)}@example.test`;
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register/title-company',
    payload: { name: `Owner ${counter}`, email, password: 'owner password', companyName },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  const pending = await list('pending');
  const company = pending.find((item) => item.name === companyName);
  if (!company) throw new Error(`${companyName} is not in the pending list`);
  return {
    id: company.id as string,
    companyName,
    ownerId: body.user.id as string,
    ownerName: `Owner ${counter}`,
    email,
    headers: { authorization: `Bearer ${body.sessionToken as string}` },
  };
}

async function list(which: 'pending' | 'approved') {
  const res = await t.app.inject({ method: 'GET', url: `/api/title-companies/${which}`, headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().items as Array<Record<string, unknown>>;
}
const approve = (id: string, headers = adminHeaders) => t.app.inject({ method: 'POST', url: `/api/title-companies/${id}/approve`, headers });
const reject = (id: string, payload: unknown, headers = adminHeaders) =>
  t.app.inject({
    method: 'POST',
    url: `/api/title-companies/${id}/reject`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user;
const mailTo = (email: string) => t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, email));
const auditOf = (action: string, companyId: string) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.scope, 'account')))
    .then((rows) => rows.filter((row) => (row.data as { companyId?: string }).companyId === companyId));
/** A second member of the company (an agent added before approval), pending like its owner. */
async function addPendingAgent(companyId: string) {
  const agent = await t.createUser({ roles: ['title_agent'], status: 'pending' });
  await t.db.insert(titleCompanyMembers).values({ companyId, userId: agent.id, role: 'title_agent' });
  return agent;
}

describe('title company approval', () => {
  it('lists a newly registered company with its owner as pending for an admin', async () => {
    const company = await registerCompany();
    expect(await list('pending')).toContainEqual({
      id: company.id,
      name: company.companyName,
      approvalStatus: 'pending',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      ownerName: company.ownerName,
      ownerEmail: company.email,
    });
    expect((await list('approved')).map((item) => item.id)).not.toContain(company.id);
  });

  it('makes the owner active at once on approval, although their session was just cached', async () => {
    const company = await registerCompany();
    expect(await me(company.headers)).toMatchObject({ status: 'pending', pendingApproval: 'title_company' });
    const res = await approve(company.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: `${company.companyName} was approved and its team was told by email.` });
    expect(await me(company.headers)).toMatchObject({ id: company.ownerId, status: 'active', pendingApproval: null, role: 'title' });
    expect((await list('pending')).map((item) => item.id)).not.toContain(company.id);
    expect(await list('approved')).toContainEqual(expect.objectContaining({ id: company.id, approvalStatus: 'approved' }));
  });

  it('leaves the members of other companies pending', async () => {
    const approved = await registerCompany();
    const waiting = await registerCompany();
    await approve(approved.id);
    expect(await me(waiting.headers)).toMatchObject({ status: 'pending' });
  });

  it('answers 409 when the company is already approved', async () => {
    const company = await registerCompany();
    expect((await approve(company.id)).statusCode).toBe(200);
    const again = await approve(company.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'already_approved', message: 'This title company is already approved.' });
  });

  it('answers 404 for an unknown id', async () => {
    const res = await approve(randomUUID());
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No title company with that id.' });
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const res = await approve('acme');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Title company id must be a UUID.' });
  });

  it('refuses anyone but an admin, the company owner included, and changes nothing', async () => {
    const company = await registerCompany();
    for (const role of ['signer', 'title', 'title_agent', 'notary'] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const res = await approve(company.id, headers);
      expect(res.statusCode, role).toBe(403);
      expect(res.json(), role).toMatchObject({ error: 'forbidden' });
    }
    const own = await approve(company.id, company.headers);
    expect(own.statusCode).toBe(403);
    expect(own.json()).toMatchObject({ error: 'pending_approval' });
    expect((await list('pending')).map((item) => item.id)).toContain(company.id);
  });
});

describe('title company approval: what it records and tells', () => {
  it('records the approval in the audit trail and emails every member it activated a welcome with the sign-in link', async () => {
    const company = await registerCompany();
    const agent = await addPendingAgent(company.id);
    expect((await approve(company.id)).statusCode).toBe(200);
    const [event, ...others] = await auditOf('title_company.approved', company.id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      actorId: adminId,
      jobId: null,
      data: { companyId: company.id, companyName: company.companyName, memberIds: expect.arrayContaining([company.ownerId, agent.id]) },
    });
    for (const email of [company.email, agent.email]) {
      const [welcome, ...more] = (await mailTo(email)).filter((mail) => mail.kind === 'title_company_approved');
      expect(more).toEqual([]);
      expect(welcome?.subject).toBe(`${company.companyName} is approved on Open RON`);
      expect(welcome?.textBody).toContain(`${t.config.publicUrl}/login`);
    }
  });

  it('answers 409 when the company was rejected: a rejection is final', async () => {
    const company = await registerCompany();
    await reject(company.id, { reason: 'We could not confirm the company’s licence.' });
    const res = await approve(company.id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'already_rejected', message: 'This title company’s application was already rejected.' });
  });
});

describe('title company rejection', () => {
  const reason = 'We could not confirm the company’s title insurance licence.';

  it('turns the company down, stores who, when and why, and leaves the pending list', async () => {
    const company = await registerCompany();
    const res = await reject(company.id, { reason });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, message: `${company.companyName} was not approved; its team was told by email, with your reason.` });
    const [row] = await t.db.select().from(titleCompanies).where(eq(titleCompanies.id, company.id));
    expect(row).toMatchObject({ approvalStatus: 'rejected', rejectedBy: adminId, rejectionReason: reason, approvedAt: null });
    expect(row?.rejectedAt).toBeInstanceOf(Date);
    expect((await list('pending')).map((item) => item.id)).not.toContain(company.id);
    expect((await list('approved')).map((item) => item.id)).not.toContain(company.id);
  });

  it('marks every pending member rejected, ends their sessions and refuses their sign-in with a sentence', async () => {
    const company = await registerCompany();
    const agent = await addPendingAgent(company.id);
    await reject(company.id, { reason });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: company.headers })).statusCode).toBe(401);
    const statuses = await t.db.select({ id: users.id, status: users.status }).from(users).where(eq(users.id, agent.id));
    expect(statuses).toEqual([{ id: agent.id, status: 'rejected' }]);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: company.email, password: 'owner password' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'account_rejected',
      message: 'Your title company application was not approved, so this account cannot sign in. The email we sent you gives the reason and whom to contact.',
      detail: 'The application was not approved.',
    });
  });

  it('leaves an already active member of the company as it was', async () => {
    const company = await registerCompany();
    const active = await t.createUser({ roles: ['title_agent'] });
    await t.db.insert(titleCompanyMembers).values({ companyId: company.id, userId: active.id, role: 'title_agent' });
    await reject(company.id, { reason });
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: active.email, password: active.password } })).statusCode).toBe(200);
    expect((await mailTo(active.email)).filter((mail) => mail.kind === 'title_company_rejected')).toEqual([]);
  });

  it('appends a title_company.rejected audit event with the reason', async () => {
    const company = await registerCompany();
    await reject(company.id, { reason });
    const [event, ...others] = await auditOf('title_company.rejected', company.id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      actorId: adminId,
      jobId: null,
      data: { companyId: company.id, companyName: company.companyName, reason, memberIds: [company.ownerId] },
    });
  });

  it('emails each pending member the reason and whom to contact', async () => {
    const company = await registerCompany();
    const agent = await addPendingAgent(company.id);
    await reject(company.id, { reason });
    for (const [email, name] of [
      [company.email, company.ownerName],
      [agent.email, agent.name],
    ] as const) {
      const [mail, ...more] = (await mailTo(email)).filter((row) => row.kind === 'title_company_rejected');
      expect(more).toEqual([]);
      expect(mail?.subject).toBe(`${company.companyName} was not approved on Open RON`);
      expect(mail?.textBody).toContain(`Hello ${name},`);
      expect(mail?.textBody).toContain(`Reason: ${reason}`);
      expect(mail?.textBody).toContain('contact support@ron.example');
    }
  });

  it.each([
    ['no body', undefined, 'Enter the reason for turning down this application; it is sent to the applicant.'],
    ['a blank reason', { reason: '' }, 'Enter the reason for turning down this application; it is sent to the applicant.'],
    [
      'a reason with a text-direction override',
      { reason: 'ok \u202Eevil' },
      'The reason must be one line of text, without line breaks, control characters or text-direction overrides.',
    ],
    ['a reason too long', { reason: 'x'.repeat(501) }, 'The reason must be at most 500 characters.'],
  ])('answers 400 with a field error for %s, and changes nothing', async (_case, payload, message) => {
    const company = await registerCompany();
    const res = await reject(company.id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    expect((await list('pending')).map((item) => item.id)).toContain(company.id);
  });

  it('answers 409 when the company is already approved or already rejected', async () => {
    const approved = await registerCompany();
    await approve(approved.id);
    const late = await reject(approved.id, { reason });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ error: 'already_approved', message: 'This title company is already approved.' });
    expect(await me(approved.headers)).toMatchObject({ status: 'active' });

    const rejected = await registerCompany();
    await reject(rejected.id, { reason });
    const again = await reject(rejected.id, { reason });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'already_rejected', message: 'This title company’s application was already rejected.' });
  });

  it('answers 404 for an unknown id and 400 for one that is not a UUID', async () => {
    const unknown = await reject(randomUUID(), { reason });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found', message: 'No title company with that id.' });
    const malformed = await reject('acme', { reason });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'Title company id must be a UUID.' });
  });

  it('refuses anyone but an admin, the company owner included, and changes nothing', async () => {
    const company = await registerCompany();
    for (const role of ['signer', 'title', 'title_agent', 'notary'] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const res = await reject(company.id, { reason }, headers);
      expect(res.statusCode, role).toBe(403);
      expect(res.json(), role).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    const anonymous = await reject(company.id, { reason }, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
    const own = await reject(company.id, { reason }, company.headers);
    expect(own.statusCode).toBe(403);
    expect(own.json()).toMatchObject({ error: 'pending_approval' });
    expect((await list('pending')).map((item) => item.id)).toContain(company.id);
    expect(await auditOf('title_company.rejected', company.id)).toEqual([]);
  });
});

describe('GET /api/title-companies/approved', () => {
  it('gives an admin the approved, open companies, newest first, each with its owner; never a pending, rejected or closed one', async () => {
    const older = await registerCompany();
    expect((await approve(older.id)).statusCode).toBe(200);
    const newer = await registerCompany();
    expect((await approve(newer.id)).statusCode).toBe(200);
    const waiting = await registerCompany();
    const turnedDown = await registerCompany();
    expect((await reject(turnedDown.id, { reason: 'The licence number could not be confirmed.' })).statusCode).toBe(200);
    const [closed] = await t.db
      .insert(titleCompanies)
      .values({ name: `Closed Title ${randomUUID().slice(0, 6)}`, state: 'VA', approvalStatus: 'approved', closedAt: new Date() })
      .returning();

    const items = await list('approved');
    const ids = items.map((item) => item.id);
    expect(ids).not.toContain(waiting.id);
    expect(ids).not.toContain(turnedDown.id);
    expect(ids).not.toContain(closed!.id);
    expect(ids.indexOf(newer.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(items.find((item) => item.id === older.id)).toEqual({
      id: older.id,
      name: older.companyName,
      approvalStatus: 'approved',
      createdAt: expect.any(String),
      ownerName: older.ownerName,
      ownerEmail: older.email,
    });
    expect(items.every((item) => item.approvalStatus === 'approved')).toBe(true);
  });

  it('refuses every other role, the approved company’s own title staff included, and anonymous callers', async () => {
    const company = await registerCompany();
    expect((await approve(company.id)).statusCode).toBe(200);
    for (const role of ['title', 'title_agent', 'notary', 'signer', 'witness', 'billing', 'finance', 'observer'] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const res = await t.app.inject({ method: 'GET', url: '/api/title-companies/approved', headers });
      expect(res.statusCode, role).toBe(403);
      expect(res.json(), role).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    const own = await t.app.inject({ method: 'GET', url: '/api/title-companies/approved', headers: company.headers });
    expect(own.statusCode).toBe(403);
    expect(own.json()).not.toHaveProperty('items');
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/title-companies/approved' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
  });
});
