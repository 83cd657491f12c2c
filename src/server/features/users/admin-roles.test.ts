import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, titleCompanies, titleCompanyMembers, userSignatures, users } from '#server/db/schema/index.ts';
import { accountScope } from '#server/features/audit/audit.service.ts';
import { userChannel } from '#server/features/jobs/access-change.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';

let t: TestApp;
let admin: TestUser;
let kit: ReturnType<typeof createJobKit>;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

async function call(app: TestApp, actor: TestUser, method: InjectOptions['method'], url: string, payload?: unknown) {
  return app.app.inject({
    method,
    url,
    headers: await app.headersFor(actor),
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}
const api = (method: InjectOptions['method'], url: string, payload?: unknown) => call(t, admin, method, url, payload);
const rolesOf = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).json().user.roles as string[];

async function latestAccountEvent(userId: string, action: string) {
  const rows = await t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.scope, accountScope), eq(auditEvents.action, action), sql`${auditEvents.data}->>'userId' = ${userId}`))
    .orderBy(auditEvents.sequence);
  const row = rows.at(-1);
  if (!row) throw new Error(`no ${action} event about ${userId}`);
  return {
    ...row,
    sentence: describeAuditEvent({ action: row.action, actorName: admin.name, actorId: row.actorId, data: row.data as Record<string, unknown> }),
  };
}

async function createCompany(name: string) {
  const [company] = await t.db.insert(titleCompanies).values({ name, approvalStatus: 'approved' }).returning();
  if (!company) throw new Error('company not created');
  return company;
}

describe('GET /api/admin/users/{id}/roles', () => {
  it('answers the roles the person holds', async () => {
    const person = await t.createUser({ roles: ['title', 'signer'] });
    const res = await api('GET', `/api/admin/users/${person.id}/roles`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ roles: ['title', 'signer'] });
  });
});

