import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { titleCompanies } from '#server/db/schema/index.ts';
import { userChannel } from '#server/features/jobs/access-change.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' });
  kit = createCompanyKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterAll(async () => t?.close());

const address = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;
const me = async (user: TestUser) => (await kit.call(user, 'GET', '/api/auth/me')).json().user;
const invite = (by: TestUser, company: TestCompany, payload: Record<string, unknown>) =>
  kit.call(by, 'POST', `/api/title-companies/${company.id}/agents`, payload);
const agentsOf = async (company: TestCompany, by: TestUser = company.staff) =>
  (await kit.expectStatus(kit.call(by, 'GET', `/api/title-companies/${company.id}/agents`), 200)).json().items as Array<Record<string, unknown>>;

async function createJobAs(user: TestUser) {
  const res = await kit.call(user, 'POST', '/api/jobs', { title: 'Deed of trust', notarizationType: 'acknowledgment' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; companyId: string | null };
}

/** The messages one person's open tabs receive from now on. */
async function listenTo(userId: string) {
  const messages: string[] = [];
  const stop = await t.realtime.subscribe(userChannel(userId), (message) => messages.push(message));
  return { messages, stop };
}

describe('inviting a new person as an agent', () => {
  it('emails a link that creates their account in the company, with the company’s jobs', async () => {
    const company = await kit.createCompany();
    const job = await createJobAs(company.staff);
    const email = address('new-agent');
    const res = await kit.expectStatus(invite(company.staff, company, { name: 'Nia New', email: email.toUpperCase() }), 201);
    expect(res.json()).toEqual({
      agent: {
        id: expect.any(String),
        userId: null,
        name: 'Nia New',
        email,
        role: 'title_agent',
        status: 'invited',
        since: expect.any(String),
        expiresAt: expect.any(String),
      },
      message: `We emailed ${email} an invitation to join ${company.name} as an agent.`,
    });
    const invitationId = res.json().agent.id as string;
    expect(await agentsOf(company)).toContainEqual(expect.objectContaining({ id: invitationId, status: 'invited', name: 'Nia New' }));
    const [mail] = await kit.mailTo(email, 'company_member_invite');
    expect(mail?.textBody).toContain(`${company.staff.name} invited you to join ${company.name} on Open RON as an agent`);
    expect(mail?.textBody).toContain('Open this link to create your account and join');
    const token = await kit.invitationTokenFor(email);
    const summary = await t.app.inject({ method: 'GET', url: `/api/invites/${token}` });
    expect(summary.json()).toEqual({
      purpose: 'company_member',
      roles: ['title_agent'],
      email,
      expiresAt: expect.any(String),
      jobId: null,
      jobTitle: null,
      companyId: company.id,
      companyName: company.name,
      hasAccount: false,
    });

    const claimed = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Nia New', email, password: 'a long agent password' },
    });
    expect(claimed.statusCode, claimed.body).toBe(201);
    expect(claimed.json().user).toMatchObject({ email, roles: ['title_agent'], status: 'active', emailVerified: true });
    const nia: TestUser = { id: claimed.json().user.id, name: 'Nia New', email, password: 'a long agent password', roles: ['title_agent'] };
    expect((await kit.call(nia, 'GET', '/api/title-companies/mine')).json()).toEqual({ items: [{ id: company.id, name: company.name, role: 'title_agent' }] });
    expect((await kit.call(nia, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
    const agents = await agentsOf(company);
    expect(agents.find((agent) => agent.id === invitationId)).toBeUndefined();
    expect(agents).toContainEqual({
      id: expect.any(String),
      userId: nia.id,
      name: 'Nia New',
      email,
      role: 'title_agent',
      status: 'active',
      since: expect.any(String),
      expiresAt: null,
    });
    const [joined] = await kit.auditOf('title_company.member_joined', company.id);
    expect(joined).toMatchObject({ actorId: nia.id, data: { userId: nia.id, role: 'title_agent', companyName: company.name } });
    // The link works once.
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).statusCode).toBe(404);
  });

  it('lets an administrator invite title staff, who then manage the company', async () => {
    const company = await kit.createCompany();
    const email = address('new-staff');
    const res = await kit.expectStatus(invite(admin, company, { name: 'Sol Staff', email, role: 'title' }), 201);
    expect(res.json().message).toBe(`We emailed ${email} an invitation to join ${company.name} as title staff.`);
    const token = await kit.invitationTokenFor(email);
    const claimed = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Sol Staff', email, password: 'a long staff password' },
    });
    expect(claimed.statusCode, claimed.body).toBe(201);
    const sol: TestUser = { id: claimed.json().user.id, name: 'Sol Staff', email, password: 'a long staff password', roles: ['title'] };
    expect((await kit.call(sol, 'GET', `/api/title-companies/${company.id}`)).json().permissions).toMatchObject({ canEdit: true, canManageAgents: true });
  });

  it('refuses title staff inviting title staff (403), and changes nothing', async () => {
    const company = await kit.createCompany();
    const email = address('would-be-staff');
    const res = await kit.expectStatus(invite(company.staff, company, { name: 'Wes', email, role: 'title' }), 403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'Only an administrator may invite title staff; invite them as an agent.' });
    expect(await kit.mailTo(email, 'company_member_invite')).toEqual([]);
  });
});

