import { randomUUID } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { jobParticipants, rateLimits, titleCompanies, users } from '#server/db/schema/index.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterAll(async () => t?.close());

const unique = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;
const newCompanyInput = (overrides: Record<string, unknown> = {}) => ({ name: unique('Acme Title'), city: 'Richmond', state: 'VA', ...overrides });
const me = async (user: TestUser) => (await kit.call(user, 'GET', '/api/auth/me')).json().user;

async function createJobAs(user: TestUser, payload: Record<string, unknown> = {}) {
  const res = await kit.call(user, 'POST', '/api/jobs', { title: 'Deed of trust', notarizationType: 'acknowledgment', ...payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; notaryId: string | null; companyId: string | null };
}

describe('POST /api/title-companies: an administrator creates a company', () => {
  it('creates an approved company with its facts and invites its first title staff member by email', async () => {
    const input = newCompanyInput({
      addressLine: '1 Main Street',
      phone: '804 555 0100',
      contactEmail: 'Desk@Acme.example',
      owner: { name: 'Olive Owner', email: 'olive@acme.example' },
    });
    const res = await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', input), 201);
    const company = res.json();
    expect(company).toEqual({
      id: expect.any(String),
      name: input.name,
      status: 'approved',
      city: 'Richmond',
      state: 'VA',
      addressLine: '1 Main Street',
      phone: '804 555 0100',
      contactEmail: 'desk@acme.example',
      defaultNotary: null,
      agentsSeePrices: false,
      memberCount: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      approvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      closedAt: null,
      permissions: { canEdit: true, canManageAgents: true, canClose: true },
    });
    const [mail] = await kit.mailTo('olive@acme.example', 'company_member_invite');
    expect(mail?.subject).toBe(`Join ${input.name} on Open RON`);
    expect(mail?.textBody).toContain('Hello Olive Owner,');
    expect(mail?.textBody).toContain(`Ada Admin invited you to join ${input.name} on Open RON as title staff`);
    const summary = await t.app.inject({ method: 'GET', url: `/api/invites/${await kit.invitationTokenFor('olive@acme.example')}` });
    expect(summary.json()).toMatchObject({
      purpose: 'company_member',
      roles: ['title'],
      email: 'olive@acme.example',
      companyId: company.id,
      companyName: input.name,
      hasAccount: false,
    });
    const [created] = await kit.auditOf('title_company.created', company.id);
    expect(created).toMatchObject({
      actorId: admin.id,
      data: { companyName: input.name, ownerEmail: 'olive@acme.example', after: { city: 'Richmond', state: 'VA' } },
    });
    const [invited] = await kit.auditOf('title_company.member_invited', company.id);
    expect(invited).toMatchObject({ actorId: admin.id, data: { name: 'Olive Owner', email: 'olive@acme.example', role: 'title' } });
  });

  it('answers 409 with a sentence for a name already working in that state, in any case, and allows it in another state', async () => {
    const name = unique('Liberty Title');
    await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', newCompanyInput({ name })), 201);
    const res = await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', newCompanyInput({ name: name.toUpperCase() })), 409);
    expect(res.json()).toEqual({ error: 'conflict', message: `A title company named “${name.toUpperCase()}” already works in Virginia. Choose another name.` });
    await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', newCompanyInput({ name, state: 'MD' })), 201);
  });

  it.each([
    ['no city', { city: '' }, 'Enter the city.'],
    ['a state that is not one', { state: 'XX' }, 'Choose a US state.'],
    ['a blank name', { name: '  ' }, 'Enter the company name.'],
    ['an owner without a valid email', { owner: { name: 'Olive', email: 'not-an-email' } }, 'Enter a valid email address.'],
  ])('answers 400 with a sentence for %s and creates nothing', async (_case, overrides, message) => {
    const input = newCompanyInput(overrides);
    const res = await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', input), 400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    expect(
      await t.db
        .select()
        .from(titleCompanies)
        .where(eq(titleCompanies.name, String(input.name).trim())),
    ).toEqual([]);
  });

  it('refuses every role but admin, and anonymous callers', async () => {
    const company = await kit.createCompany();
    for (const [role, user] of await kit.onePerRole(['signer', 'notary', 'title', 'title_agent', 'billing', 'finance', 'observer'])) {
      const res = await kit.call(user, 'POST', '/api/title-companies', newCompanyInput());
      expect(res.statusCode, role).toBe(403);
    }
    expect((await kit.call(company.staff, 'POST', '/api/title-companies', newCompanyInput())).statusCode).toBe(403);
    expect((await kit.call(null, 'POST', '/api/title-companies', newCompanyInput())).statusCode).toBe(401);
  });
});

