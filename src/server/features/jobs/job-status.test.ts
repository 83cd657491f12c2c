import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobStatus } from '#shared/jobs.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let agentHeaders: Record<string, string>;
let notaryHeaders: Record<string, string>;
let notary: TestUser;
let pdf: Buffer;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agentHeaders = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
  notary = await createNotary(t);
  notaryHeaders = await t.signInAs(notary);
  pdf = await makePdf(1);
});
afterAll(async () => t?.close());

const future = () => new Date(Date.now() + 3 * 86_400_000).toISOString();
const email = () => `signer-${randomUUID().slice(0, 8)}@example.test`;

interface JobOptions {
  signers?: Array<{ name: string; email: string; role?: string }>;
  hasDocument?: boolean;
  hasNotary?: boolean;
  scheduledAt?: string | null;
}

/** A job created through the API; by default it has everything any move needs. */
async function createJob(options: JobOptions = {}): Promise<Job> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: agentHeaders,
    payload: {
      title: 'Refinance closing',
      notarizationType: 'acknowledgment',
      signers: options.signers ?? [{ name: 'Sam Signer', email: email() }],
      notaryId: options.hasNotary === false ? null : notary.id,
      scheduledAt: options.scheduledAt === undefined ? future() : options.scheduledAt,
    },
  });
  expect(res.statusCode).toBe(201);
  const job = res.json() as Job;
  if (options.hasDocument !== false) {
    const upload = buildMultipart([{ name: 'deed.pdf', content: pdf }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...agentHeaders, ...upload.headers },
      payload: upload.payload,
    });
    expect(uploaded.statusCode).toBe(201);
  }
  return getJob(job.id);
}

async function getJob(id: string): Promise<Job> {
  const res = await t.app.inject({ method: 'GET', url: `/api/jobs/${id}`, headers: agentHeaders });
  expect(res.statusCode).toBe(200);
  return res.json() as Job;
}

const patchJob = (id: string, payload: Record<string, unknown>, headers = agentHeaders) =>
  t.app.inject({ method: 'PATCH', url: `/api/jobs/${id}`, headers, payload });

/** Who makes a move: the job's notary starts, pauses and ends sessions; the title agent prepares the job. */
const moverOf = (from: JobStatus, to: JobStatus) => (from === 'in_session' || to === 'in_session' ? notaryHeaders : agentHeaders);

/** Walks a job through statuses with the API, as its people would; `completed` is reached by sealing it. */
async function moveThrough(job: Job, statuses: JobStatus[]): Promise<Job> {
  let current = job;
  for (const status of statuses) {
    if (status === 'completed') return createJobKit(t).sealJob(notary, current.id);
    const res = await patchJob(current.id, { status, version: current.version }, moverOf(current.status, status));
    expect(res.statusCode, res.body).toBe(200);
    current = res.json() as Job;
  }
  return current;
}

const pathTo: Record<JobStatus, JobStatus[]> = {
  draft: [],
  ready: ['ready'],
  scheduled: ['ready', 'scheduled'],
  in_session: ['ready', 'in_session'],
  completed: ['ready', 'in_session', 'completed'],
  cancelled: ['cancelled'],
};

async function jobIn(status: JobStatus, options: JobOptions = {}): Promise<Job> {
  return moveThrough(await createJob(options), pathTo[status]);
}

