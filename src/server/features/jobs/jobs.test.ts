import { formatDateTime } from '#shared/dates.ts';
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobSummary } from '#shared/jobs.ts';
import { emailOutbox, jobs, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';
import { createNotary as createNotaryFixture } from '#test/notary-fixtures.ts';

let t: TestApp;
let pdf: Buffer;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  pdf = await makePdf(1);
});
afterAll(async () => t?.close());

const headersFor = (user: TestUser) => t.headersFor(user);

const createNotary = (approvalStatus: 'approved' | 'pending' = 'approved') => createNotaryFixture(t, { approvalStatus });

const email = () => `person-${randomUUID().slice(0, 8)}@example.test`;

function postJob(user: TestUser, payload: Record<string, unknown>) {
  return headersFor(user).then((headers) =>
    t.app.inject({ method: 'POST', url: '/api/jobs', headers, payload: { title: 'Deed of trust', notarizationType: 'acknowledgment', ...payload } }),
  );
}

async function createJob(user: TestUser, payload: Record<string, unknown> = {}): Promise<Job> {
  const res = await postJob(user, { signers: [{ name: 'Sam Signer', email: email() }], ...payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function call(user: TestUser, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: await headersFor(user), ...(payload ? { payload } : {}) });
}

async function upload(user: TestUser, jobId: string) {
  const body = buildMultipart([{ name: 'deed.pdf', content: pdf }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${jobId}/documents`,
    headers: { ...(await headersFor(user)), ...body.headers },
    payload: body.payload,
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function setStatus(user: TestUser, job: Job, status: string, extra: Record<string, unknown> = {}): Promise<Job> {
  const current = (await call(user, 'GET', `/api/jobs/${job.id}`)).json() as Job;
  const res = await call(user, 'PATCH', `/api/jobs/${job.id}`, { status, version: current.version, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Job;
}

const mailTo = (address: string, kind?: string) =>
  t.db
    .select()
    .from(emailOutbox)
    .where(kind ? and(eq(emailOutbox.toAddress, address), eq(emailOutbox.kind, kind)) : eq(emailOutbox.toAddress, address));

describe('GET /api/jobs/notarization-types', () => {
  it('lists the five notarization types with labels and descriptions to any signed-in person', async () => {
    const res = await call(await t.createUser(), 'GET', '/api/jobs/notarization-types');
    expect(res.statusCode).toBe(200);
    const items = res.json().items as Array<{ key: string; label: string; description: string }>;
    expect(items.map((item) => item.key)).toEqual(['acknowledgment', 'jurat', 'oath_affirmation', 'signature_witnessing', 'copy_certification']);
    for (const item of items) expect(item).toEqual({ key: item.key, label: expect.any(String), description: expect.any(String) });
  });

  it('asks an anonymous caller to sign in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/jobs/notarization-types' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });
});

describe('POST /api/jobs', () => {
  it('creates a draft with its participants, owned by the caller, and invites each participant by email', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const signerEmail = email();
    const witnessEmail = email();
    const res = await postJob(agent, {
      title: '  Sale of 12 Elm Street  ',
      notarizationType: 'jurat',
      signers: [
        { name: 'Sam Signer', email: signerEmail.toUpperCase() },
        { name: 'Wendy Witness', email: witnessEmail, role: 'witness' },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Sale of 12 Elm Street',
      notarizationType: 'jurat',
      status: 'draft',
      version: 1,
      createdBy: agent.id,
      notaryId: null,
      scheduledAt: null,
      participantCount: 2,
      documentCount: 0,
      participants: [
        { name: 'Sam Signer', email: signerEmail, role: 'signer', position: 0, hasAccount: false, isIdBypassed: false, invitedAt: expect.any(String) },
        { name: 'Wendy Witness', email: witnessEmail, role: 'witness', position: 1, hasAccount: false },
      ],
      permissions: { canEdit: true, canManageNotary: true, canBypassId: false, canCompleteDocuments: false, isParticipant: false },
      allowedTransitions: ['ready', 'cancelled'],
    });
    expect(await mailTo(signerEmail, 'job_invite')).toHaveLength(1);
    expect((await mailTo(witnessEmail, 'job_invite'))[0]?.subject).toBe('You are invited to witness "Sale of 12 Elm Street"');
  });

  it('makes a notary who creates a job its notary', async () => {
    const notary = await createNotary();
    const job = await createJob(notary);
    expect(job).toMatchObject({ notaryId: notary.id, notaryName: notary.name, permissions: { canBypassId: true, canCompleteDocuments: true } });
  });

  it('files a job created by title company staff under their company', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const [company] = await t.db.insert(titleCompanies).values({ name: 'Acme Title', approvalStatus: 'approved' }).returning();
    await t.db.insert(titleCompanyMembers).values({ companyId: company?.id ?? '', userId: agent.id, role: 'title_agent' });
    const job = await createJob(agent);
    expect(job).toMatchObject({ companyId: company?.id, companyName: 'Acme Title' });
  });

  it('assigns an approved notary and a date given at creation', async () => {
    const notary = await createNotary();
    const scheduledAt = '2031-03-04T15:30:00.000Z';
    const job = await createJob(await t.createUser({ roles: ['admin'] }), { notaryId: notary.id, scheduledAt });
    expect(job).toMatchObject({ notaryId: notary.id, notaryName: notary.name, scheduledAt });
  });

  it.each([
    ['a missing title', { title: '   ' }, 'Enter a title for the job.'],
    ['an unknown notarization type', { notarizationType: 'wedding' }, 'Choose a notarization type.'],
    ['a signer without a name', { signers: [{ name: '', email: 'a@example.test' }] }, "Enter the signer's name."],
    ['a signer with a bad email', { signers: [{ name: 'Al', email: 'not-an-email' }] }, 'Enter a valid email address.'],
    ['a bad date', { scheduledAt: 'next tuesday' }, 'Enter a valid date and time.'],
    ['a date in year 0', { scheduledAt: '0000-01-01T00:00:00Z' }, 'Enter a valid date and time.'],
    ['a date an offset carries into year 10000', { scheduledAt: '9999-12-31T23:59:59-23:59' }, 'Enter a valid date and time.'],
    [
      'eleven participants',
      { signers: Array.from({ length: 11 }, (_, index) => ({ name: `P ${index}`, email: `p${index}@example.test` })) },
      'A job has at most 10 participants.',
    ],
  ])('refuses %s with 400 and a clear message', async (_label, payload, message) => {
    const res = await postJob(await t.createUser({ roles: ['title_agent'] }), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
  });

  it('refuses the same email twice on one job, whatever its case', async () => {
    const res = await postJob(await t.createUser({ roles: ['title_agent'] }), {
      signers: [
        { name: 'One', email: 'twin@example.test' },
        { name: 'Two', email: 'TWIN@example.test' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'bad_request', message: 'Each participant needs a different email address.' });
  });

  it('refuses a notary who is not approved, or who is not a notary at all, and creates nothing', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const before = await t.db.select({ count: sql<number>`count(*)::int` }).from(jobs);
    for (const notaryId of [(await t.createUser({ roles: ['signer'] })).id, randomUUID()]) {
      const res = await postJob(agent, { notaryId });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'bad_request', message: 'Choose an approved, active notary.' });
    }
    const pending = await createNotary('pending');
    const res = await postJob(agent, { notaryId: pending.id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'notary_unavailable', message: `${pending.name} is not an approved notary yet. Choose another notary.` });
    expect(await t.db.select({ count: sql<number>`count(*)::int` }).from(jobs)).toEqual(before);
  });
});

describe('GET /api/jobs', () => {
  it('pages through the caller’s jobs, most recently changed first, with the total', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const created: Job[] = [];
    for (const title of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) created.push(await createJob(agent, { title }));
    const titlesOf = (body: { items: JobSummary[] }) => body.items.map((item) => item.title);
    const first = await call(agent, 'GET', '/api/jobs?pageSize=2');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ total: 5, page: 1, pageSize: 2 });
    expect(titlesOf(first.json())).toEqual(['Echo', 'Delta']);
    expect(titlesOf((await call(agent, 'GET', '/api/jobs?pageSize=2&page=2')).json())).toEqual(['Charlie', 'Bravo']);
    const last = (await call(agent, 'GET', '/api/jobs?pageSize=2&page=3')).json();
    expect(titlesOf(last)).toEqual(['Alpha']);
    expect((await call(agent, 'GET', '/api/jobs?pageSize=2&page=4')).json()).toMatchObject({ items: [], total: 5 });
    expect(first.json().items[0]).toEqual({
      id: created[4]?.id,
      title: 'Echo',
      notarizationType: 'acknowledgment',
      status: 'draft',
      scheduledAt: null,
      notaryName: null,
      companyName: null,
      participantCount: 1,
      documentCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      isInvitation: false,
    });
  });

  it('filters by status and searches titles without regard to case', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const deed = await createJob(agent, { title: 'Warranty DEED for Smith' });
    await createJob(agent, { title: 'Power of attorney' });
    const cancelled = await createJob(agent, { title: 'Old deed' });
    await setStatus(agent, cancelled, 'cancelled');

    const search = (await call(agent, 'GET', '/api/jobs?q=deed')).json();
    expect(search.total).toBe(2);
    expect(search.items.map((item: JobSummary) => item.id).sort()).toEqual([deed.id, cancelled.id].sort());
    const onlyCancelled = (await call(agent, 'GET', '/api/jobs?status=cancelled')).json();
    expect(onlyCancelled).toMatchObject({ total: 1, items: [{ id: cancelled.id, status: 'cancelled' }] });
    expect((await call(agent, 'GET', '/api/jobs?status=draft&q=deed')).json()).toMatchObject({ total: 1, items: [{ id: deed.id }] });
  });

  it('answers the same through the prepared list as through the general query, for every shape it serves', async () => {
    // The plain list, its status filter and its search run as one prepared statement (job-list-read.ts);
    // asking for the counts too goes through the general query: both must list the same rows.
    const agent = await t.createUser({ roles: ['title_agent'] });
    const titles = ['Deed one', 'Deed two', 'Lease', 'Deed three', 'Power of attorney', 'Loan deed'];
    const made: Job[] = [];
    for (const title of titles) made.push(await createJob(agent, { title }));
    await setStatus(agent, made[1] as Job, 'cancelled');
    await setStatus(agent, made[4] as Job, 'cancelled');
    for (const query of [
      '',
      'q=deed',
      'status=cancelled',
      'status=draft&q=DEED',
      'q=nothing',
      'pageSize=2&page=2',
      'pageSize=2&page=9',
      'q=deed&pageSize=1&page=3',
    ]) {
      const prepared = (await call(agent, 'GET', `/api/jobs?${query}`)).json();
      const general = (await call(agent, 'GET', `/api/jobs?${query}&withStatusCounts=true`)).json();
      const { statusCounts: _counts, ...withoutCounts } = general;
      expect(prepared, query).toEqual(withoutCounts);
    }
    expect((await call(agent, 'GET', '/api/jobs?q=deed&pageSize=1&page=3')).json()).toMatchObject({ total: 4, items: [{ title: 'Deed three' }] }); // Deed two, changed last, comes first
  });

  it('treats % and _ in the search as plain characters', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const literal = await createJob(agent, { title: '100% owner_transfer' });
    await createJob(agent, { title: '100 owners transfer' });
    expect((await call(agent, 'GET', `/api/jobs?q=${encodeURIComponent('100%')}`)).json()).toMatchObject({ total: 1, items: [{ id: literal.id }] });
    expect((await call(agent, 'GET', `/api/jobs?q=${encodeURIComponent('owner_')}`)).json()).toMatchObject({ total: 1, items: [{ id: literal.id }] });
  });

  it.each([
    ['an unknown status', 'status=archived'],
    ['page zero', 'page=0'],
    ['a page size over 100', 'pageSize=101'],
  ])('refuses %s with 400', async (_label, query) => {
    const res = await call(await t.createUser({ roles: ['title_agent'] }), 'GET', `/api/jobs?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
  });
});

