import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';

/**
 * The job page's reads attacked: each participant's identity state on GET /api/jobs/:id,
 * the invitation lookup that now answers 200 null, and can-enter's sentence with the scheduled time.
 */

let t: TestApp;
let kit: JobKit;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'] });
});
afterAll(async () => t?.close());

/** A company with a title owner and an agent on its staff. */
async function createCompany(name: string) {
  const owner = await t.createUser({ roles: ['title'] });
  const agent = await t.createUser({ roles: ['title_agent'] });
  const [company] = await t.db.insert(titleCompanies).values({ name, approvalStatus: 'approved' }).returning();
  await t.db.insert(titleCompanyMembers).values([
    { companyId: company?.id ?? '', userId: owner.id, role: 'title' },
    { companyId: company?.id ?? '', userId: agent.id, role: 'title_agent' },
  ]);
  return { owner, agent };
}

/** The cast of a company's job: the signer left unproven, the witness waived. */
async function companyCast(): Promise<VideoCast & { owner: TestUser; rivals: TestUser[] }> {
  const { owner, agent } = await createCompany('Acme Title');
  const rival = await createCompany('Rival Title');
  const cast = await castVideoJob(t, kit, { identity: 'unproven' });
  // The job again, made by the company's agent, so that its company's staff see it.
  const people = [
    { name: cast.signer.name, email: cast.signer.email, role: 'signer' },
    { name: cast.witness.name, email: cast.witness.email, role: 'witness' },
    { name: cast.observer.name, email: cast.observer.email, role: 'observer' },
  ];
  const created = await kit.createJob(agent, { notaryId: cast.notary.id, signers: people });
  await kit.uploadPdf(agent, created.id);
  const job = await kit.moveJob(agent, created.id, ['ready']);
  for (const person of [cast.signer, cast.witness, cast.observer]) expect((await kit.acceptInvitation(person)).statusCode).toBe(200);
  const idOf = (person: TestUser) => job.participants.find((participant) => participant.email === person.email)?.id ?? '';
  const waived = await kit.call(cast.notary, 'POST', `/api/jobs/${job.id}/signers/${idOf(cast.witness)}/id-bypass`, {
    enabled: true,
    reason: 'Known to me',
    method: 'personal_knowledge',
  });
  expect(waived.statusCode, waived.body).toBe(200);
  return { ...cast, job, agent, idOf, owner, rivals: [rival.owner, rival.agent] };
}

const statesSeenBy = async (person: TestUser, jobId: string) => {
  const res = await kit.call(person, 'GET', `/api/jobs/${jobId}`);
  expect(res.statusCode, `${person.email}: ${res.body}`).toBe(200);
  return Object.fromEntries((res.json() as Job).participants.map((participant) => [participant.email, participant.identityState ?? null]));
};