describe('GET /api/title-companies: the administrators’ list', () => {
  it('filters by status, closed included, and searches by name, city or state, a page at a time', async () => {
    const word = randomUUID().slice(0, 6);
    const open = await kit.createCompany({ name: `Harbor ${word} Title`, city: 'Norfolk', state: 'VA' });
    const closed = await kit.createCompany({ name: `Summit ${word} Title`, city: 'Baltimore', state: 'MD' });
    const [pending] = await t.db
      .insert(titleCompanies)
      .values({ name: `Pending ${word} Title`, city: 'Austin', state: 'TX' })
      .returning();
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${closed.id}`), 200);
    const list = async (query: string) => {
      const res = await kit.expectStatus(kit.call(admin, 'GET', `/api/title-companies?q=${word}&${query}`), 200);
      return res.json() as { items: Array<{ id: string; status: string }>; total: number; page: number; pageSize: number };
    };
    expect((await list('')).items.map((item) => item.id)).toEqual([pending?.id, closed.id, open.id]);
    expect((await list('status=closed')).items).toEqual([expect.objectContaining({ id: closed.id, status: 'closed', closedAt: expect.any(String) })]);
    expect((await list('status=approved')).items.map((item) => item.id)).toEqual([open.id]);
    expect((await list('status=pending')).items.map((item) => item.id)).toEqual([pending?.id]);
    const byCity = await kit.expectStatus(kit.call(admin, 'GET', `/api/title-companies?q=${word}%20norfolk`), 200);
    expect(byCity.json().items.map((item: { id: string }) => item.id)).toEqual([open.id]);
    const byState = await kit.expectStatus(kit.call(admin, 'GET', `/api/title-companies?q=${word}%20maryland`), 200);
    expect(byState.json().items.map((item: { id: string }) => item.id)).toEqual([closed.id]);
    const page = await list('pageSize=2&page=2');
    expect(page).toMatchObject({ total: 3, page: 2, pageSize: 2, items: [{ id: open.id }] });
    expect((await list('status=approved')).items[0]).toMatchObject({ memberCount: 2, permissions: { canEdit: true, canClose: true } });
  });

  it('answers 400 with a sentence for an unknown status, and 403 to anyone but an admin', async () => {
    const res = await kit.expectStatus(kit.call(admin, 'GET', '/api/title-companies?status=open'), 400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Choose pending, approved, rejected or closed.' });
    const company = await kit.createCompany();
    expect((await kit.call(company.staff, 'GET', '/api/title-companies')).statusCode).toBe(403);
    expect((await kit.call(null, 'GET', '/api/title-companies')).statusCode).toBe(401);
  });
});

describe('GET and PUT /api/title-companies/{id}', () => {
  it('shows a company to its title staff as theirs to manage, to its agents read-only, and to no one else', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const staffView = await kit.expectStatus(kit.call(company.staff, 'GET', `/api/title-companies/${company.id}`), 200);
    expect(staffView.json()).toMatchObject({
      id: company.id,
      name: company.name,
      status: 'approved',
      memberCount: 2,
      permissions: { canEdit: true, canManageAgents: true, canClose: false },
    });
    const agentView = await kit.expectStatus(kit.call(company.agent, 'GET', `/api/title-companies/${company.id}`), 200);
    expect(agentView.json().permissions).toEqual({ canEdit: false, canManageAgents: false, canClose: false });
    for (const outsider of [other.staff, other.agent]) {
      const res = await kit.expectStatus(kit.call(outsider, 'GET', `/api/title-companies/${company.id}`), 404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'No title company with that id, or you may not see it.' });
    }
    for (const [role, user] of await kit.onePerRole(['signer', 'notary', 'billing', 'finance', 'observer'])) {
      expect((await kit.call(user, 'GET', `/api/title-companies/${company.id}`)).statusCode, role).toBe(403);
    }
    expect((await kit.call(admin, 'GET', `/api/title-companies/${randomUUID()}`)).statusCode).toBe(404);
    const malformed = await kit.expectStatus(kit.call(admin, 'GET', '/api/title-companies/acme'), 400);
    expect(malformed.json()).toMatchObject({ message: 'Title company id must be a UUID.' });
  });

  it('lets its title staff change its facts, records before and after, and clears a field with an empty string', async () => {
    const company = await kit.createCompany();
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { phone: '804 555 0199', city: 'Norfolk' }), 200);
    const res = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { phone: '' }), 200);
    expect(res.json()).toMatchObject({ city: 'Norfolk', phone: null });
    const events = await kit.auditOf('title_company.updated', company.id);
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({ fields: ['city', 'phone'], before: { city: 'Richmond', phone: null }, after: { city: 'Norfolk', phone: '804 555 0199' } }),
      expect.objectContaining({ fields: ['phone'], before: { phone: '804 555 0199' }, after: { phone: null } }),
    ]);
    expect(events[0]?.actorId).toBe(company.staff.id);
  });

  it('refuses an agent (403), another company’s staff (404) and the other roles (403), and changes nothing', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    expect((await kit.call(company.agent, 'PUT', `/api/title-companies/${company.id}`, { city: 'Nowhere' })).statusCode).toBe(403);
    // Title staff of another company who are only an agent here manage nothing here either.
    await kit.addMember(company.id, other.staff, 'title_agent');
    const agent = await kit.expectStatus(kit.call(other.staff, 'PUT', `/api/title-companies/${company.id}`, { city: 'Nowhere' }), 403);
    expect(agent.json()).toEqual({ error: 'forbidden', message: 'Only the company’s title staff or an administrator may change this.' });
    const outsider = await kit.createCompany();
    expect((await kit.call(outsider.staff, 'PUT', `/api/title-companies/${company.id}`, { city: 'Nowhere' })).statusCode).toBe(404);
    for (const [role, user] of await kit.onePerRole(['signer', 'notary', 'title_agent', 'billing', 'finance', 'observer'])) {
      expect((await kit.call(user, 'PUT', `/api/title-companies/${company.id}`, { city: 'Nowhere' })).statusCode, role).toBe(403);
    }
    expect((await kit.call(null, 'PUT', `/api/title-companies/${company.id}`, { city: 'Nowhere' })).statusCode).toBe(401);
    expect((await kit.call(admin, 'GET', `/api/title-companies/${company.id}`)).json().city).toBe('Richmond');
  });

  it('answers 400 with a sentence for nothing to change, and 409 for a name another company of the state has', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const empty = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, {}), 400);
    expect(empty.json()).toMatchObject({ error: 'validation_failed', message: 'Nothing to change.' });
    const taken = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { name: other.name.toLowerCase() }), 409);
    expect(taken.json()).toEqual({
      error: 'conflict',
      message: `A title company named “${other.name.toLowerCase()}” already works in Virginia. Choose another name.`,
    });
  });

  it('sets an approved, active notary as the default notary, shows it to agents, and clears it with null', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t, { name: 'Nora Notary', county: 'Henrico' });
    const res = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id }), 200);
    const option = { userId: notary.id, name: 'Nora Notary', commissionState: 'VA', county: 'Henrico' };
    expect(res.json().defaultNotary).toEqual(option);
    const seen = await kit.expectStatus(kit.call(company.agent, 'GET', `/api/title-companies/${company.id}/default-notary`), 200);
    expect(seen.json()).toEqual({ notary: option });
    const [event] = await kit.auditOf('title_company.updated', company.id);
    expect(event?.data).toMatchObject({
      fields: ['default notary'],
      before: { defaultNotaryId: null },
      after: { defaultNotaryId: notary.id },
      defaultNotaryName: 'Nora Notary',
    });
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: null }), 200);
    expect((await kit.call(company.agent, 'GET', `/api/title-companies/${company.id}/default-notary`)).json()).toEqual({ notary: null });
  });

  it('refuses as default notary anyone who cannot take work, with a 400 sentence', async () => {
    const company = await kit.createCompany();
    const pending = await createNotary(t, { name: 'Pat Pending', approvalStatus: 'pending' });
    const inactive = await createNotary(t, { name: 'Ivan Inactive', isActive: false });
    const disabled = await createNotary(t, { name: 'Dora Disabled', status: 'disabled' });
    const expired = await createNotary(t, { name: 'Eve Expired', commissionExpiresOn: '2020-01-31' });
    const signer = await t.createUser({ roles: ['signer'] });
    const cases: Array<[string, string]> = [
      [pending.id, 'Pat Pending is not an approved notary yet. Choose another default notary.'],
      [inactive.id, 'Ivan Inactive is deactivated and takes no new work. Choose another default notary.'],
      [disabled.id, 'Dora Disabled is deactivated and takes no new work. Choose another default notary.'],
      [expired.id, 'Eve Expired’s notary commission expired on 2020-01-31. Choose another default notary.'],
      [signer.id, 'Choose an approved, active notary as the default notary.'],
      [randomUUID(), 'Choose an approved, active notary as the default notary.'],
    ];
    for (const [defaultNotaryId, message] of cases) {
      const res = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId }), 400);
      expect(res.json()).toEqual({ error: 'bad_request', message });
    }
    expect((await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}/default-notary`)).json()).toEqual({ notary: null });
    // A notary who loses the notary role is no notary, whatever the profile says.
    const former = await createNotary(t);
    await t.db
      .update(users)
      .set({ roles: ['signer'] })
      .where(eq(users.id, former.id));
    const res = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: former.id }), 400);
    expect(res.json().message).toBe('Choose an approved, active notary as the default notary.');
  });
});

