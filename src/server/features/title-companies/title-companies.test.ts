import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
let adminHeaders: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  adminHeaders = await t.signInAs(await t.createUser({ roles: ['admin'] }));
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
  return { id: company.id as string, companyName, ownerId: body.user.id as string, ownerName: `Owner ${counter}`, email, headers: { authorization: `Bearer ${body.sessionToken as string}` } };
}

async function list(which: 'pending' | 'approved') {
  const res = await t.app.inject({ method: 'GET', url: `/api/title-companies/${which}`, headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().items as Array<Record<string, unknown>>;
}
const approve = (id: string, headers = adminHeaders) => t.app.inject({ method: 'POST', url: `/api/title-companies/${id}/approve`, headers });
const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user;

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
    expect(res.json()).toEqual({ ok: true });
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
