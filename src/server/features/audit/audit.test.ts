import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '#shared/audit.ts';
import { auditEvents } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { accountScope, appendAuditEvent, verifyAuditScope } from './audit.service.ts';

let t: TestApp;
let adminHeaders: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  adminHeaders = await t.signInAs(await t.createUser({ roles: ['admin'] }));
});
afterAll(async () => t?.close());

/** Records account events the way a caller causes them: an admin setting passwords. */
async function setSomePasswords(count: number) {
  const users = await Promise.all(Array.from({ length: count }, () => t.createUser()));
  const results = await Promise.all(
    users.map((user) =>
      t.app.inject({ method: 'PUT', url: `/api/admin/users/${user.id}/password`, headers: adminHeaders, payload: { password: 'a new password' } }),
    ),
  );
  expect(results.map((res) => res.statusCode)).toEqual(users.map(() => 200));
}

async function appendJobEvents(jobId: string, actions: AuditAction[]) {
  for (const action of actions) {
    await t.db.transaction((tx) =>
      appendAuditEvent({ db: tx, user: null, ipAddress: '127.0.0.1', userAgent: 'vitest' }, { jobId, action, data: { step: action } }),
    );
  }
  return t.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.scope, `job:${jobId}`))
    .orderBy(asc(auditEvents.sequence));
}

describe('the hash-chained audit trail', () => {
  it('verifies a scope whose events were appended at the same time by concurrent requests', async () => {
    await setSomePasswords(8);
    const result = await verifyAuditScope(t.db, accountScope);
    expect(result).toEqual({ isValid: true, eventCount: expect.any(Number), firstBrokenEventId: null });
    expect(result.eventCount).toBeGreaterThanOrEqual(8);
    const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.scope, accountScope)).orderBy(asc(auditEvents.sequence));
    expect(rows[0]?.previousHash).toBeNull();
    for (let index = 1; index < rows.length; index += 1) expect(rows[index]?.previousHash).toBe(rows[index - 1]?.hash);
  });

  it('fails verification at the event edited in the database, and passes again once it is restored', async () => {
    await setSomePasswords(3);
    const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.scope, accountScope)).orderBy(asc(auditEvents.sequence));
    const target = rows[1];
    if (!target) throw new Error('expected account events');
    await t.db.execute(sql`update audit_events set data = ${JSON.stringify({ userId: randomUUID() })}::jsonb where id = ${target.id}`);
    expect(await verifyAuditScope(t.db, accountScope)).toEqual({ isValid: false, eventCount: rows.length, firstBrokenEventId: target.id });

    await t.db.execute(sql`update audit_events set data = ${JSON.stringify(target.data)}::jsonb where id = ${target.id}`);
    expect(await verifyAuditScope(t.db, accountScope)).toMatchObject({ isValid: true });
  });

  it.each([
    ['a changed action', (id: string) => sql`update audit_events set action = 'job.nothing_happened' where id = ${id}`],
    ['a changed network address', (id: string) => sql`update audit_events set ip_address = '203.0.113.9' where id = ${id}`],
    ['a removed actor', (id: string) => sql`update audit_events set user_agent = null where id = ${id}`],
    ['a changed time', (id: string) => sql`update audit_events set created_at = created_at - interval '1 day' where id = ${id}`],
    ['a replaced hash', (id: string) => sql`update audit_events set hash = md5(hash) || md5(hash) where id = ${id}`],
  ])('detects %s', async (_label, tamper) => {
    const rows = await appendJobEvents(randomUUID(), ['job.created', 'field.filled', 'job.status_changed']);
    const target = rows[1];
    if (!target) throw new Error('expected three events');
    await t.db.execute(tamper(target.id));
    const result = await verifyAuditScope(t.db, target.scope);
    expect(result.isValid).toBe(false);
    expect([target.id, rows[2]?.id]).toContain(result.firstBrokenEventId);
  });

  it('detects a removed event at the event that followed it', async () => {
    const rows = await appendJobEvents(randomUUID(), ['job.created', 'field.filled', 'job.status_changed']);
    await t.db.delete(auditEvents).where(eq(auditEvents.id, rows[1]?.id ?? ''));
    expect(await verifyAuditScope(t.db, rows[0]?.scope ?? '')).toEqual({ isValid: false, eventCount: 2, firstBrokenEventId: rows[2]?.id });
  });

  it('chains each job apart from the account scope: tampering with one job leaves the others valid', async () => {
    const tampered = await appendJobEvents(randomUUID(), ['job.created']);
    const untouched = await appendJobEvents(randomUUID(), ['job.created', 'job.status_changed']);
    await t.db.execute(sql`update audit_events set action = 'job.deleted' where id = ${tampered[0]?.id ?? ''}`);
    expect((await verifyAuditScope(t.db, tampered[0]?.scope ?? '')).isValid).toBe(false);
    expect(await verifyAuditScope(t.db, untouched[0]?.scope ?? '')).toEqual({ isValid: true, eventCount: 2, firstBrokenEventId: null });
    expect(untouched[0]?.previousHash).toBeNull();
  });

  it('verifies an empty scope as valid with no events', async () => {
    expect(await verifyAuditScope(t.db, `job:${randomUUID()}`)).toEqual({ isValid: true, eventCount: 0, firstBrokenEventId: null });
  });
});