describe('a new job and the company’s default notary', () => {
  it('gets the default notary when its creator works for the company and names none, and none when they send null', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t);
    await kit.expectStatus(kit.call(admin, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id }), 200);
    const job = await createJobAs(company.agent);
    expect(job).toMatchObject({ companyId: company.id, notaryId: notary.id });
    expect((await createJobAs(company.agent, { notaryId: null })).notaryId).toBeNull();
    const chosen = await createNotary(t);
    expect((await createJobAs(company.staff, { notaryId: chosen.id })).notaryId).toBe(chosen.id);
    // Someone outside the company gets no company and no default notary.
    expect(await createJobAs(await t.createUser({ roles: ['signer'] }))).toMatchObject({ companyId: null, notaryId: null });
    // The default notary sees the job as any assigned notary does.
    expect((await kit.call(notary, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
  });
});

describe('DELETE /api/title-companies/{id}: closing a company', () => {
  it('takes the company from its members at once while its jobs stay readable to admins, the notary and participants', async () => {
    const company = await kit.createCompany();
    const elsewhere = await kit.createCompany();
    const both = await t.createUser({ roles: ['title_agent'], name: 'Bo Both' });
    await kit.addMember(company.id, both, 'title_agent');
    await kit.addMember(elsewhere.id, both, 'title_agent');
    const notary = await createNotary(t);
    const job = await createJobAs(company.agent, { notaryId: notary.id });
    const signer = await t.createUser({ roles: ['signer'] });
    await t.db.insert(jobParticipants).values({ jobId: job.id, userId: signer.id, name: 'Sam Signer', email: signer.email, role: 'signer' });
    await kit.expectStatus(
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Ivy Invitee', email: 'ivy@close.example' }),
      201,
    );
    const token = await kit.invitationTokenFor('ivy@close.example');
    for (const member of [company.staff, company.agent, both]) expect((await kit.call(member, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);

    const res = await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    expect(res.json()).toEqual({
      ok: true,
      message: `${company.name} is closed: its 3 members lost access to it. Its jobs stay readable to administrators and the jobs’ participants.`,
    });
    // Every member, the job's creator too, loses the job and the company at once.
    for (const member of [company.staff, company.agent, both]) {
      expect((await kit.call(member, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
      expect((await kit.call(member, 'GET', '/api/jobs')).json().items.map((item: { id: string }) => item.id)).not.toContain(job.id);
    }
    // Without a company role the company's routes are closed to them; with one (another company's) the company is not found.
    expect((await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}`)).statusCode).toBe(403);
    expect((await kit.call(both, 'GET', `/api/title-companies/${company.id}`)).statusCode).toBe(404);
    for (const reader of [admin, notary, signer]) expect((await kit.call(reader, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
    // Members of no other company lose the company roles; one who works elsewhere keeps them and that company.
    expect(await me(company.staff)).toMatchObject({ roles: ['signer'] });
    expect(await me(company.agent)).toMatchObject({ roles: ['signer'] });
    expect(await me(both)).toMatchObject({ roles: ['title_agent'] });
    expect((await kit.call(both, 'GET', '/api/title-companies/mine')).json()).toEqual({
      items: [{ id: elsewhere.id, name: elsewhere.name, role: 'title_agent' }],
    });
    // The invitation no longer works.
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).statusCode).toBe(404);
    // The company is kept, closed, and the administrators see it so.
    expect((await kit.call(admin, 'GET', `/api/title-companies/${company.id}`)).json()).toMatchObject({
      status: 'closed',
      closedAt: expect.any(String),
      memberCount: 0,
      permissions: { canEdit: false, canManageAgents: false, canClose: false },
    });
    const [event] = await kit.auditOf('title_company.closed', company.id);
    expect(event).toMatchObject({
      actorId: admin.id,
      data: {
        companyName: company.name,
        revokedInvitationCount: 1,
        members: expect.arrayContaining([
          expect.objectContaining({ userId: company.staff.id, email: company.staff.email, role: 'title' }),
          expect.objectContaining({ userId: company.agent.id, role: 'title_agent' }),
          expect.objectContaining({ userId: both.id, role: 'title_agent' }),
        ]),
      },
    });
  });

  it('answers 409 when already closed, refuses changes to a closed company, and frees its name', async () => {
    const company = await kit.createCompany();
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    const again = await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 409);
    expect(again.json()).toEqual({ error: 'already_closed', message: `${company.name} is already closed.` });
    const edit = await kit.expectStatus(kit.call(admin, 'PUT', `/api/title-companies/${company.id}`, { city: 'Norfolk' }), 409);
    expect(edit.json()).toEqual({ error: 'company_closed', message: `${company.name} is closed; it can no longer be changed.` });
    await kit.expectStatus(kit.call(admin, 'POST', '/api/title-companies', newCompanyInput({ name: company.name })), 201);
  });

  it('closes an application too: it leaves the waiting list and can no longer be approved or rejected', async () => {
    const [application] = await t.db
      .insert(titleCompanies)
      .values({ name: unique('Applicant Title'), state: 'VA' })
      .returning();
    const id = application?.id ?? '';
    const res = await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${id}`), 200);
    expect(res.json().message).toBe(`${application?.name} is closed: it had no members. Its jobs stay readable to administrators and the jobs’ participants.`);
    expect((await kit.call(admin, 'GET', '/api/title-companies/pending')).json().items.map((item: { id: string }) => item.id)).not.toContain(id);
    for (const [path, payload] of [
      ['approve', undefined],
      ['reject', { reason: 'Too late.' }],
    ] as const) {
      const decided = await kit.expectStatus(kit.call(admin, 'POST', `/api/title-companies/${id}/${path}`, payload), 409);
      expect(decided.json()).toEqual({ error: 'already_closed', message: `${application?.name} is closed; it can no longer be approved or rejected.` });
    }
  });

  it('is for administrators only; its own title staff get 403 and nothing changes', async () => {
    const company = await kit.createCompany();
    for (const user of [
      company.staff,
      company.agent,
      ...(await kit.onePerRole(['signer', 'notary', 'billing', 'finance', 'observer'])).map(([, user]) => user),
    ]) {
      expect((await kit.call(user, 'DELETE', `/api/title-companies/${company.id}`)).statusCode).toBe(403);
    }
    expect((await kit.call(null, 'DELETE', `/api/title-companies/${company.id}`)).statusCode).toBe(401);
    expect((await kit.call(admin, 'DELETE', `/api/title-companies/${randomUUID()}`)).statusCode).toBe(404);
    expect((await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}`)).json().status).toBe('approved');
  });
});

describe('GET /api/title-companies/mine', () => {
  it('lists the open companies the caller works for, with their role, and nothing for others', async () => {
    const first = await kit.createCompany({ name: unique('Alpha Title') });
    const second = await kit.createCompany({ name: unique('Beta Title') });
    await kit.addMember(second.id, first.staff, 'title_agent');
    const res = await kit.expectStatus(kit.call(first.staff, 'GET', '/api/title-companies/mine'), 200);
    expect(res.json()).toEqual({
      items: [
        { id: first.id, name: first.name, role: 'title' },
        { id: second.id, name: second.name, role: 'title_agent' },
      ],
    });
    expect((await kit.call(await t.createUser({ roles: ['signer'] }), 'GET', '/api/title-companies/mine')).json()).toEqual({ items: [] });
    expect((await kit.call(null, 'GET', '/api/title-companies/mine')).statusCode).toBe(401);
  });
});

describe('searching companies', () => {
  it('finds approved, open companies by name, city or state for signed-in staff of any elevated role, a page at a time', async () => {
    const word = randomUUID().slice(0, 6);
    const found = await kit.createCompany({ name: `Oak ${word} Title`, city: 'Fairfax' });
    const closed = await kit.createCompany({ name: `Elm ${word} Title` });
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${closed.id}`), 200);
    await t.db.insert(titleCompanies).values([
      { name: `Pending ${word} Title`, state: 'VA' },
      { name: `Rejected ${word} Title`, state: 'VA', approvalStatus: 'rejected' },
    ]);
    const roles: Role[] = ['admin', 'notary', 'title', 'title_agent', 'billing', 'finance', 'observer'];
    for (const [role, user] of await kit.onePerRole(roles)) {
      const res = await kit.expectStatus(kit.call(user, 'GET', `/api/title-companies/search?q=${word}`), 200);
      expect(res.json(), role).toEqual({ items: [{ id: found.id, name: found.name, city: 'Fairfax', state: 'VA' }], total: 1, page: 1, pageSize: 20 });
    }
    const byCity = await kit.call(admin, 'GET', `/api/title-companies/search?q=${word}%20fairfax&pageSize=5`);
    expect(byCity.json()).toMatchObject({ total: 1, pageSize: 5 });
    expect((await kit.call(await t.createUser({ roles: ['signer'] }), 'GET', '/api/title-companies/search?q=x')).statusCode).toBe(403);
    expect((await kit.call(null, 'GET', '/api/title-companies/search?q=x')).statusCode).toBe(401);
    const tooBig = await kit.expectStatus(kit.call(admin, 'GET', '/api/title-companies/search?pageSize=500'), 400);
    expect(tooBig.json().message).toBe('Ask for at most 100 at a time.');
  });

  it('answers anyone on the public search with only the name, city and state of approved, open companies, at most 20', async () => {
    // Letters only: a word with digits ("c5079b") would itself match the narrow search for "07" below.
    const word = randomUUID()
      .slice(0, 6)
      .replace(/\d/g, (digit) => 'ghijklmnop'[Number(digit)] ?? 'g');
    const names = Array.from({ length: 22 }, (_, index) => `Public ${word} Title ${String(index).padStart(2, '0')}`);
    await t.db.insert(titleCompanies).values(names.map((name) => ({ name, city: 'Roanoke', state: 'VA', approvalStatus: 'approved' as const })));
    const closed = await kit.createCompany({ name: `Public ${word} Closed`, city: 'Roanoke' });
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${closed.id}`), 200);
    await t.db.insert(titleCompanies).values({ name: `Public ${word} Pending`, city: 'Roanoke', state: 'VA' });
    const res = await t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${word}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ items: names.slice(0, 20).map((name) => ({ name, city: 'Roanoke', state: 'VA' })) });
    const narrow = await t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${encodeURIComponent(`${word} 07`)}` });
    expect(narrow.json()).toEqual({ items: [{ name: names[7], city: 'Roanoke', state: 'VA' }] });
    const bad = await t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${'x'.repeat(101)}` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'Search with at most 100 characters.' });
  });
});

describe('GET /api/notary/{id}/title-companies', () => {
  it('lists the companies that made the notary their default and those they worked for, but no closed one', async () => {
    const notary = await createNotary(t);
    const chosenBy = await kit.createCompany({ name: unique('Chosen Title') });
    const workedFor = await kit.createCompany({ name: unique('Worked Title') });
    const closed = await kit.createCompany({ name: unique('Closed Title') });
    await kit.expectStatus(kit.call(admin, 'PUT', `/api/title-companies/${chosenBy.id}`, { defaultNotaryId: notary.id }), 200);
    await createJobAs(workedFor.agent, { notaryId: notary.id });
    await createJobAs(closed.agent, { notaryId: notary.id });
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${closed.id}`), 200);
    const res = await kit.expectStatus(kit.call(admin, 'GET', `/api/notary/${notary.id}/title-companies`), 200);
    expect(res.json()).toEqual({
      items: [
        { id: workedFor.id, name: workedFor.name, jobCount: 1, lastJobAt: expect.any(String) },
        { id: chosenBy.id, name: chosenBy.name, jobCount: 0, lastJobAt: null },
      ],
    });
  });
});

describe('the public search’s rate limit', () => {
  it('answers 429 with a sentence after 30 searches a minute from one network', async () => {
    // The window starts with this test, whatever the searches above counted.
    await t.db.delete(rateLimits).where(like(rateLimits.key, 'company-search:%'));
    const statuses: number[] = [];
    for (let index = 0; index < 32; index += 1)
      statuses.push((await t.app.inject({ method: 'GET', url: '/api/title-companies/search/public?q=x' })).statusCode);
    expect(statuses).toEqual([...Array.from({ length: 30 }, () => 200), 429, 429]);
    const res = await t.app.inject({ method: 'GET', url: '/api/title-companies/search/public?q=x' });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many title company searches from this network\. Please wait \d+ seconds and try again\.$/),
    });
  });
});