async function auditActions(id: string): Promise<Array<{ action: string; data: Record<string, unknown> }>> {
  const res = await t.app.inject({ method: 'GET', url: `/api/jobs/${id}/audit`, headers: agentHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().events;
}

describe('moving a job along its state machine with PATCH /api/jobs/:id', () => {
  it.each([
    ['draft', 'ready'],
    ['draft', 'cancelled'],
    ['ready', 'draft'],
    ['ready', 'scheduled'],
    ['ready', 'in_session'],
    ['ready', 'cancelled'],
    ['scheduled', 'ready'],
    ['scheduled', 'in_session'],
    ['scheduled', 'cancelled'],
    ['in_session', 'ready'],
    ['in_session', 'cancelled'],
  ] as Array<[JobStatus, JobStatus]>)('moves a %s job to %s, bumps its version and records the move', async (from, to) => {
    const job = await jobIn(from);
    expect(job.status).toBe(from);
    const res = await patchJob(job.id, { status: to, version: job.version, reason: 'client asked' }, moverOf(from, to));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: job.id, status: to, version: job.version + 1 });
    const events = await auditActions(job.id);
    expect(events.at(-1)).toMatchObject({ action: 'job.status_changed', data: { from, to, reason: 'client asked' } });
  });

  it.each([
    ['draft', 'scheduled'],
    ['draft', 'in_session'],
    ['draft', 'completed'],
    ['ready', 'completed'],
    ['scheduled', 'draft'],
    ['scheduled', 'completed'],
    ['in_session', 'draft'],
    ['in_session', 'scheduled'],
    ['completed', 'ready'],
    ['completed', 'cancelled'],
    ['cancelled', 'draft'],
    ['cancelled', 'ready'],
  ] as Array<[JobStatus, JobStatus]>)('refuses to move a %s job to %s with 409 invalid_transition and leaves it as it was', async (from, to) => {
    const job = await jobIn(from);
    const eventCount = (await auditActions(job.id)).length;
    const res = await patchJob(job.id, { status: to, version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'invalid_transition',
      message: expect.stringMatching(/^A .+ job cannot become .+\.$/),
      detail: { from, to, allowed: expect.any(Array) },
    });
    expect(res.json().detail.allowed).not.toContain(to);
    const after = await getJob(job.id);
    expect(after).toMatchObject({ status: from, version: job.version });
    expect(await auditActions(job.id)).toHaveLength(eventCount);
  });

  it('says in plain words which move is illegal', async () => {
    const job = await jobIn('completed');
    const res = await patchJob(job.id, { status: 'ready', version: job.version });
    expect(res.json().message).toBe('A completed job cannot become ready.');
  });

  it('lists the moves each editor may make next', async () => {
    const job = await jobIn('scheduled');
    expect(job.allowedTransitions).toEqual(['ready', 'cancelled']);
    const forNotary = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: notaryHeaders });
    expect(forNotary.json().allowedTransitions).toEqual(['ready', 'in_session']);
    expect((await jobIn('cancelled')).allowedTransitions).toEqual([]);
  });
});

describe('preconditions of a move', () => {
  it('refuses to mark a draft ready without a signer, even when it has a witness', async () => {
    const job = await createJob({ signers: [{ name: 'Wendy Witness', email: email(), role: 'witness' }] });
    const res = await patchJob(job.id, { status: 'ready', version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'invalid_transition', message: 'Add at least one signer before marking the job ready.' });
    expect((await getJob(job.id)).status).toBe('draft');
  });

  it('refuses to mark a draft ready without a document', async () => {
    const job = await createJob({ hasDocument: false });
    const res = await patchJob(job.id, { status: 'ready', version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'invalid_transition', message: 'Upload at least one document before marking the job ready.' });
  });

  it('refuses to schedule a job without a date and time', async () => {
    const job = await jobIn('ready', { scheduledAt: null });
    const res = await patchJob(job.id, { status: 'scheduled', version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'invalid_transition', message: 'Set a date and time before scheduling the job.' });
  });

  it('schedules a job when the date arrives in the same request as the move', async () => {
    const job = await jobIn('ready', { scheduledAt: null });
    const scheduledAt = future();
    const res = await patchJob(job.id, { status: 'scheduled', scheduledAt, version: job.version });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'scheduled', scheduledAt: new Date(scheduledAt).toISOString() });
  });

  it('refuses to schedule a job without a notary', async () => {
    const job = await jobIn('ready', { hasNotary: false });
    const res = await patchJob(job.id, { status: 'scheduled', version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'invalid_transition', message: 'Assign a notary before scheduling the job.' });
  });

  it('refuses to start a session without a notary: only the job’s notary starts one', async () => {
    const job = await jobIn('ready', { hasNotary: false });
    const res = await patchJob(job.id, { status: 'in_session', version: job.version });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'forbidden', message: 'Only the job’s notary may start the session.' });
    expect((await getJob(job.id)).status).toBe('ready');
  });

  it('refuses to clear the date of a scheduled job, which would leave it scheduled for no time', async () => {
    const job = await jobIn('scheduled');
    const res = await patchJob(job.id, { scheduledAt: null, version: job.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: expect.stringContaining('date') });
    expect(await getJob(job.id)).toMatchObject({ status: 'scheduled', scheduledAt: job.scheduledAt, version: job.version });
  });

  it('clears the date when the same request moves the job back to ready', async () => {
    const job = await jobIn('scheduled');
    const res = await patchJob(job.id, { status: 'ready', scheduledAt: null, version: job.version });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', scheduledAt: null });
  });
});

