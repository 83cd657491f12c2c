import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { companyJobTypes, invites, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let admin: TestUser;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' });
  kit = createCompanyKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

const address = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

async function createJobAs(user: TestUser, extra: Record<string, unknown> = {}) {
  const res = await kit.call(user, 'POST', '/api/jobs', { title: 'Deed of trust', notarizationType: 'acknowledgment', ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; companyId: string | null; notaryId: string | null };
}

async function createJobType(company: TestCompany, name = `Refinance ${randomUUID().slice(0, 6)}`) {
  const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/job-types`, { name, notarizationType: 'acknowledgment' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; name: string };
}

async function inviteAs(by: TestUser, company: TestCompany, email: string, role: 'title' | 'title_agent' = 'title_agent') {
  const res = await kit.call(by, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Ivy Invitee', email, role });
  expect(res.statusCode, res.body).toBe(201);
  return { invitationId: res.json().agent.id as string, token: await kit.invitationTokenFor(email) };
}

const claim = (token: string, email: string, password = 'a long invitee password') =>
  t.app.inject({ method: 'POST', url: `/api/invites/${token}/claim`, payload: { name: 'Ivy Invitee', email, password } });
const accept = async (user: TestUser, token: string) => t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers: await t.signInAs(user) });
const rolesOf = async (userId: string) => (await t.db.select({ roles: users.roles }).from(users).where(eq(users.id, userId)))[0]?.roles;
const membersOf = (companyId: string, userId: string) =>
  t.db
    .select()
    .from(titleCompanyMembers)
    .where(and(eq(titleCompanyMembers.companyId, companyId), eq(titleCompanyMembers.userId, userId)));

/** A socket that records what it hears and how it ended. */
function openSocket(path: string, headers: Record<string, string>) {
  const socket = new WebSocket(`${baseUrl}${path}`, { headers });
  const messages: string[] = [];
  socket.on('message', (data: Buffer) => messages.push(data.toString()));
  const closed = new Promise<number>((resolve) => socket.on('close', (code: number) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('unexpected-response', (_request, response) => reject(new Error(`refused ${response.statusCode}`)));
  });
  return { socket, messages, closed, opened };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('another company’s title staff reach nothing of company B', () => {
  it('gets 404 on every company route of B, its job types, its people and its invitations, and B is unchanged', async () => {
    const a = await kit.createCompany();
    const b = await kit.createCompany();
    const type = await createJobType(b);
    const pending = await inviteAs(b.staff, b, address('b-invitee'));
    const agentMembership = await kit.membershipId(b.id, b.agent.id);
    const notary = await createNotary(t);
    const attempts: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown]> = [
      ['read B', 'GET', `/api/title-companies/${b.id}`, undefined],
      ['read B’s default notary', 'GET', `/api/title-companies/${b.id}/default-notary`, undefined],
      ['set B’s default notary', 'PUT', `/api/title-companies/${b.id}`, { defaultNotaryId: notary.id }],
      ['list B’s people', 'GET', `/api/title-companies/${b.id}/agents`, undefined],
      ['invite into B', 'POST', `/api/title-companies/${b.id}/agents`, { name: 'Mole', email: address('mole') }],
      ['remove B’s agent', 'DELETE', `/api/title-companies/agents/${agentMembership}`, undefined],
      ['withdraw B’s invitation', 'DELETE', `/api/title-companies/agents/${pending.invitationId}`, undefined],
      ['list B’s job types', 'GET', `/api/title-companies/${b.id}/job-types`, undefined],
      ['create a job type in B', 'POST', `/api/title-companies/${b.id}/job-types`, { name: 'Planted', notarizationType: 'acknowledgment' }],
      ['rename B’s job type', 'PUT', `/api/title-companies/job-types/${type.id}`, { instructions: 'Skip the ID check.' }],
      ['delete B’s job type', 'DELETE', `/api/title-companies/job-types/${type.id}`, undefined],
    ];
    for (const [what, method, url, payload] of attempts) {
      const res = await kit.call(a.staff, method, url, payload);
      expect(res.statusCode, `${what}: ${res.body}`).toBe(404);
    }
    expect((await kit.call(a.staff, 'POST', '/api/jobs', { title: 'Sneaky', notarizationType: 'acknowledgment', jobTypeId: type.id })).statusCode).toBe(400);
    const [company] = await t.db.select().from(titleCompanies).where(eq(titleCompanies.id, b.id));
    expect(company?.defaultNotaryId).toBeNull();
    expect(await membersOf(b.id, b.agent.id)).toHaveLength(1);
    const [stillThere] = await t.db.select().from(companyJobTypes).where(eq(companyJobTypes.id, type.id));
    expect(stillThere).toMatchObject({ deletedAt: null, instructions: '' });
    const [invite] = await t.db.select().from(invites).where(eq(invites.id, pending.invitationId));
    expect(invite?.revokedAt).toBeNull();
  });

  it('gives a person who is title staff of B and an agent of A only an agent’s reading of A', async () => {
    const a = await kit.createCompany();
    const b = await kit.createCompany();
    await kit.addMember(a.id, b.staff, 'title_agent');
    await t.db
      .update(users)
      .set({ roles: ['title', 'title_agent'] })
      .where(eq(users.id, b.staff.id));
    expect((await kit.call(b.staff, 'GET', `/api/title-companies/${a.id}`)).json().permissions).toEqual({
      canEdit: false,
      canManageAgents: false,
      canClose: false,
    });
    expect((await kit.call(b.staff, 'PUT', `/api/title-companies/${a.id}`, { name: 'Hijacked Title' })).statusCode).toBe(403);
    expect((await kit.call(b.staff, 'GET', `/api/title-companies/${a.id}/agents`)).statusCode).toBe(403);
    const staffMembership = await kit.membershipId(a.id, a.staff.id);
    expect((await kit.call(b.staff, 'DELETE', `/api/title-companies/agents/${staffMembership}`)).statusCode).toBe(403);
    expect((await kit.call(b.staff, 'POST', `/api/title-companies/${a.id}/job-types`, { name: 'X', notarizationType: 'jurat' })).statusCode).toBe(403);
  });

  it('refuses an agent setting the default notary or inviting anyone, and keeps the company as it was', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t);
    expect((await kit.call(company.agent, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id })).statusCode).toBe(403);
    const email = address('agent-friend');
    expect((await kit.call(company.agent, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Pal', email })).statusCode).toBe(403);
    expect(await kit.mailTo(email, 'company_member_invite')).toEqual([]);
    const staffMembership = await kit.membershipId(company.id, company.staff.id);
    expect((await kit.call(company.agent, 'DELETE', `/api/title-companies/agents/${staffMembership}`)).statusCode).toBe(403);
    expect(await membersOf(company.id, company.staff.id)).toHaveLength(1);
  });
});

describe('a removed agent keeps nothing of the company', () => {
  it('loses the job list, the job, its documents, its job types and the company’s default notary at once', async () => {
    const company = await kit.createCompany();
    const type = await createJobType(company);
    const job = await createJobAs(company.agent, { jobTypeId: type.id });
    const colleagueJob = await createJobAs(company.staff);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`), 200);
    const list = await kit.expectStatus(kit.call(company.agent, 'GET', '/api/jobs'), 200);
    expect(JSON.stringify(list.json())).not.toContain(job.id);
    expect(JSON.stringify(list.json())).not.toContain(colleagueJob.id);
    for (const url of [`/api/jobs/${job.id}`, `/api/jobs/${job.id}/documents`, `/api/jobs/${colleagueJob.id}`, `/api/jobs/${colleagueJob.id}/documents`]) {
      expect((await kit.call(company.agent, 'GET', url)).statusCode, url).toBeGreaterThanOrEqual(401);
    }
    // The role went with the last company, so the company routes refuse by role now.
    expect((await kit.call(company.agent, 'GET', `/api/title-companies/${company.id}/job-types`)).statusCode).toBeGreaterThanOrEqual(401);
    expect((await kit.call(company.agent, 'GET', '/api/title-companies/mine')).json()).toEqual({ items: [] });
  });

  it('cannot make a new company job from the company’s job type after removal, even with the role given back', async () => {
    const company = await kit.createCompany();
    const type = await createJobType(company);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`), 200);
    await t.db
      .update(users)
      .set({ roles: ['title_agent'] })
      .where(eq(users.id, company.agent.id));
    const res = await kit.call(company.agent, 'POST', '/api/jobs', { title: 'After leaving', notarizationType: 'acknowledgment', jobTypeId: type.id });
    expect(res.statusCode, res.body).toBe(400);
  });

  it('has the open job socket closed when removed, and the open personal channel told', async () => {
    const company = await kit.createCompany();
    const job = await createJobAs(company.staff);
    const headers = await t.signInAs(company.agent);
    const jobSocket = openSocket(`/api/jobs/${job.id}/live`, headers);
    const personal = openSocket('/api/notifications/live', headers);
    await Promise.all([jobSocket.opened, personal.opened]);
    await within(
      (async () => {
        while (!personal.messages.some((message) => message.includes('ready'))) await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      5000,
      'the personal channel’s ready',
    );
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`), 200);
    expect(await within(jobSocket.closed, 5000, 'closing the job socket')).toBe(4403);
    await within(
      (async () => {
        while (!personal.messages.some((message) => message.includes('access-changed'))) await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      5000,
      'access-changed on the personal channel',
    );
    personal.socket.close();
  });

  it('has the job socket of every member closed when an administrator closes the company', async () => {
    const company = await kit.createCompany();
    const job = await createJobAs(company.staff);
    const jobSocket = openSocket(`/api/jobs/${job.id}/live`, await t.signInAs(company.agent));
    await jobSocket.opened;
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    expect(await within(jobSocket.closed, 5000, 'closing the job socket')).toBe(4403);
  });

  it('refuses a closed company’s former staff every company route with 404 or 403', async () => {
    const company = await kit.createCompany();
    const type = await createJobType(company);
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    // Give the role back as another company would: membership of the closed company stays gone.
    await t.db
      .update(users)
      .set({ roles: ['title'] })
      .where(eq(users.id, company.staff.id));
    for (const [method, url, payload] of [
      ['GET', `/api/title-companies/${company.id}`, undefined],
      ['PUT', `/api/title-companies/${company.id}`, { name: 'Reopened Title' }],
      ['GET', `/api/title-companies/${company.id}/job-types`, undefined],
      ['PUT', `/api/title-companies/job-types/${type.id}`, { name: 'Renamed' }],
      ['POST', `/api/title-companies/${company.id}/agents`, { name: 'Late', email: address('late') }],
    ] as const) {
      expect((await kit.call(company.staff, method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
  });
});

describe('invitation links', () => {
  it('cannot be accepted by a signed-in account with another address, and stays usable for its owner', async () => {
    const company = await kit.createCompany();
    const owner = await t.createUser({ email: address('owner'), roles: ['signer'] });
    const thief = await t.createUser({ roles: ['signer'] });
    const { token } = await inviteAs(company.staff, company, owner.email);
    const stolen = await accept(thief, token);
    expect(stolen.statusCode).toBe(403);
    expect(stolen.json().error).toBe('invite_email_mismatch');
    expect(await rolesOf(thief.id)).toEqual(['signer']);
    expect((await accept(owner, token)).statusCode).toBe(200);
  });

  it('refuses a claim into a new account with another address, and accepting a new-person link of an address that has no account', async () => {
    const company = await kit.createCompany();
    const email = address('fresh');
    const { token } = await inviteAs(company.staff, company, email);
    const other = address('other');
    const res = await claim(token, other);
    expect(res.statusCode).toBe(400);
    const [made] = await t.db.select().from(users).where(eq(users.email, other));
    expect(made).toBeUndefined();
    const bystander = await t.createUser({ roles: ['signer'] });
    expect((await accept(bystander, token)).statusCode).toBe(403);
    expect((await claim(token, email)).statusCode).toBe(201);
  });

  it('makes one account when the same link is claimed twice at once', async () => {
    const company = await kit.createCompany();
    const email = address('twice');
    const { token } = await inviteAs(company.staff, company, email);
    const answers = await Promise.all([claim(token, email, 'first long password'), claim(token, email, 'second long password')]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 404]);
    expect(await t.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
  });

  it('works no more after it was withdrawn, after the company closed, or once its member was removed', async () => {
    const company = await kit.createCompany();
    const withdrawnEmail = address('withdrawn');
    const withdrawn = await inviteAs(company.staff, company, withdrawnEmail);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${withdrawn.invitationId}`), 200);
    expect((await claim(withdrawn.token, withdrawnEmail)).statusCode).toBe(404);

    const joinedEmail = address('joined');
    const joined = await inviteAs(company.staff, company, joinedEmail);
    const claimed = await kit.expectStatus(claim(joined.token, joinedEmail), 201);
    const member: TestUser = {
      id: claimed.json().user.id,
      name: 'Ivy Invitee',
      email: joinedEmail,
      password: 'a long invitee password',
      roles: ['title_agent'],
    };
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, member.id)}`), 200);
    const again = await accept(member, joined.token);
    expect(again.statusCode, again.body).toBe(404);
    expect(await membersOf(company.id, member.id)).toEqual([]);

    const closingEmail = address('closing');
    const closing = await inviteAs(company.staff, company, closingEmail);
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    expect((await claim(closing.token, closingEmail)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${closing.token}` })).statusCode).toBe(404);
  });

  it('gives an existing administrator who accepts an agent invitation the agent role beside administrator, and nothing more', async () => {
    const company = await kit.createCompany();
    const otherAdmin = await t.createUser({ roles: ['admin'], email: address('admin-agent') });
    const { token } = await inviteAs(company.staff, company, otherAdmin.email);
    expect((await accept(otherAdmin, token)).statusCode).toBe(200);
    expect(await rolesOf(otherAdmin.id)).toEqual(['admin', 'title_agent']);
    const [membership] = await membersOf(company.id, otherAdmin.id);
    expect(membership?.role).toBe('title_agent');
  });

  it('gives an existing notary who accepts an agent invitation no power to manage the company', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t, { name: 'Nate Notary' });
    const { token } = await inviteAs(company.staff, company, notary.email);
    expect((await accept(notary, token)).statusCode).toBe(200);
    expect(await rolesOf(notary.id)).toEqual(['notary', 'title_agent']);
    expect((await kit.call(notary, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id })).statusCode).toBe(403);
    expect((await kit.call(notary, 'GET', `/api/title-companies/${company.id}/agents`)).statusCode).toBe(403);
  });

  it('refuses title staff inviting themselves (409) and inviting a member under another case of the address (409)', async () => {
    const company = await kit.createCompany();
    const self = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Me', email: company.staff.email });
    expect(self.statusCode).toBe(409);
    const shouted = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, {
      name: 'Agent again',
      email: `  ${company.agent.email.toUpperCase()}  `,
    });
    expect(shouted.statusCode, shouted.body).toBe(409);
  });

  it('sends one invitation when the same address is invited twice at once', async () => {
    const company = await kit.createCompany();
    const email = address('double');
    const answers = await Promise.all([
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Dee', email }),
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Dee', email: email.toUpperCase() }),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect(await kit.mailTo(email, 'company_member_invite')).toHaveLength(1);
  });

  it('ends consistent when an invitation is withdrawn while its person accepts it', async () => {
    const company = await kit.createCompany();
    const person = await t.createUser({ email: address('racer'), roles: ['signer'] });
    const { token, invitationId } = await inviteAs(company.staff, company, person.email);
    const headers = await t.signInAs(person);
    const [accepted, withdrawn] = await Promise.all([
      t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers }),
      kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${invitationId}`),
    ]);
    const isMember = (await membersOf(company.id, person.id)).length === 1;
    if (accepted.statusCode === 200) {
      expect(withdrawn.statusCode).toBe(409);
      expect(isMember).toBe(true);
    } else {
      expect(withdrawn.statusCode).toBe(200);
      expect(isMember).toBe(false);
      expect(await rolesOf(person.id)).toEqual(['signer']);
    }
  });

  it('does not tell title staff whether an invited address already has an account, nor its user id', async () => {
    const company = await kit.createCompany();
    const stranger = await createNotary(t, { name: 'Private Notary' });
    const res = await kit.expectStatus(
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name: 'Probe', email: stranger.email }),
      201,
    );
    expect(res.json().agent.userId).toBeNull();
    const listed = (await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}/agents`)).json().items as Array<{ email: string; userId: string }>;
    expect(listed.find((entry) => entry.email === stranger.email)?.userId).toBeNull();
  });
});

describe('races between operators', () => {
  it('closes a company once when two administrators close it at the same moment', async () => {
    const company = await kit.createCompany();
    const second = await t.createUser({ roles: ['admin'] });
    const answers = await Promise.all([
      kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`),
      kit.call(second, 'DELETE', `/api/title-companies/${company.id}`),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(await kit.auditOf('title_company.closed', company.id)).toHaveLength(1);
  });

  it('creates one job type when two of the same name (in different case) are created at once', async () => {
    const company = await kit.createCompany();
    const answers = await Promise.all(
      ['Purchase', 'PURCHASE', 'purchase'].map((name) =>
        kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/job-types`, { name, notarizationType: 'acknowledgment' }),
      ),
    );
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 409, 409]);
    for (const res of answers.filter((answer) => answer.statusCode === 409)) expect(res.json().message).toContain('already has a job type named');
  });

  it('leaves one title staff member when two remove each other at once', async () => {
    const company = await kit.createCompany();
    const second = await t.createUser({ roles: ['title'] });
    const secondId = await kit.addMember(company.id, second, 'title');
    const firstId = await kit.membershipId(company.id, company.staff.id);
    const answers = await Promise.all([
      kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${secondId}`),
      kit.call(second, 'DELETE', `/api/title-companies/agents/${firstId}`),
    ]);
    const staff = await t.db
      .select()
      .from(titleCompanyMembers)
      .where(and(eq(titleCompanyMembers.companyId, company.id), eq(titleCompanyMembers.role, 'title')));
    expect(staff.length, answers.map((res) => `${res.statusCode} ${res.body}`).join(' | ')).toBeGreaterThanOrEqual(1);
  });

  it('never leaves a member in a company closed while they were accepting, and closes it every time', async () => {
    // Accepting and closing lock the invitation and the company: taken in two orders they deadlock
    // on PostgreSQL, and the close failed. Repeated, because the interleaving is up to the server.
    for (let round = 0; round < 12; round += 1) {
      const company = await kit.createCompany();
      const person = await t.createUser({ email: address('late-joiner'), roles: ['signer'] });
      const { token } = await inviteAs(company.staff, company, person.email);
      const headers = await t.signInAs(person);
      const [accepted, closed] = await Promise.all([
        t.app.inject({ method: 'POST', url: `/api/invites/${token}/accept`, headers }),
        kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`),
      ]);
      expect(closed.statusCode, closed.body).toBe(200);
      expect([200, 404], accepted.body).toContain(accepted.statusCode);
      expect(await t.db.select().from(titleCompanyMembers).where(eq(titleCompanyMembers.companyId, company.id))).toEqual([]);
      expect(await rolesOf(person.id)).toEqual(['signer']);
    }
  });
});

describe('the default notary', () => {
  it('refuses an id that is no notary, a signer, and a malformed id, each with 400 and a sentence', async () => {
    const company = await kit.createCompany();
    const signer = await t.createUser({ roles: ['signer'] });
    for (const defaultNotaryId of [randomUUID(), signer.id, company.staff.id, 'not-a-uuid', 42]) {
      const res = await kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId });
      expect(res.statusCode, String(defaultNotaryId)).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
  });

  it('is not given to a job made by someone removed from the company', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t);
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id }), 200);
    await kit.addMember((await kit.createCompany()).id, company.agent, 'title_agent');
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`), 200);
    const job = await createJobAs(company.agent);
    expect(job.notaryId).toBeNull();
    expect(job.companyId).not.toBe(company.id);
  });
});