describe('inviting a person who already has an account', () => {
  it('emails a link they accept while signed in: they gain the role, the company and its jobs, and their tabs are told', async () => {
    const company = await kit.createCompany();
    const job = await createJobAs(company.agent);
    const signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
    await kit.expectStatus(invite(company.staff, company, { name: 'Sam Signer', email: signer.email }), 201);
    expect((await agentsOf(company)).find((agent) => agent.email === signer.email)).toMatchObject({ userId: null, status: 'invited' });
    const [mail] = await kit.mailTo(signer.email, 'company_member_invite');
    expect(mail?.textBody).toContain('You already have an Open RON account with this email address: sign in with it, then open this link to accept');
    const token = await kit.invitationTokenFor(signer.email);
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).json()).toMatchObject({ hasAccount: true, companyName: company.name });
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/invites/${token}/claim`,
      payload: { name: 'Sam', email: signer.email, password: 'another long password' },
    });
    expect(claim.statusCode).toBe(409);
    expect(claim.json()).toEqual({ error: 'conflict', message: 'An account with this email already exists. Sign in instead.' });

    const stranger = await t.createUser({ roles: ['signer'] });
    const wrong = await kit.expectStatus(kit.call(stranger, 'POST', `/api/invites/${token}/accept`), 403);
    expect(wrong.json()).toEqual({
      error: 'invite_email_mismatch',
      message: 'This invitation was sent to a different email address. Sign in with that account to accept it.',
    });
    expect((await kit.call(null, 'POST', `/api/invites/${token}/accept`)).statusCode).toBe(401);

    expect((await kit.call(signer, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    const tabs = await listenTo(signer.id);
    const accepted = await kit.expectStatus(kit.call(signer, 'POST', `/api/invites/${token}/accept`), 200);
    expect(accepted.json()).toEqual({ jobId: null, companyId: company.id });
    await vi.waitFor(() => expect(tabs.messages).toEqual([JSON.stringify({ type: 'access-changed' })]));
    await tabs.stop();
    expect((await me(signer)).roles).toEqual(['signer', 'title_agent']);
    expect((await kit.call(signer, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
    expect((await kit.call(signer, 'GET', '/api/title-companies/mine')).json().items).toEqual([{ id: company.id, name: company.name, role: 'title_agent' }]);
    // Tapping again after a lost answer finds them in the company.
    expect((await kit.expectStatus(kit.call(signer, 'POST', `/api/invites/${token}/accept`), 200)).json()).toEqual({ jobId: null, companyId: company.id });
    expect(await kit.auditOf('title_company.member_joined', company.id)).toHaveLength(1);
  });
});

describe('what an invitation refuses', () => {
  it('answers 409 with a sentence for a member of the company and for an invitation already waiting', async () => {
    const company = await kit.createCompany();
    const member = await kit.expectStatus(invite(company.staff, company, { name: 'Again', email: company.agent.email }), 409);
    expect(member.json()).toEqual({ error: 'conflict', message: `${company.agent.name} (${company.agent.email}) is already a member of ${company.name}.` });
    const email = address('twice');
    const first = await kit.expectStatus(invite(company.staff, company, { name: 'Twice', email }), 201);
    const second = await kit.expectStatus(invite(admin, company, { name: 'Twice', email }), 409);
    expect(second.json()).toEqual({
      error: 'conflict',
      message: `An invitation for ${email} to join ${company.name} is already waiting. Withdraw it first to send a new one.`,
    });
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${first.json().agent.id}`), 200);
    await kit.expectStatus(invite(company.staff, company, { name: 'Twice', email }), 201);
    // Another company may invite the same person.
    const other = await kit.createCompany();
    await kit.expectStatus(invite(other.staff, other, { name: 'Twice', email }), 201);
  });

  it.each([
    ['a bad email', { name: 'Bo', email: 'not-an-email' }, 'Enter a valid email address.'],
    ['no name', { name: '', email: 'bo@example.test' }, 'Enter your full name.'],
    ['an unknown role', { name: 'Bo', email: 'bo@example.test', role: 'boss' }, 'Choose title staff or agent.'],
  ])('answers 400 with a sentence for %s', async (_case, payload, message) => {
    const company = await kit.createCompany();
    const res = await kit.expectStatus(invite(company.staff, company, payload), 400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
  });

  it('refuses a company not approved (409) and a closed one (409)', async () => {
    const [pending] = await t.db
      .insert(titleCompanies)
      .values({ name: `Waiting ${randomUUID().slice(0, 6)}`, state: 'VA' })
      .returning();
    const early = await kit.expectStatus(kit.call(admin, 'POST', `/api/title-companies/${pending?.id}/agents`, { name: 'Bo', email: address('early') }), 409);
    expect(early.json()).toEqual({ error: 'conflict', message: `${pending?.name} is not approved yet; approve it before inviting people.` });
    const company = await kit.createCompany();
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    const late = await kit.expectStatus(kit.call(admin, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Bo', email: address('late') }), 409);
    expect(late.json()).toEqual({ error: 'company_closed', message: `${company.name} is closed; it can no longer be changed.` });
  });

  it('lets no one but the company’s title staff and administrators see or invite its people', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    for (const method of ['GET', 'POST'] as const) {
      const url = `/api/title-companies/${company.id}/agents`;
      const payload = method === 'POST' ? { name: 'Bo', email: address('bo') } : undefined;
      expect((await kit.call(company.agent, method, url, payload)).statusCode, `agent ${method}`).toBe(403);
      const res = await kit.call(other.staff, method, url, payload);
      expect(res.statusCode, `other staff ${method}`).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'No title company with that id, or you may not see it.' });
      for (const [role, user] of await kit.onePerRole(['signer', 'notary', 'billing', 'finance', 'observer'])) {
        expect((await kit.call(user, method, url, payload)).statusCode, `${role} ${method}`).toBe(403);
      }
      expect((await kit.call(null, method, url, payload)).statusCode).toBe(401);
    }
    expect(await kit.auditOf('title_company.member_invited', company.id)).toEqual([]);
    expect((await agentsOf(company, admin)).map((agent) => agent.userId).sort()).toEqual([company.staff.id, company.agent.id].sort());
  });
});

