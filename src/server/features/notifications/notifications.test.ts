import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, JobStatus } from '#shared/jobs.ts';
import type { PendingJobItem } from '#shared/notifications.ts';
import { emailOutbox } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let agent: TestUser;
let notary: TestUser;
let pdf: Buffer;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t);
  pdf = await makePdf(1);
});
afterAll(async () => t?.close());

const headersFor = (user: TestUser) => t.headersFor(user);

async function call(user: TestUser, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: await headersFor(user), ...(payload ? { payload } : {}) });
}

const paths: Record<JobStatus, JobStatus[]> = {
  draft: [],
  ready: ['ready'],
  scheduled: ['ready', 'scheduled'],
  in_session: ['ready', 'in_session'],
  completed: ['ready', 'in_session'],
  cancelled: ['cancelled'],
};

/** A job with the signer on it (who accepts the invitation unless told not to), moved to a status. */
async function jobFor(signer: TestUser, status: JobStatus, options: { isAccepted?: boolean } = {}): Promise<Job> {
  const title = `Closing ${randomUUID().slice(0, 8)}`;
  const created = await call(agent, 'POST', '/api/jobs', {
    title,
    notarizationType: 'acknowledgment',
    notaryId: notary.id,
    scheduledAt: '2031-02-03T16:00:00.000Z',
    signers: [{ name: signer.name, email: signer.email }],
  });
  expect(created.statusCode, created.body).toBe(201);
  const job = created.json() as Job;
  const body = buildMultipart([{ name: 'deed.pdf', content: pdf }]);
  expect(
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/jobs/${job.id}/documents`,
        headers: { ...(await headersFor(agent)), ...body.headers },
        payload: body.payload,
      })
    ).statusCode,
  ).toBe(201);
  if (options.isAccepted !== false) {
    const [mail] = await t.db
      .select({ textBody: emailOutbox.textBody })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, signer.email), eq(emailOutbox.subject, `You are invited to sign "${title}"`)));
    const token = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1];
    expect((await call(signer, 'POST', `/api/invites/${token}/accept`)).statusCode).toBe(200);
  }
  let version = job.version;
  for (const next of paths[status]) {
    // Only the job's notary starts a session; a job is completed only by sealing it.
    const res = await call(next === 'in_session' ? notary : agent, 'PATCH', `/api/jobs/${job.id}`, { status: next, version });
    expect(res.statusCode, res.body).toBe(200);
    version = res.json().version;
  }
  if (status === 'completed') await createJobKit(t).sealJob(notary, job.id);
  return job;
}

async function pending(user: TestUser): Promise<{ ok: true; items: PendingJobItem[]; has_blocking: boolean }> {
  const res = await call(user, 'GET', '/api/notifications/users/me/pending-jobs');
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('GET /api/notifications/users/me/pending-jobs', () => {
  it('lists a signer’s open jobs, most recent first, with a live session as blocking', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const ready = await jobFor(signer, 'ready');
    const scheduled = await jobFor(signer, 'scheduled');
    const live = await jobFor(signer, 'in_session');
    await jobFor(signer, 'draft');
    await jobFor(signer, 'completed');
    await jobFor(signer, 'cancelled');

    const body = await pending(signer);
    expect(body).toEqual({
      ok: true,
      has_blocking: true,
      items: [
        {
          jobId: live.id,
          title: live.title,
          kind: 'session_live',
          message: 'Your notarization session is live: join now.',
          isBlocking: true,
          at: expect.any(String),
        },
        {
          jobId: scheduled.id,
          title: scheduled.title,
          kind: 'session_scheduled',
          message: 'Session scheduled for Feb 3, 2031, 4:00 PM UTC.',
          isBlocking: false,
          at: expect.any(String),
        },
        {
          jobId: ready.id,
          title: ready.title,
          kind: 'job_ready',
          message: 'Your documents are ready: prove your identity before the session.',
          isBlocking: false,
          at: expect.any(String),
        },
      ],
    });
  });

  it('tells the notary which jobs are ready for them and which session is theirs now', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const ready = await jobFor(signer, 'ready');
    const live = await jobFor(signer, 'in_session');
    const items = (await pending(notary)).items;
    expect(items).toContainEqual(
      expect.objectContaining({ jobId: ready.id, kind: 'ready_for_notary', message: 'A job is ready for you to notarize.', isBlocking: false }),
    );
    expect(items).toContainEqual(expect.objectContaining({ jobId: live.id, kind: 'session_live', message: 'Your session is in progress.', isBlocking: true }));
  });

  it('tells the signer at once when the notary opens the room of a ready job, before the act starts', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const ready = await jobFor(signer, 'ready');
    const opened = await call(notary, 'POST', '/api/video/session', { jobId: ready.id });
    expect(opened.statusCode, opened.body).toBeLessThan(300);
    const body = await pending(signer);
    expect(body.items).toEqual([
      {
        jobId: ready.id,
        title: ready.title,
        kind: 'session_open',
        message: 'The notary has opened the session room: enter now.',
        isBlocking: true,
        at: expect.any(String),
      },
    ]);
    expect(body.has_blocking).toBe(true);
    expect((await pending(notary)).items).toContainEqual(
      expect.objectContaining({ jobId: ready.id, kind: 'session_open', message: 'Your session room is open.' }),
    );
  });

  it('shows nothing to a person who has not accepted the invitation yet, or to someone with no jobs', async () => {
    const invited = await t.createUser({ roles: ['signer'] });
    await jobFor(invited, 'in_session', { isAccepted: false });
    expect(await pending(invited)).toEqual({ ok: true, items: [], has_blocking: false });
    expect(await pending(await t.createUser({ roles: ['signer'] }))).toEqual({ ok: true, items: [], has_blocking: false });
  });

  it('asks an anonymous caller to sign in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/notifications/users/me/pending-jobs' });
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/notifications/dismiss', () => {
  it('hides the dismissed item for that person only', async () => {
    const [signer, cosigner] = [await t.createUser({ roles: ['signer'] }), await t.createUser({ roles: ['signer'] })];
    const live = await jobFor(signer, 'in_session');
    const ready = await jobFor(signer, 'ready');
    const res = await call(signer, 'POST', '/api/notifications/dismiss', { jobId: live.id, kind: 'session_live' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });

    const after = await pending(signer);
    expect(after.items.map((item) => item.jobId)).toEqual([ready.id]);
    expect(after.has_blocking).toBe(false);
    expect((await pending(notary)).items).toContainEqual(expect.objectContaining({ jobId: live.id, kind: 'session_live' }));
    expect((await pending(cosigner)).items).toEqual([]);
  });

  it('accepts the same dismissal twice', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const ready = await jobFor(signer, 'ready');
    for (let index = 0; index < 2; index += 1)
      expect((await call(signer, 'POST', '/api/notifications/dismiss', { jobId: ready.id, kind: 'job_ready' })).statusCode).toBe(200);
    expect((await pending(signer)).items).toEqual([]);
  });

  it('answers 404 for a job the person is not on, and 400 for an id that is not a UUID', async () => {
    const [signer, stranger] = [await t.createUser({ roles: ['signer'] }), await t.createUser({ roles: ['signer'] })];
    const live = await jobFor(signer, 'in_session');
    const foreign = await call(stranger, 'POST', '/api/notifications/dismiss', { jobId: live.id, kind: 'session_live' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'not_found', message: 'No job with that id, or you may not see it.' });
    const malformed = await call(stranger, 'POST', '/api/notifications/dismiss', { jobId: 'job-1', kind: 'session_live' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'jobId must be a UUID.' });
    expect((await pending(signer)).has_blocking).toBe(true);
  });
});