describe('the public company search', () => {
  it('shows neither pending, rejected nor closed companies, and only name, city and state', async () => {
    const tag = `Zq${randomUUID().slice(0, 6)}`;
    const open = await kit.createCompany({ name: `${tag} Open Title` });
    await t.db.insert(titleCompanies).values([
      { name: `${tag} Pending Title`, state: 'VA', approvalStatus: 'pending' },
      { name: `${tag} Rejected Title`, state: 'VA', approvalStatus: 'rejected' },
      { name: `${tag} Closed Title`, state: 'VA', approvalStatus: 'approved', closedAt: new Date() },
    ]);
    const res = await kit.expectStatus(t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${tag}` }), 200);
    expect(res.json()).toEqual({ items: [{ name: open.name, city: 'Richmond', state: 'VA' }] });
    expect(res.body).not.toContain(open.id);
    expect(res.body).not.toContain('@');
  });

  it('treats % and _ as plain characters', async () => {
    const tag = `Wc${randomUUID().slice(0, 6)}`;
    await kit.createCompany({ name: `${tag} Abc Title` });
    for (const q of [`${tag}%`, `${tag}_Abc`, '%', '_', '%%', '\\']) {
      const res = await kit.expectStatus(t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${encodeURIComponent(q)}` }), 200);
      expect(res.json().items, q).toEqual([]);
    }
  });

  it('answers 400 with a sentence to a huge q, a NUL byte, a control character, a direction override and a repeated q', async () => {
    for (const q of ['x'.repeat(101), 'a\u0000b', 'a\u0007b', 'a\u202Eb']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${encodeURIComponent(q)}` });
      expect(res.statusCode, JSON.stringify(q)).toBe(400);
      expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    const repeated = await t.app.inject({ method: 'GET', url: '/api/title-companies/search/public?q=a&q=b' });
    expect(repeated.statusCode).toBe(400);
    const huge = await t.app.inject({ method: 'GET', url: `/api/title-companies/search/public?q=${'y'.repeat(20_000)}` });
    expect([400, 414, 431]).toContain(huge.statusCode);
  });

  it('cannot be freed from its rate limit by a forged X-Forwarded-For', async () => {
    const limited = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
    try {
      const codes: number[] = [];
      for (let index = 0; index < 32; index += 1) {
        const res = await limited.app.inject({
          method: 'GET',
          url: '/api/title-companies/search/public?q=title',
          headers: { 'x-forwarded-for': `10.0.${index}.1` },
        });
        codes.push(res.statusCode);
      }
      expect(codes.at(-1)).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('bad bodies on the operators’ routes', () => {
  it('answers a huge body with 413 and a sentence, and changes nothing', async () => {
    const company = await kit.createCompany();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/title-companies/${company.id}/job-types`,
      headers: { ...(await t.headersFor(company.staff)), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Big', notarizationType: 'acknowledgment', instructions: 'x'.repeat(3_000_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect(await t.db.select().from(companyJobTypes).where(eq(companyJobTypes.companyId, company.id))).toEqual([]);
  });

  it('answers a body that is not JSON, and a wrong content type, with 4xx and a sentence', async () => {
    const company = await kit.createCompany();
    const headers = await t.headersFor(company.staff);
    const broken = await t.app.inject({
      method: 'PUT',
      url: `/api/title-companies/${company.id}`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ message: expect.any(String) });
    const text = await t.app.inject({
      method: 'PUT',
      url: `/api/title-companies/${company.id}`,
      headers: { ...headers, 'content-type': 'text/plain' },
      payload: 'name=Renamed',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ message: expect.any(String) });
    const form = await t.app.inject({
      method: 'POST',
      url: `/api/title-companies/${company.id}/agents`,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=A&email=a%40example.test',
    });
    expect(form.statusCode).toBe(415);
    const [row] = await t.db.select().from(titleCompanies).where(eq(titleCompanies.id, company.id));
    expect(row?.name).toBe(company.name);
  });

  it('refuses a job type with too many witnesses, an unknown tag, or control characters in its name or instructions', async () => {
    const company = await kit.createCompany();
    for (const payload of [
      { name: 'Many', notarizationType: 'acknowledgment', witnessCount: 1_000_000 },
      { name: 'Tags', notarizationType: 'acknowledgment', documentTags: ['<script>'] },
      { name: 'Bell\u0007', notarizationType: 'acknowledgment' },
      { name: 'Bidi', notarizationType: 'acknowledgment', instructions: 'Sign \u202Ehere' },
      { name: 'Type', notarizationType: 'marriage' },
      { name: 'Id', notarizationType: 'acknowledgment', companyId: randomUUID(), id: randomUUID() },
    ]) {
      const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/job-types`, payload);
      if (res.statusCode === 201) expect(res.json().companyId, JSON.stringify(payload)).toBe(company.id);
      else expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it('refuses an invitation naming a person with control characters or a direction override', async () => {
    const company = await kit.createCompany();
    for (const name of ['Eve\u0000', 'Eve\u202Eevil', 'Eve\nAdmin']) {
      const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/agents`, { name, email: address('ctl') });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
    }
  });
});
