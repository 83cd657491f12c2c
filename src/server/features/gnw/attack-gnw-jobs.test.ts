import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { auditEvents, instantRequests, jobParticipants, payments, priceItems } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

/**
 * What outsiders try against Notarize Now jobs: reading, changing, paying for or finishing someone
 * else's request (a guest never reads another guest's job, whatever their role or their place on
 * the job), calling without signing in, and feeding the calls bad, huge or binary input.
 */

/** Many sign-ins per test take longer than the default on a busy machine. */
const slow = { timeout: 120_000 };

let t: TestApp;
let kit: ReturnType<typeof createJobKit>;
let owner: TestUser;
let jobId: string;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  await t.db
    .insert(priceItems)
    .values([{ key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform', companyId: null, position: 0 }]);
  owner = await t.createUser({ roles: ['signer'], name: 'Olivia Owner' });
  const created = await send(owner, 'POST', '/api/gnw/jobs', {});
  expect(created.statusCode, created.body).toBe(201);
  jobId = created.json().jobId as string;
  await kit.uploadPdf(owner, jobId);
});
afterAll(async () => {
  await t?.close();
});

async function send(user: TestUser | null, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url,
    headers: { ...(user ? await kit.headersFor(user) : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** Every call about one job, as someone would send it. */
const callsAbout = (id: string) =>
  [
    ['GET', `/api/gnw/jobs/${id}`, undefined],
    ['PUT', `/api/gnw/jobs/${id}`, { step: 'done', witnessesRequested: 2, otherSigners: [{ name: 'Mallory', email: 'mallory@example.test' }] }],
    ['POST', '/api/gnw/preauth', { jobId: id, paymentMethod: 'pm_card_visa' }],
    ['POST', '/api/gnw/finalize', { jobId: id }],
    ['POST', '/api/gnw/estimate', { jobId: id }],
  ] as const;

async function requestOf(id: string) {
  const [row] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, id));
  return row;
}

describe('someone else’s request', () => {
  it('is not found for every other role, and nothing of it changes', slow, async () => {
    const before = await requestOf(jobId);
    const eventsBefore = (await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, jobId))).length;
    for (const roles of [['signer'], ['witness'], ['notary'], ['admin'], ['title'], ['title_agent'], ['billing'], ['finance'], ['observer']] as Role[][]) {
      const stranger = await t.createUser({ roles });
      for (const [method, url, payload] of callsAbout(jobId)) {
        const res = await send(stranger, method, url, payload);
        expect(res.statusCode, `${roles[0]} ${method} ${url}: ${res.body}`).toBe(404);
        expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request of yours has that job id.' });
      }
    }
    expect(await requestOf(jobId)).toEqual(before);
    expect(await t.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId))).toHaveLength(1);
    expect(await t.db.select().from(payments).where(eq(payments.jobId, jobId))).toEqual([]);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, jobId))).toHaveLength(eventsBefore);
  });

  it('is not found for an invited signer on the same job: being on the job is not asking for it', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const created = await send(person, 'POST', '/api/gnw/jobs', {});
    const ownJobId = created.json().jobId as string;
    const guestEmail = uniqueEmail('guest');
    const put = await send(person, 'PUT', `/api/gnw/jobs/${ownJobId}`, { otherSigners: [{ name: 'Gus Guest', email: guestEmail }] });
    expect(put.statusCode, put.body).toBe(200);
    const guest = await t.createUser({ roles: ['signer'], email: guestEmail, name: 'Gus Guest', isEmailVerified: true });
    expect((await kit.acceptInvitation(guest)).statusCode).toBe(200);
    // The guest sees the job as its signer, and nothing of the request.
    expect((await send(guest, 'GET', `/api/jobs/${ownJobId}`)).statusCode).toBe(200);
    for (const [method, url, payload] of callsAbout(ownJobId)) {
      const res = await send(guest, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await send(guest, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
  });

  it('is not found for an ordinary job, even to its own creator', slow, async () => {
    const notary = await kit.createNotary();
    const job = await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    for (const [method, url, payload] of callsAbout(job.id)) {
      const res = await send(notary, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it('is never found by a guessed job id', slow, async () => {
    const stranger = await t.createUser({ roles: ['signer'] });
    for (const [method, url, payload] of callsAbout(crypto.randomUUID())) {
      expect((await send(stranger, method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
  });
});

describe('without signing in', () => {
  it('answers 401 to every call but the estimate, which answers 401 only for a named job', slow, async () => {
    for (const [method, url, payload] of [...callsAbout(jobId), ['POST', '/api/gnw/jobs', {}], ['GET', '/api/gnw/active', undefined]] as const) {
      const res = await send(null, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
    }
    expect((await send(null, 'POST', '/api/gnw/estimate', {})).statusCode).toBe(200);
  });
});

describe('bad input', () => {
  it.each([
    ['GET', '/api/gnw/jobs/not-a-uuid', undefined, 'Job id must be a UUID.'],
    ['PUT', '/api/gnw/jobs/%00', { step: 'done' }, null],
    ['POST', '/api/gnw/preauth', { jobId: '../../etc/passwd' }, 'jobId must be a job id.'],
    ['POST', '/api/gnw/preauth', { jobId: 'JOB', paymentMethod: 'pm_x' }, 'jobId must be a job id.'],
    ['POST', '/api/gnw/preauth', { paymentMethod: 'card_1234' }, null],
    ['POST', '/api/gnw/finalize', { jobId: 42 }, null],
    ['POST', '/api/gnw/finalize', [], null],
    ['POST', '/api/gnw/jobs', { lane: 'teleport' }, 'Choose now or a scheduled time.'],
    ['POST', '/api/gnw/jobs', { companyId: crypto.randomUUID() }, null],
    ['POST', '/api/gnw/jobs', { title: 'x'.repeat(201) }, null],
    ['PUT', '/api/gnw/jobs/JOBID', { otherSigners: Array.from({ length: 10 }, (_, index) => ({ name: `P${index}`, email: `p${index}@example.test` })) }, null],
    ['PUT', '/api/gnw/jobs/JOBID', { otherSigners: [{ name: 'No Mail', email: 'not-an-address' }] }, 'Each other signer needs an email address.'],
    ['PUT', '/api/gnw/jobs/JOBID', { signerState: 'va' }, 'Choose the state you are in.'],
  ] as const)('%s %s %j answers 400 with a sentence', slow, async (method, url, payload, message) => {
    const res = await send(owner, method, url.replace('JOBID', jobId), payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: expect.stringMatching(/^(validation_failed|bad_request)$/),
      message: message ?? expect.stringMatching(/\w{3,}/),
    });
  });

  it('answers a NUL, a broken JSON body and a huge body with sentences, never a 500', slow, async () => {
    const headers = { ...(await kit.headersFor(owner)), 'content-type': 'application/json' };
    const nul = await t.app.inject({ method: 'PUT', url: `/api/gnw/jobs/${jobId}`, headers, payload: '{"timeZone":"America/Chicago\\u0000"}' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ error: 'validation_failed', message: 'timeZone must be a time zone such as America/Chicago.' });
    const broken = await t.app.inject({ method: 'POST', url: '/api/gnw/finalize', headers, payload: '{"jobId":' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
    const huge = await t.app.inject({ method: 'POST', url: '/api/gnw/jobs', headers, payload: JSON.stringify({ title: 'x'.repeat(2_000_000) }) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ error: 'payload_too_large' });
    const binary = await t.app.inject({
      method: 'POST',
      url: '/api/gnw/preauth',
      headers: { ...(await kit.headersFor(owner)), 'content-type': 'application/octet-stream' },
      payload: Buffer.from([0, 1, 2, 3]),
    });
    expect(binary.statusCode).toBe(415);
    expect(binary.json()).toMatchObject({ error: 'unsupported_media_type', message: expect.any(String) });
    expect((await requestOf(jobId))?.timeZone).toBe('UTC');
  });
});