describe('identity states on the job', () => {
  it('shows a signer, a witness and an observer their own state only, and the company, the notary and an admin everyone’s', async () => {
    const c = await companyCast();
    const all = { [c.signer.email]: 'not_started', [c.witness.email]: 'waived', [c.observer.email]: 'not_required' };
    for (const person of [c.signer, c.witness, c.observer]) {
      const seen = await statesSeenBy(person, c.job.id);
      const expected = Object.fromEntries(Object.keys(all).map((email) => [email, email === person.email ? all[email] : null]));
      expect(seen, person.email).toEqual(expected);
    }
    for (const person of [c.agent, c.owner, c.notary, admin]) expect(await statesSeenBy(person, c.job.id), person.email).toEqual(all);
  });

  it('answers 404 without a name or a state to another company’s staff, another notary and a stranger', async () => {
    const c = await companyCast();
    const otherNotary = await kit.createNotary();
    const missing = await kit.call(c.stranger, 'GET', '/api/jobs/00000000-0000-4000-8000-000000000000');
    for (const person of [...c.rivals, otherNotary, c.stranger]) {
      const res = await kit.call(person, 'GET', `/api/jobs/${c.job.id}`);
      expect(res.statusCode, person.email).toBe(404);
      expect(res.json()).toEqual(missing.json());
      expect(res.body).not.toContain(c.signer.email);
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${c.job.id}` })).statusCode).toBe(401);
  });

  it('stops showing a removed signer anything, and a replaced notary everyone’s states', async () => {
    const c = await companyCast();
    const removed = await kit.call(c.agent, 'DELETE', `/api/jobs/${c.job.id}/signers/${c.idOf(c.witness)}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await kit.call(c.witness, 'GET', `/api/jobs/${c.job.id}`)).statusCode).toBe(404);
    const successor = await kit.createNotary();
    expect((await kit.call(c.agent, 'POST', `/api/jobs/${c.job.id}/replace-notary`, { notaryId: successor.id })).statusCode).toBe(200);
    expect((await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}`)).statusCode).toBe(404);
  });
});

describe('the invitation lookup', () => {
  it('answers 200 null to whoever sees the job without an invitation, and the same 404 as for a missing job to everyone else', async () => {
    const c = await companyCast();
    const otherNotary = await kit.createNotary();
    for (const person of [c.agent, c.owner, c.notary, admin, c.signer]) {
      const res = await kit.call(person, 'GET', `/api/invites/jobs/${c.job.id}`);
      expect(res.statusCode, `${person.email}: ${res.body}`).toBe(200);
      expect(res.json(), person.email).toBeNull();
    }
    const missing = await kit.call(c.stranger, 'GET', '/api/invites/jobs/00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    for (const person of [...c.rivals, otherNotary, c.stranger]) {
      const res = await kit.call(person, 'GET', `/api/invites/jobs/${c.job.id}`);
      expect(res.statusCode, person.email).toBe(404);
      expect(res.json()).toEqual(missing.json());
      expect(Object.keys(res.headers).sort()).toEqual(Object.keys(missing.headers).sort());
    }
    for (const url of [`/api/invites/jobs/${c.job.id.toUpperCase()}x`, '/api/invites/jobs/%00', `/api/invites/jobs/${'a'.repeat(5000)}`]) {
      const res = await kit.call(c.stranger, 'GET', url);
      // Fastify answers a path parameter past its length limit with 414 before any route runs.
      expect([400, 404, 414], `${url.slice(0, 40)}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/jobs/${c.job.id}` })).statusCode).toBe(401);
  });

  it('answers a pending invitation to the invited address only, and 404 to the removed invitee', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const invitee = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: invitee.name, email: invitee.email }] });
    const own = await kit.call(invitee, 'GET', `/api/invites/jobs/${job.id}`);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toMatchObject({ jobId: job.id, role: 'signer' });
    const participantId = job.participants[0]?.id ?? '';
    expect((await kit.call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${participantId}`)).statusCode).toBe(200);
    expect((await kit.call(invitee, 'GET', `/api/invites/jobs/${job.id}`)).statusCode).toBe(404);
  });
});

describe('can-enter', () => {
  it('tells the scheduled time to the job’s people only, and nothing of it to anyone else', async () => {
    const c = await castVideoJob(t, kit);
    const scheduledAt = new Date(Date.now() + 3 * 3600_000).toISOString();
    const current = await kit.getJob(c.agent, c.job.id);
    expect((await kit.call(c.agent, 'PATCH', `/api/jobs/${c.job.id}`, { scheduledAt, version: current.version })).statusCode).toBe(200);
    await kit.moveJob(c.agent, c.job.id, ['scheduled']);
    const said = await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`);
    expect(said.statusCode).toBe(200);
    expect(said.json().reasons.join(' ')).toContain('The session opens 15 minutes before its time');
    const otherNotary = await kit.createNotary();
    for (const person of [c.stranger, otherNotary]) {
      const res = await kit.call(person, 'GET', `/api/jobs/${c.job.id}/can-enter`);
      expect(res.statusCode, person.email).toBe(404);
      expect(res.body).not.toMatch(/opens|\d{4}/);
    }
  });
});
