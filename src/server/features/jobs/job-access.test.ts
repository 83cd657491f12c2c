import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobSummary } from '#shared/jobs.ts';
import type { Role } from '#shared/roles.ts';
import { emailOutbox, notaryProfiles, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let pdf: Buffer;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  pdf = await makePdf(1);
});
afterAll(async () => t?.close());

const headersOf = new Map<string, Record<string, string>>();
async function headersFor(user: TestUser): Promise<Record<string, string>> {
  const known = headersOf.get(user.id);
  if (known) return known;
  const headers = await t.signInAs(user);
  headersOf.set(user.id, headers);
  return headers;
}

async function call(user: TestUser, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: await headersFor(user), ...(payload ? { payload } : {}) });
}

async function createNotary(): Promise<TestUser> {
  const notary = await t.createUser({ roles: ['notary'] });
  await t.db.insert(notaryProfiles).values({
    userId: notary.id,
    commissionState: 'VA',
    commissionNumber: `VA-${randomUUID().slice(0, 6)}`,
    commissionExpiresOn: '2031-06-30',
    county: 'Fairfax',
    approvalStatus: 'approved',
    approvedAt: new Date(),
  });
  return notary;
}

async function createCompany(name: string, members: Array<[TestUser, 'title' | 'title_agent']>): Promise<string> {
  const [company] = await t.db.insert(titleCompanies).values({ name, approvalStatus: 'approved' }).returning();
  if (!company) throw new Error('company insert failed');
  for (const [user, role] of members) await t.db.insert(titleCompanyMembers).values({ companyId: company.id, userId: user.id, role });
  return company.id;
}