describe('optimistic concurrency on a job', () => {
  it('answers 412 to a stale version and changes nothing', async () => {
    const job = await createJob();
    const first = await patchJob(job.id, { title: 'Renamed once', version: job.version });
    expect(first.statusCode).toBe(200);
    const eventCount = (await auditActions(job.id)).length;

    const stale = await patchJob(job.id, { title: 'Renamed from an old tab', status: 'ready', version: job.version });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toEqual({ error: 'stale_version', message: expect.stringContaining('Reload'), detail: { currentVersion: job.version + 1 } });
    expect(await getJob(job.id)).toMatchObject({ title: 'Renamed once', status: 'draft', version: job.version + 1 });
    expect(await auditActions(job.id)).toHaveLength(eventCount);
  });

  it('lets only one of two simultaneous edits of the same version through', async () => {
    const job = await createJob();
    const results = await Promise.all(['From tab one', 'From tab two'].map((title) => patchJob(job.id, { title, version: job.version })));
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 412]);
    const winner = results.find((res) => res.statusCode === 200)?.json() as Job;
    expect(await getJob(job.id)).toMatchObject({ title: winner.title, version: job.version + 1 });
  });

  it('changes nothing when a detail edit comes with an illegal move', async () => {
    const job = await createJob();
    const res = await patchJob(job.id, { title: 'Should not stick', status: 'completed', version: job.version });
    expect(res.statusCode).toBe(409);
    expect(await getJob(job.id)).toMatchObject({ title: job.title, status: 'draft', version: job.version });
  });

  it('refuses a request that changes nothing', async () => {
    const job = await createJob();
    const res = await patchJob(job.id, { version: job.version });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Nothing to change.' });
  });
});

describe('a job that has started, finished or been cancelled', () => {
  it.each(['in_session', 'completed', 'cancelled'] as JobStatus[])('refuses edits to a %s job with 409 job_locked', async (status) => {
    const job = await jobIn(status);
    const edits = await Promise.all([
      patchJob(job.id, { title: 'Too late', version: job.version }),
      patchJob(job.id, { scheduledAt: future(), version: job.version }),
      t.app.inject({ method: 'POST', url: `/api/jobs/${job.id}/signers`, headers: agentHeaders, payload: { name: 'Late Larry', email: email() } }),
      t.app.inject({
        method: 'PATCH',
        url: `/api/jobs/${job.id}/signers/${job.participants[0]?.id}`,
        headers: agentHeaders,
        payload: { name: 'Renamed' },
      }),
      t.app.inject({ method: 'DELETE', url: `/api/jobs/${job.id}/signers/${job.participants[0]?.id}`, headers: agentHeaders }),
      t.app.inject({ method: 'POST', url: `/api/jobs/${job.id}/replace-notary`, headers: agentHeaders, payload: { notaryId: null } }),
    ]);
    for (const res of edits) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ error: 'job_locked', message: expect.any(String) });
    }
    const upload = buildMultipart([{ name: 'late.pdf', content: pdf }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...agentHeaders, ...upload.headers },
      payload: upload.payload,
    });
    expect(uploaded.statusCode).toBe(409);
    expect(uploaded.json()).toMatchObject({ error: 'job_locked' });
    expect(await getJob(job.id)).toMatchObject({ title: job.title, version: job.version, participantCount: 1, documentCount: 1 });
  });

  it('finishes a live session only when the notary seals it, never by PATCH', async () => {
    const job = await jobIn('in_session');
    for (const headers of [agentHeaders, notaryHeaders]) {
      const res = await patchJob(job.id, { status: 'completed', version: job.version }, headers);
      expect([403, 409]).toContain(res.statusCode);
      expect((await getJob(job.id)).status).toBe('in_session');
    }
    expect((await createJobKit(t).sealJob(notary, job.id)).status).toBe('completed');
  });
});
