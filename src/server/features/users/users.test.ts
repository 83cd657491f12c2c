import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents } from '#server/db/schema/index.ts';
import { accountScope, verifyAuditScope } from '#server/features/audit/audit.service.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

let t: TestApp;
let admin: TestUser;
let adminHeaders: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  admin = await t.createUser({ roles: ['admin'] });
  adminHeaders = await t.signInAs(admin);
});
afterAll(async () => t?.close());

const newPassword = 'set by the administrator';

function setPassword(userId: string, payload: unknown, headers: Record<string, string> = adminHeaders) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/admin/users/${userId}/password`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

const logIn = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/auth/me', headers });

describe('PUT /api/admin/users/:id/password', () => {
  it('sets the password: the new one signs in, the old one no longer does, and the user is signed out everywhere', async () => {
    const user = await t.createUser();
    const userHeaders = await t.signInAs(user);
    const res = await setPassword(user.id, { password: newPassword });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });

    expect((await logIn(user.email, newPassword)).statusCode).toBe(200);
    expect((await logIn(user.email, user.password)).statusCode).toBe(401);
    const stale = await me(userHeaders);
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toMatchObject({ error: 'session_expired' });
    expect((await me(adminHeaders)).statusCode).toBe(200);
  });

  it('records who set whose password in the account audit trail, which still verifies', async () => {
    const user = await t.createUser();
    expect((await setPassword(user.id, { password: newPassword }, { ...adminHeaders, 'user-agent': 'admin-console/1.0' })).statusCode).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'user.password_set_by_admin'), eq(auditEvents.scope, accountScope)));
    const row = rows.find((event) => (event.data as { userId?: string }).userId === user.id);
    expect(row).toMatchObject({
      actorId: admin.id,
      jobId: null,
      userAgent: 'admin-console/1.0',
      ipAddress: '127.0.0.1',
      data: { userId: user.id, userName: user.name },
    });
    expect(describeAuditEvent({ action: 'user.password_set_by_admin', actorName: admin.name, data: row?.data as Record<string, unknown> })).toBe(
      `${admin.name} set a new password for ${user.name}.`,
    );
    expect(JSON.stringify(row)).not.toContain(newPassword);
    expect(await verifyAuditScope(t.db, accountScope)).toMatchObject({ isValid: true, firstBrokenEventId: null });
  });

  it('answers 404 for an unknown user and records nothing', async () => {
    const before = (await verifyAuditScope(t.db, accountScope)).eventCount;
    const res = await setPassword(randomUUID(), { password: newPassword });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No user with that id.' });
    expect((await verifyAuditScope(t.db, accountScope)).eventCount).toBe(before);
  });

  it('refuses a user id that is not a UUID', async () => {
    const res = await setPassword('not-a-uuid', { password: newPassword });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'User id must be a UUID.' });
  });

  it.each([
    ['no password', {}, undefined],
    ['a password shorter than 8 characters', { password: 'short12' }, 'Password must be at least 8 characters.'],
    ['a password that is not a string', { password: 12345678 }, undefined],
    ['a password over 256 characters', { password: 'p'.repeat(257) }, undefined],
    ['no body at all', undefined, undefined],
  ])('refuses %s and keeps the old password', async (_label, payload, message) => {
    const user = await t.createUser();
    const res = await setPassword(user.id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: message ?? expect.any(String) });
    expect((await logIn(user.email, user.password)).statusCode).toBe(200);
  });

  it('refuses anyone but an admin, and changes nothing', async () => {
    const user = await t.createUser();
    for (const roles of [['signer'], ['notary'], ['title'], ['billing']] as const) {
      const res = await setPassword(user.id, { password: newPassword }, await t.signInAs(await t.createUser({ roles: [...roles] })));
      expect(res.statusCode, roles[0]).toBe(403);
      expect(res.json(), roles[0]).toMatchObject({ error: 'forbidden' });
    }
    const pendingAdmin = await t.createUser({ roles: ['admin'], status: 'pending' });
    expect((await setPassword(user.id, { password: newPassword }, await t.signInAs(pendingAdmin))).json()).toMatchObject({ error: 'pending_approval' });
    const anonymous = await setPassword(user.id, { password: newPassword }, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
    expect((await logIn(user.email, user.password)).statusCode).toBe(200);
  });

  it('refuses a cross-site request carrying the admin session cookie', async () => {
    const user = await t.createUser();
    const token = adminHeaders.authorization?.slice('Bearer '.length) ?? '';
    const res = await setPassword(user.id, { password: newPassword }, { cookie: `ron_session=${token}`, origin: 'https://evil.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'cross_origin_refused' });
    expect((await logIn(user.email, user.password)).statusCode).toBe(200);
  });
});