describe('GET and PATCH /api/jobs/:id', () => {
  it('answers 404 for an unknown job and 400 for an id that is not a UUID', async () => {
    const admin = await t.createUser({ roles: ['admin'] });
    const missing = await call(admin, 'GET', `/api/jobs/${randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'not_found', message: 'No job with that id, or you may not see it.' });
    const malformed = await call(admin, 'GET', '/api/jobs/12');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'Job id must be a UUID.' });
  });

  it('edits the title, type and date, and records what changed', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}`, {
      title: 'Corrected title',
      notarizationType: 'copy_certification',
      scheduledAt: '2031-01-02T03:04:05+02:00',
      version: job.version,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Corrected title', notarizationType: 'copy_certification', scheduledAt: '2031-01-02T01:04:05.000Z', version: 2 });
    const audit = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json();
    expect(audit.events.at(-1)).toMatchObject({
      action: 'job.updated',
      actorId: agent.id,
      actorName: agent.name,
      data: { title: 'Corrected title', notarizationType: 'copy_certification', scheduledAt: '2031-01-02T01:04:05.000Z' },
    });
  });
});

describe('POST /api/jobs/:id/notify', () => {
  it('emails every participant about the job and says how many', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const addresses = [email(), email()];
    const job = await createJob(agent, { title: 'Notify me', signers: addresses.map((address, index) => ({ name: `Person ${index}`, email: address })) });
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/notify`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ notified: 2 });
    for (const address of addresses) {
      const [mail] = await mailTo(address, 'job_update');
      expect(mail?.subject).toBe('Update on "Notify me"');
      expect(mail?.textBody).toContain(`${t.config.publicUrl}/jobs/detail?jobId=${job.id}`);
    }
    const audit = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json();
    expect(audit.events.at(-1)).toMatchObject({ action: 'job.participants_notified', data: { count: 2 } });
  });

  it('writes the date of a scheduled job the way people read it, not as a raw timestamp', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const address = email();
    const job = await createJob(agent, { title: 'Dated', signers: [{ name: 'Dana Dated', email: address }] });
    const patched = await call(agent, 'PATCH', `/api/jobs/${job.id}`, { scheduledAt: '2031-02-03T16:00:00Z', version: job.version });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await call(agent, 'POST', `/api/jobs/${job.id}/notify`)).statusCode).toBe(200);
    const [mail] = await mailTo(address, 'job_update');
    expect(mail?.textBody).toContain('"Dated" is now draft, scheduled for Feb 3, 2031, 4:00 PM UTC.');
    expect(mail?.textBody).not.toContain('GMT');
    expect(mail?.htmlBody).toContain('scheduled for Feb 3, 2031, 4:00 PM UTC.');
  });

  it('allows five notifications per job and hour, then answers 429 with the wait', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    for (let index = 0; index < 5; index += 1) expect((await call(agent, 'POST', `/api/jobs/${job.id}/notify`)).statusCode).toBe(200);
    const limited = await call(agent, 'POST', `/api/jobs/${job.id}/notify`);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('Please wait') });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('POST /api/jobs/:id/notify-ready-for-notary', () => {
  it('needs a notary on the job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/notify-ready-for-notary`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'Assign a notary to this job first.' });
  });

  it('needs the job to be ready or scheduled', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent, { notaryId: (await createNotary()).id });
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/notify-ready-for-notary`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'Only a ready or scheduled job can be sent to the notary.' });
  });

  it('emails the notary of a ready job and records it', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { title: 'Ready one', notaryId: notary.id });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/notify-ready-for-notary`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ notified: 1 });
    const [mail] = await mailTo(notary.email, 'job_ready_for_notary');
    expect(mail).toMatchObject({ subject: 'Ready for you: "Ready one"' });
    expect(mail?.textBody).toContain(`/jobs/detail?jobId=${job.id}`);
    const audit = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json();
    expect(audit.events.at(-1)).toMatchObject({ action: 'job.notary_notified', data: { notaryId: notary.id } });
  });
});

