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
/** Registers a notary through the real route; they come back pending and signed in. */
async function registerNotary() {
  counter += 1;
  const email = `notary-${counter}-${randomUUID().slice(0, 6)}@example.test`;
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register/notary',
    payload: { name: `Nora ${counter}`, email, password: 'notary password', commissionState: 'VA', commissionNumber: `VA-${counter}`, commissionExpiresOn: '2031-06-30', county: 'Fairfax' },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  return { id: body.user.id as string, name: `Nora ${counter}`, email, headers: { authorization: `Bearer ${body.sessionToken as string}` } };
}

const list = async (which: 'pending' | 'approved') => {
  const res = await t.app.inject({ method: 'GET', url: `/api/notary/${which}`, headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().items as Array<Record<string, unknown>>;
};
const approve = (id: string, headers = adminHeaders) => t.app.inject({ method: 'POST', url: `/api/notary/approve/${id}`, headers });
const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user;

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
    expect(res.json()).toEqual({ ok: true });
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