async function createJob(user: TestUser, payload: Record<string, unknown> = {}): Promise<Job> {
  const res = await call(user, 'POST', '/api/jobs', {
    title: `Job ${randomUUID().slice(0, 8)}`,
    notarizationType: 'acknowledgment',
    signers: [{ name: 'Sam Signer', email: `sam-${randomUUID().slice(0, 8)}@example.test` }],
    ...payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function listedIds(user: TestUser): Promise<string[]> {
  const res = await call(user, 'GET', '/api/jobs?pageSize=100');
  expect(res.statusCode).toBe(200);
  return (res.json().items as JobSummary[]).map((item) => item.id);
}

/** The person opens the link of the invitation the job emailed them, signed in with their account. */
async function acceptInvitation(user: TestUser, job: Job): Promise<void> {
  const [mail] = await t.db
    .select({ textBody: emailOutbox.textBody })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, user.email), eq(emailOutbox.kind, 'job_invite'), sql`${emailOutbox.subject} like ${`%"${job.title}"`}`));
  const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no invitation to ${user.email} for ${job.title}`);
  const res = await call(user, 'POST', `/api/invites/${token}/accept`);
  expect(res.statusCode, res.body).toBe(200);
}

async function jobWithParticipant(role: 'signer' | 'witness' | 'observer') {
  const owner = await t.createUser({ roles: ['title_agent'] });
  const person = await t.createUser({ roles: [role] });
  const job = await createJob(owner, { signers: [{ name: person.name, email: person.email, role }] });
  return { owner, person, job };
}

describe('who sees a job', () => {
  it('shows an administrator every job, with full rights', async () => {
    const admin = await t.createUser({ roles: ['admin'] });
    const job = await createJob(await t.createUser({ roles: ['title_agent'] }));
    const res = await call(admin, 'GET', `/api/jobs/${job.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().permissions).toEqual({ canEdit: true, canManageNotary: true, canBypassId: true, canCompleteDocuments: true, isParticipant: false });
    expect(await listedIds(admin)).toContain(job.id);
  });

  it('shows title company staff their company’s jobs and nobody else’s', async () => {
    const [creator, owner, colleague, rival] = await Promise.all([
      t.createUser({ roles: ['title_agent'] }),
      t.createUser({ roles: ['title'] }),
      t.createUser({ roles: ['title_agent'] }),
      t.createUser({ roles: ['title_agent'] }),
    ]);
    await createCompany('Acme Title', [
      [creator, 'title_agent'],
      [owner, 'title'],
      [colleague, 'title_agent'],
    ]);
    await createCompany('Rival Title', [[rival, 'title_agent']]);
    const job = await createJob(creator);

    for (const staff of [owner, colleague]) {
      const res = await call(staff, 'GET', `/api/jobs/${job.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ companyName: 'Acme Title', permissions: { canEdit: true, canManageNotary: true, isParticipant: false } });
      expect(await listedIds(staff)).toContain(job.id);
    }
    expect((await call(rival, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect(await listedIds(rival)).not.toContain(job.id);
  });

  it('shows an agent who works for two companies the jobs of both', async () => {
    const [agent, first, second] = await Promise.all([
      t.createUser({ roles: ['title_agent'] }),
      t.createUser({ roles: ['title_agent'] }),
      t.createUser({ roles: ['title_agent'] }),
    ]);
    await createCompany('First Title', [
      [agent, 'title_agent'],
      [first, 'title_agent'],
    ]);
    await createCompany('Second Title', [
      [agent, 'title_agent'],
      [second, 'title_agent'],
    ]);
    const firstJob = await createJob(first);
    const secondJob = await createJob(second);
    expect(await listedIds(agent)).toEqual(expect.arrayContaining([firstJob.id, secondJob.id]));
    expect((await call(agent, 'GET', `/api/jobs/${firstJob.id}`)).statusCode).toBe(200);
    expect((await call(agent, 'GET', `/api/jobs/${secondJob.id}`)).statusCode).toBe(200);
  });

  it('stops listing the company’s jobs to a member whose title roles were taken away, as it stops showing them', async () => {
    const [creator, former] = await Promise.all([t.createUser({ roles: ['title_agent'] }), t.createUser({ roles: ['title_agent'] })]);
    await createCompany('Shrinking Title', [
      [creator, 'title_agent'],
      [former, 'title_agent'],
    ]);
    const job = await createJob(creator);
    expect(await listedIds(former)).toContain(job.id);
    await t.db.update(users).set({ roles: ['signer'] }).where(eq(users.id, former.id));
    headersOf.delete(former.id);
    expect((await call(former, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect(await listedIds(former)).not.toContain(job.id);
  });

  it('shows a notary the jobs assigned to them, and not those of other notaries', async () => {
    const [assigned, other] = [await createNotary(), await createNotary()];
    const job = await createJob(await t.createUser({ roles: ['title_agent'] }), { notaryId: assigned.id });
    expect((await call(assigned, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
    expect(await listedIds(assigned)).toContain(job.id);
    expect((await call(other, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect(await listedIds(other)).not.toContain(job.id);
  });

  it('shows the person who created a job their job, whatever their role', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await createJob(signer);
    expect((await call(signer, 'GET', `/api/jobs/${job.id}`)).json()).toMatchObject({ createdBy: signer.id, permissions: { canEdit: true } });
    expect(await listedIds(signer)).toEqual([job.id]);
  });

  it.each(['signer', 'witness', 'observer'] as const)('shows a %s the job only once they accepted the invitation, to read but not change', async (role) => {
    const { person, job } = await jobWithParticipant(role);
    expect((await call(person, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect(await listedIds(person)).toEqual([]);

    await acceptInvitation(person, job);
    const seen = await call(person, 'GET', `/api/jobs/${job.id}`);
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({
      permissions: { canEdit: false, canManageNotary: false, canBypassId: false, canCompleteDocuments: false, isParticipant: true },
      allowedTransitions: [],
      participants: [{ email: person.email, role, hasAccount: true }],
    });
    expect(await listedIds(person)).toEqual([job.id]);
    for (const url of [`/api/jobs/${job.id}/documents`, `/api/jobs/${job.id}/audit`, `/api/jobs/${job.id}/can-enter`]) {
      expect((await call(person, 'GET', url)).statusCode, url).toBe(200);
    }
    expect((await call(person, 'GET', `/api/jobs/${job.id}/can-enter`)).json().role).toBe(role);

    const refusals = [
      await call(person, 'PATCH', `/api/jobs/${job.id}`, { title: 'Mine now', version: job.version }),
      await call(person, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Friend', email: 'friend@example.test' }),
      await call(person, 'POST', `/api/jobs/${job.id}/notify`),
      await call(person, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: null }),
    ];
    for (const res of refusals) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    const upload = buildMultipart([{ name: 'mine.pdf', content: pdf }]);
    const uploaded = await t.app.inject({ method: 'POST', url: `/api/jobs/${job.id}/documents`, headers: { ...(await headersFor(person)), ...upload.headers }, payload: upload.payload });
    expect(uploaded.statusCode).toBe(403);
    expect((await call(person, 'GET', `/api/jobs/${job.id}`)).json()).toMatchObject({ title: job.title, version: job.version });
  });

  it('answers 404 to everyone else, whatever they ask about the job', async () => {
    const job = await createJob(await t.createUser({ roles: ['title_agent'] }));
    const participantId = job.participants[0]?.id;
    const stranger = await t.createUser({ roles: ['title_agent'] });
    const attempts = [
      await call(stranger, 'GET', `/api/jobs/${job.id}`),
      await call(stranger, 'PATCH', `/api/jobs/${job.id}`, { title: 'Hijacked', version: job.version }),
      await call(stranger, 'GET', `/api/jobs/${job.id}/documents`),
      await call(stranger, 'GET', `/api/jobs/${job.id}/audit`),
      await call(stranger, 'GET', `/api/jobs/${job.id}/can-enter`),
      await call(stranger, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Intruder', email: 'intruder@example.test' }),
      await call(stranger, 'PATCH', `/api/jobs/${job.id}/signers/${participantId}`, { name: 'Renamed' }),
      await call(stranger, 'DELETE', `/api/jobs/${job.id}/signers/${participantId}`),
      await call(stranger, 'POST', `/api/jobs/${job.id}/signers/remind`),
      await call(stranger, 'POST', `/api/jobs/${job.id}/notify`),
      await call(stranger, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: null }),
      await call(stranger, 'POST', '/api/notifications/dismiss', { jobId: job.id, kind: 'job_ready' }),
    ];
    for (const res of attempts) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'No job with that id, or you may not see it.' });
    }
    expect(await listedIds(stranger)).not.toContain(job.id);
  });
});

describe('who may create a job', () => {
  it.each(['billing', 'finance', 'observer', 'witness'] as Role[])('refuses a %s with 403', async (role) => {
    const res = await call(await t.createUser({ roles: [role] }), 'POST', '/api/jobs', { title: 'Not allowed', notarizationType: 'jurat' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'You do not have permission to do that.' });
  });

  it.each(['admin', 'title', 'title_agent', 'signer'] as Role[])('lets a %s create one', async (role) => {
    const res = await call(await t.createUser({ roles: [role] }), 'POST', '/api/jobs', { title: 'Allowed', notarizationType: 'jurat' });
    expect(res.statusCode).toBe(201);
  });

  it('refuses an account still awaiting approval', async () => {
    const pending = await t.createUser({ roles: ['title_agent'], status: 'pending' });
    const res = await call(pending, 'POST', '/api/jobs', { title: 'Too early', notarizationType: 'jurat' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'pending_approval' });
  });
});