describe('POST /api/jobs/:id/replace-notary', () => {
  it('assigns an approved notary, emails them, and shows them the job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { title: 'Needs a notary' });
    expect((await call(notary, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);

    const res = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: notary.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ notaryId: notary.id, notaryName: notary.name, version: job.version + 1 });
    expect((await mailTo(notary.email, 'job_assigned'))[0]?.subject).toBe('You were assigned "Needs a notary"');
    const seen = await call(notary, 'GET', `/api/jobs/${job.id}`);
    expect(seen.statusCode).toBe(200);
    expect(seen.json().permissions).toMatchObject({ canEdit: true, canManageNotary: false, canBypassId: true, canCompleteDocuments: true });
    const audit = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json();
    expect(audit.events.at(-1)).toMatchObject({ action: 'job.notary_replaced', data: { from: null, to: notary.id } });
  });

  it('replaces one notary with another, who then sees the job while the first no longer does', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const [first, second] = [await createNotary(), await createNotary()];
    const job = await createJob(agent, { notaryId: first.id });
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: second.id });
    expect(res.statusCode).toBe(200);
    expect((await call(first, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    expect((await call(second, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(200);
  });

  it('refuses a notary who is not approved yet', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    const pending = await createNotary('pending');
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: pending.id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'notary_unavailable', message: `${pending.name} is not an approved notary yet. Choose another notary.` });
    expect((await call(agent, 'GET', `/api/jobs/${job.id}`)).json()).toMatchObject({ notaryId: null, version: job.version });
  });

  it('removes the notary of a ready job, but not of a scheduled one', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { notaryId: notary.id, scheduledAt: '2031-05-05T10:00:00Z' });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    const scheduled = await setStatus(agent, job, 'scheduled');
    const refused = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: null });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'conflict', message: 'A scheduled job needs a notary; unschedule it first.' });
    expect((await call(agent, 'GET', `/api/jobs/${job.id}`)).json()).toMatchObject({ notaryId: notary.id, version: scheduled.version });

    await setStatus(agent, job, 'ready');
    const removed = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: null });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ notaryId: null, notaryName: null });
  });

  it('does not let the assigned notary hand the job to someone else', async () => {
    const notary = await createNotary();
    const job = await createJob(await t.createUser({ roles: ['title_agent'] }), { notaryId: notary.id });
    const res = await call(notary, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: (await createNotary()).id });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'forbidden', message: 'Only the job’s owner, its company or an administrator may change the notary.' });
  });

  it('answers 400 when the notary id is not a UUID', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: 'nora' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Choose a notary.' });
  });
});