describe('DELETE /api/title-companies/agents/{id}', () => {
  it('removes an agent: their company jobs are gone at once, the role too, and their open tabs are told', async () => {
    const company = await kit.createCompany();
    const ownJob = await createJobAs(company.agent);
    const staffJob = await createJobAs(company.staff);
    expect(ownJob.companyId).toBe(company.id);
    await kit.call(company.agent, 'GET', '/api/auth/me');
    const tabs = await listenTo(company.agent.id);
    const res = await kit.expectStatus(
      kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`),
      200,
    );
    expect(res.json()).toEqual({ ok: true, message: `${company.agent.name} no longer works for ${company.name}.` });
    await vi.waitFor(() => expect(tabs.messages).toEqual([JSON.stringify({ type: 'access-changed' })]));
    await tabs.stop();
    // Even the job they created themselves belongs to the company, and goes with it.
    for (const job of [ownJob, staffJob]) expect((await kit.call(company.agent, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect((await kit.call(company.agent, 'GET', '/api/jobs')).json().total).toBe(0);
    expect(await me(company.agent)).toMatchObject({ roles: ['signer'], role: 'signer' });
    expect((await agentsOf(company)).map((agent) => agent.userId)).toEqual([company.staff.id]);
    const [event] = await kit.auditOf('title_company.member_removed', company.id);
    expect(event).toMatchObject({
      actorId: company.staff.id,
      data: {
        userId: company.agent.id,
        name: company.agent.name,
        email: company.agent.email,
        role: 'title_agent',
        rolesBefore: ['title_agent'],
        rolesAfter: ['signer'],
      },
    });
    expect((await kit.call(company.staff, 'GET', `/api/jobs/${ownJob.id}`)).statusCode).toBe(200);
  });

  it('keeps the role of someone who still works for another company', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    await kit.addMember(other.id, company.agent, 'title_agent');
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`), 200);
    expect((await me(company.agent)).roles).toEqual(['title_agent']);
    expect((await kit.call(company.agent, 'GET', '/api/title-companies/mine')).json().items).toEqual([{ id: other.id, name: other.name, role: 'title_agent' }]);
  });

  it('withdraws an invitation by its id: the link stops working', async () => {
    const company = await kit.createCompany();
    const email = address('withdrawn');
    const sent = await kit.expectStatus(invite(company.staff, company, { name: 'Wil Withdrawn', email }), 201);
    const token = await kit.invitationTokenFor(email);
    const res = await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${sent.json().agent.id}`), 200);
    expect(res.json()).toEqual({ ok: true, message: `The invitation of Wil Withdrawn to join ${company.name} no longer works.` });
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).statusCode).toBe(404);
    expect((await kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${sent.json().agent.id}`)).statusCode).toBe(404);
    const [event] = await kit.auditOf('title_company.invite_revoked', company.id);
    expect(event).toMatchObject({ actorId: company.staff.id, data: { name: 'Wil Withdrawn', email } });
  });

  it('keeps the last title staff member from leaving (409), but lets them leave once there is another; an admin may remove anyone', async () => {
    const company = await kit.createCompany();
    const own = await kit.membershipId(company.id, company.staff.id);
    const res = await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${own}`), 409);
    expect(res.json()).toEqual({
      error: 'conflict',
      message: `You are the last title staff member of ${company.name}, so you cannot leave it; ask an administrator to add another one first.`,
    });
    const second = await t.createUser({ roles: ['title'] });
    await kit.addMember(company.id, second, 'title');
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${own}`), 200);
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, second.id)}`), 200);
    expect(await agentsOf(company, admin)).toEqual([expect.objectContaining({ userId: company.agent.id })]);
  });

  it('refuses agents (403), another company’s staff (404) and other roles, answers 404 for an unknown id and 400 for a malformed one', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const target = await kit.membershipId(company.id, company.agent.id);
    const url = `/api/title-companies/agents/${target}`;
    expect((await kit.call(company.agent, 'DELETE', url)).statusCode).toBe(403);
    const foreign = await kit.expectStatus(kit.call(other.staff, 'DELETE', url), 404);
    expect(foreign.json()).toEqual({ error: 'not_found', message: 'No member or invitation with that id, or you may not see it.' });
    // Title staff elsewhere who are only an agent here manage no one here.
    await kit.addMember(company.id, other.staff, 'title_agent');
    const asAgent = await kit.expectStatus(kit.call(other.staff, 'DELETE', url), 403);
    expect(asAgent.json()).toEqual({ error: 'forbidden', message: 'Only the company’s title staff or an administrator may manage its people.' });
    for (const [role, user] of await kit.onePerRole(['signer', 'notary', 'billing', 'finance', 'observer'])) {
      expect((await kit.call(user, 'DELETE', url)).statusCode, role).toBe(403);
    }
    expect((await kit.call(null, 'DELETE', url)).statusCode).toBe(401);
    expect((await kit.call(admin, 'DELETE', `/api/title-companies/agents/${randomUUID()}`)).statusCode).toBe(404);
    const malformed = await kit.expectStatus(kit.call(admin, 'DELETE', '/api/title-companies/agents/bob'), 400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'Agent id must be a UUID.' });
    expect((await kit.call(company.agent, 'GET', `/api/title-companies/${company.id}`)).statusCode).toBe(200);
  });
});