describe('POST /api/admin/users/{id}/roles', () => {
  it('gives a role that takes effect on the person’s very next request, and tells their open tabs', async () => {
    const person = await t.createUser({ name: 'Sam Signer' });
    const headers = await t.signInAs(person);
    expect(await rolesOf(headers)).toEqual(['signer']);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(403);
    const heard: string[] = [];
    const unsubscribe = await t.realtime.subscribe(userChannel(person.id), (message) => heard.push(message));
    try {
      const res = await api('POST', `/api/admin/users/${person.id}/roles`, { role: 'admin' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ roles: ['signer', 'admin'], message: 'Sam Signer now has the administrator role.' });
      expect(await rolesOf(headers)).toEqual(['signer', 'admin']);
      expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(200);
      await vi.waitFor(() => expect(heard.map((message) => JSON.parse(message))).toEqual([{ type: 'access-changed' }]));
    } finally {
      await unsubscribe();
    }
    const event = await latestAccountEvent(person.id, 'user.role_added');
    expect(event.data).toEqual({
      userId: person.id,
      userName: 'Sam Signer',
      role: 'admin',
      before: { roles: ['signer'] },
      after: { roles: ['signer', 'admin'] },
    });
    expect(event.sentence).toBe('Ada Admin gave Sam Signer the administrator role.');

    const removed = await api('DELETE', `/api/admin/users/${person.id}/roles/admin`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ roles: ['signer'], message: 'Sam Signer no longer has the administrator role.' });
    expect(await rolesOf(headers)).toEqual(['signer']);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(403);
  });

  it('refuses a role the person already holds, with a sentence', async () => {
    const person = await t.createUser({ name: 'Bill Billing', roles: ['billing'] });
    const res = await api('POST', `/api/admin/users/${person.id}/roles`, { role: 'billing' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', message: 'Bill Billing already has the billing role.' });
  });

  it('gives the notary role without approving anyone: no work, no going online, until a notary profile is approved', async () => {
    const person = await t.createUser({ name: 'Nat Notary' });
    const res = await api('POST', `/api/admin/users/${person.id}/roles`, { role: 'notary' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      roles: ['signer', 'notary'],
      message: 'Nat Notary now has the notary role. They take no notarizations until their notary profile is approved.',
    });
    const status = await call(t, person, 'GET', '/api/notary-availability/status');
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json()).toMatchObject({ can_go_online: false, is_available: false });
    const job = await api('POST', '/api/jobs', { title: 'Deed', notarizationType: 'acknowledgment', notaryId: person.id });
    expect(job.statusCode).toBe(400);
    expect(job.json()).toMatchObject({ message: 'Choose an approved, active notary.' });
    // A notary's own job is theirs to notarize only once approved too.
    const own = await call(t, person, 'POST', '/api/jobs', { title: 'My deed', notarizationType: 'acknowledgment' });
    expect(own.statusCode).toBe(400);
  });

  it('notes that a title company role needs a company, which is given on the title company pages', async () => {
    const person = await t.createUser({ name: 'Tom Title' });
    const res = await api('POST', `/api/admin/users/${person.id}/roles`, { role: 'title_agent' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().message).toBe('Tom Title now has the title agent role. Add them to their title company on its page so they see its jobs.');
  });
});

describe('DELETE /api/admin/users/{id}/roles/{role}', () => {
  it('answers 404 with a sentence for a role the person does not hold, and refuses to take their last role', async () => {
    const person = await t.createUser({ name: 'Wes Witness', roles: ['witness'] });
    const missing = await api('DELETE', `/api/admin/users/${person.id}/roles/notary`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'not_found', message: 'Wes Witness does not have the notary role.' });
    const last = await api('DELETE', `/api/admin/users/${person.id}/roles/witness`);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toEqual({ error: 'conflict', message: 'Wes Witness must keep at least one role: give them another role first.' });
  });

  it('takes a title company role together with the memberships it opened, so the company’s jobs close at once', async () => {
    const company = await createCompany('Acme Title');
    const owner = await t.createUser({ name: 'Tia Title', roles: ['title', 'signer'] });
    const agent = await t.createUser({ name: 'Al Agent', roles: ['title', 'title_agent'] });
    await t.db.insert(titleCompanyMembers).values([
      { companyId: company.id, userId: owner.id, role: 'title' },
      { companyId: company.id, userId: agent.id, role: 'title_agent' },
    ]);
    const job = await kit.createJob(owner, { title: 'Acme deed' });
    expect((await call(t, agent, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);

    const res = await api('DELETE', `/api/admin/users/${agent.id}/roles/title_agent`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ roles: ['title'], message: 'Al Agent no longer has the title agent role. They are no longer on the staff of Acme Title.' });
    expect(await t.db.select().from(titleCompanyMembers).where(eq(titleCompanyMembers.userId, agent.id))).toEqual([]);
    expect((await call(t, agent, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect((await latestAccountEvent(agent.id, 'user.role_removed')).sentence).toBe(
      'Ada Admin took the title agent role from Al Agent, which also removed them from Acme Title.',
    );

    const other = await createCompany('Beta Title');
    await t.db.insert(titleCompanyMembers).values({ companyId: other.id, userId: owner.id, role: 'title_agent' });
    const owners = await api('DELETE', `/api/admin/users/${owner.id}/roles/title`);
    expect(owners.statusCode, owners.body).toBe(200);
    // With no company role left, no membership stays, whatever role it was recorded with.
    expect(owners.json().message).toBe('Tia Title no longer has the title company role. They are no longer on the staff of Acme Title, Beta Title.');
    expect(await t.db.select().from(titleCompanyMembers).where(eq(titleCompanyMembers.userId, owner.id))).toEqual([]);
    // A company's job belongs to the company: its creator sees it only while on the company's staff (decision 043).
    expect((await call(t, owner, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    const event = await latestAccountEvent(owner.id, 'user.role_removed');
    expect(event.data).toMatchObject({
      role: 'title',
      companiesLeft: ['Acme Title', 'Beta Title'],
      before: { roles: ['title', 'signer'] },
      after: { roles: ['signer'] },
    });
  });
});

describe('POST /api/admin/users/{id}/reset-signature', () => {
  it('clears the saved signature and initials, audited, and the person draws new ones', async () => {
    const person = await t.createUser({ name: 'Sid Signer' });
    await kit.saveSignature(person, 'signature');
    await kit.saveSignature(person, 'initials');
    expect((await api('GET', `/api/admin/users/${person.id}`)).json()).toMatchObject({ hasSignature: true, hasInitials: true });

    const res = await api('POST', `/api/admin/users/${person.id}/reset-signature`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      message: 'Sid Signer’s saved signature and initials were cleared; they will draw new ones the next time they sign.',
    });
    expect((await call(t, person, 'GET', '/api/signature/me')).statusCode).toBe(404);
    expect((await call(t, person, 'GET', '/api/initials/me')).statusCode).toBe(404);
    expect((await api('GET', `/api/admin/users/${person.id}`)).json()).toMatchObject({ hasSignature: false, hasInitials: false });
    // The images stay for the documents already signed with them.
    expect(await t.db.select({ value: count() }).from(userSignatures).where(eq(userSignatures.userId, person.id))).toEqual([{ value: 2 }]);
    const event = await latestAccountEvent(person.id, 'user.signature_reset');
    expect(event.data).toMatchObject({
      userId: person.id,
      userName: 'Sid Signer',
      before: { hasSignature: true, hasInitials: true },
      after: { hasSignature: false, hasInitials: false },
    });
    expect(event.sentence).toBe('Ada Admin cleared the saved signature and initials of Sid Signer.');

    const again = await api('POST', `/api/admin/users/${person.id}/reset-signature`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'Sid Signer has no saved signature or initials to clear.' });
  });
});

describe('the rules that keep an administrator in charge', () => {
  let roster: TestApp;
  beforeAll(async () => {
    // A database of its own, so the number of active administrators is known; cached sessions live long enough to test a stale one.
    roster = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', SESSION_CACHE_SECONDS: '300' });
  });
  afterAll(async () => roster?.close());

  const activeAdmins = async () =>
    (
      await roster.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.status, 'active'), sql`'admin' = any(${users.roles})`))
    ).map((row) => row.id);

  it('refuses an administrator deactivating themselves or dropping their own administrator role', async () => {
    const self = await roster.createUser({ roles: ['admin'], name: 'Self Admin' });
    await roster.createUser({ roles: ['admin'], name: 'Other Admin' });
    for (const [method, url, payload] of [
      ['DELETE', `/api/admin/users/${self.id}`, undefined],
      ['PUT', `/api/admin/users/${self.id}`, { status: 'disabled' }],
    ] as const) {
      const res = await call(roster, self, method, url, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'conflict', message: 'You cannot deactivate your own account; ask another administrator.' });
    }
    const own = await call(roster, self, 'DELETE', `/api/admin/users/${self.id}/roles/admin`);
    expect(own.statusCode).toBe(409);
    expect(own.json()).toEqual({ error: 'conflict', message: 'You cannot remove your own administrator role; ask another administrator.' });
    expect(await activeAdmins()).toContain(self.id);
  });

  it('refuses to deactivate or demote the last active administrator, even when the caller’s own rights ended a moment ago', async () => {
    await roster.db
      .update(users)
      .set({ roles: ['signer'] })
      .where(sql`'admin' = any(${users.roles})`);
    const caller = await roster.createUser({ roles: ['admin'], name: 'Caller Admin' });
    const last = await roster.createUser({ roles: ['admin'], name: 'Last Admin' });
    expect((await call(roster, caller, 'GET', `/api/admin/users/${last.id}`)).statusCode).toBe(200);
    // Another instance took the caller's role; this one still holds the caller's session in its cache.
    await roster.db
      .update(users)
      .set({ roles: ['signer'] })
      .where(eq(users.id, caller.id));

    const message = 'Last Admin is the last active administrator; give another person the administrator role first.';
    for (const [method, url, payload] of [
      ['DELETE', `/api/admin/users/${last.id}`, undefined],
      ['PUT', `/api/admin/users/${last.id}`, { status: 'disabled' }],
      ['DELETE', `/api/admin/users/${last.id}/roles/admin`, undefined],
    ] as const) {
      const res = await call(roster, caller, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(409);
      expect(res.json()).toEqual({ error: 'conflict', message });
    }
    expect(await activeAdmins()).toEqual([last.id]);
  });

  it('keeps one administrator when two remove each other at the same moment', async () => {
    await roster.db
      .update(users)
      .set({ roles: ['signer'] })
      .where(sql`'admin' = any(${users.roles})`);
    const first = await roster.createUser({ roles: ['admin', 'signer'] });
    const second = await roster.createUser({ roles: ['admin', 'signer'] });
    const firstHeaders = await roster.headersFor(first);
    const secondHeaders = await roster.headersFor(second);
    // Both requests pass the guard, then wait on the two rows held here, and go on together once they are let go.
    const { racing } = await roster.db.transaction(async (tx) => {
      await tx
        .select({ id: users.id })
        .from(users)
        .where(inArray(users.id, [first.id, second.id]))
        .for('update');
      const started = Promise.all([
        roster.app.inject({ method: 'DELETE', url: `/api/admin/users/${second.id}/roles/admin`, headers: firstHeaders }),
        roster.app.inject({ method: 'DELETE', url: `/api/admin/users/${first.id}/roles/admin`, headers: secondHeaders }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { racing: started };
    });
    const answers = await racing;
    console.log(
      'DEBUG',
      answers.map((res) => `${res.statusCode} ${res.body}`),
    );
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(1);
    expect(answers.every((res) => res.statusCode < 500)).toBe(true);
    expect(await activeAdmins()).toHaveLength(1);
  });

  it('lets an administrator deactivate and demote another while one active administrator remains', async () => {
    await roster.db
      .update(users)
      .set({ roles: ['signer'] })
      .where(sql`'admin' = any(${users.roles})`);
    const boss = await roster.createUser({ roles: ['admin'] });
    const deputy = await roster.createUser({ roles: ['admin', 'signer'], name: 'Deputy Admin' });
    const deputyHeaders = await roster.signInAs(deputy);
    const demoted = await call(roster, boss, 'DELETE', `/api/admin/users/${deputy.id}/roles/admin`);
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect((await roster.app.inject({ method: 'GET', url: '/api/admin/users', headers: deputyHeaders })).statusCode).toBe(403);
    const deactivated = await call(roster, boss, 'DELETE', `/api/admin/users/${deputy.id}`);
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect(await activeAdmins()).toEqual([boss.id]);
  });
});