/** can-enter's place in the open session when there is none (decision 021). */
const noPlace = { sessionId: null, sessionStatus: null, participantId: null, lobbyState: null, recording: null };
/** Someone who takes no identity step: not a signer or witness of the job. */
const noIdentity = (policyCode: string) => ({ required: false, satisfied: true, checkId: null, status: null, policyCode });

describe('GET /api/jobs/:id/can-enter', () => {
  it('lists every reason a draft without notary or documents cannot be entered', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await createJob(agent);
    const res = await call(agent, 'GET', `/api/jobs/${job.id}/can-enter`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      canEnter: false,
      role: null,
      reasons: [
        'The job is not ready yet.',
        'No notary is assigned yet.',
        'The job has no documents yet.',
        'Only the job’s notary and its signers, witnesses and observers enter the session. Ask the job’s preparer to invite you as an observer.',
      ],
      notices: [],
      session: noPlace,
      identity: noIdentity('RULONA'),
    });
  });

  it('lets the notary in once the job is ready, and not the staff or an administrator who are not on the job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { notaryId: notary.id });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    expect((await call(notary, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toEqual({
      canEnter: true,
      role: 'notary',
      reasons: [],
      notices: [],
      session: noPlace,
      identity: noIdentity('VA'),
    });
    const admin = await t.createUser({ roles: ['admin'] });
    for (const person of [agent, admin]) {
      expect((await call(person, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toMatchObject({ canEnter: false, role: null });
    }
  });

  it('keeps a scheduled session closed until 15 minutes before its time', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const scheduledAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    const job = await createJob(agent, { notaryId: notary.id, scheduledAt });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    await setStatus(agent, job, 'scheduled');
    expect((await call(notary, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toEqual({
      canEnter: false,
      role: 'notary',
      reasons: [`The session opens 15 minutes before its time, ${formatDateTime(scheduledAt, { locale: 'en-US', timeZone: 'UTC' })}.`],
      notices: [],
      session: noPlace,
      identity: noIdentity('VA'),
    });
    const current = (await call(agent, 'GET', `/api/jobs/${job.id}`)).json() as Job;
    const soon = await call(agent, 'PATCH', `/api/jobs/${job.id}`, { scheduledAt: new Date(Date.now() + 10 * 60_000).toISOString(), version: current.version });
    expect(soon.statusCode).toBe(200);
    expect((await call(notary, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toEqual({
      canEnter: true,
      role: 'notary',
      reasons: [],
      notices: [],
      session: noPlace,
      identity: noIdentity('VA'),
    });
  });

  it('closes a finished job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { notaryId: notary.id });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    await setStatus(notary, job, 'in_session');
    await createJobKit(t).sealJob(notary, job.id);
    expect((await call(notary, 'GET', `/api/jobs/${job.id}/can-enter`)).json()).toEqual({
      canEnter: false,
      role: 'notary',
      reasons: ['This job is completed.'],
      notices: [],
      session: noPlace,
      identity: noIdentity('VA'),
    });
  });
});

describe('GET /api/jobs/:id/audit', () => {
  it('lists every change in order with who made it, and verifies the chain', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await createNotary();
    const job = await createJob(agent, { notaryId: notary.id });
    await upload(agent, job.id);
    await setStatus(agent, job, 'ready');
    await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Late Lucy', email: email() });
    const res = await call(notary, 'GET', `/api/jobs/${job.id}/audit`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.events.map((event: { action: string }) => event.action)).toEqual([
      'job.created',
      'participant.added',
      'document.uploaded',
      'job.status_changed',
      'participant.added',
    ]);
    for (const event of body.events) {
      expect(event).toMatchObject({ actorId: agent.id, actorName: agent.name, ipAddress: '127.0.0.1', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    expect(body.verification).toEqual({ isValid: true, eventCount: 5, firstBrokenEventId: null });
    const creatorView = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json();
    expect(creatorView.events.map((event: { action: string }) => event.action)).toEqual(body.events.map((event: { action: string }) => event.action));
    expect(creatorView.events[0]).not.toHaveProperty('ipAddress');
  });
});
