import { and, asc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { Role } from '#shared/roles.ts';
import { auditEvents, emailOutbox, instantOffers, instantRequests, jobs, notaryPresence, priceItems, sessionBookings, users } from '#server/db/schema/index.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';
import { currentCode, nextCode } from '#test/totp-codes.ts';

/**
 * Notarize Now jobs (decision 051): starting one (the person its creator and first signer, no
 * company, one active at a time), reading and resuming it, changing the choices while it is set
 * up, the GnwJob's search, booking, next step and cancel fee, and the login's nextAction.
 */

/** Many sign-ins and requests per test take longer than the default on a busy machine. */
const slow = { timeout: 120_000 };

let t: TestApp;
let kit: ReturnType<typeof createJobKit>;

const prices = [
  { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
  { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
  { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
  { key: 'witness', label: 'Witness', amountCents: 1500, unit: 'witness', feeKind: 'platform' },
  { key: 'no_show', label: 'No-show', amountCents: 2000, unit: 'job', feeKind: 'platform' },
] as const;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  await t.db.insert(priceItems).values(prices.map((price, position) => ({ ...price, companyId: null, position })));
});
afterAll(async () => {
  await t?.close();
});

async function send(user: TestUser | null, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: user ? await kit.headersFor(user) : {}, ...(payload ? { payload } : {}) });
}

async function startJob(user: TestUser, payload: Record<string, unknown> = {}) {
  const res = await send(user, 'POST', '/api/gnw/jobs', payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The Notarize Now events of a job's trail, as the sentences people read. */
async function gnwSentences(jobId: string): Promise<string[]> {
  const rows = await t.db
    .select({ event: auditEvents, actorName: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(and(eq(auditEvents.jobId, jobId), like(auditEvents.action, 'gnw.%')))
    .orderBy(asc(auditEvents.sequence));
  return rows.map(({ event, actorName }) =>
    describeAuditEvent({ action: event.action, actorName, actorId: event.actorId, data: (event.data ?? {}) as Record<string, unknown> }),
  );
}

const setRequest = (jobId: string, values: Partial<typeof instantRequests.$inferInsert>) =>
  t.db.update(instantRequests).set(values).where(eq(instantRequests.jobId, jobId));

describe('POST /api/gnw/jobs', () => {
  it('starts the person’s job with them as its creator and first signer, no company, and answers the GnwJob', slow, async () => {
    const person = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const job = await startJob(person);
    expect(job).toMatchObject({
      title: 'Notarization for Pat Person',
      lane: 'instant',
      status: 'setup',
      step: 'documents',
      act: 'acknowledgment',
      signerState: null,
      timeZone: 'UTC',
      signerCount: 1,
      otherSigners: [],
      witnessesRequested: 0,
      documentCount: 0,
      jobStatus: 'draft',
      estimate: { totalCents: 3900 },
      payment: null,
      search: null,
      notaryName: null,
      matchedAt: null,
      booking: null,
      nextStep: 'Upload the document you need notarized.',
      cancelFeeCents: 0,
    });
    const detail = await kit.getJob(person, job.jobId);
    expect(detail).toMatchObject({ companyId: null, createdBy: person.id, notaryId: null, notarizationType: 'acknowledgment' });
    expect(detail.participants).toEqual([expect.objectContaining({ name: 'Pat Person', email: person.email, role: 'signer', hasAccount: true })]);
    expect(await gnwSentences(job.jobId)).toEqual(['Pat Person started a Notarize Now request with the next notary online (acknowledgment).']);
    // The person is not invited to their own job.
    expect(await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, person.email))).toEqual([]);
  });

  it('takes a title, a lane and an act; any role may start one, and a title company’s staff member’s job is still of no company', slow, async () => {
    const companies = createCompanyKit(t);
    const company = await companies.createCompany({ name: 'Acme Title' });
    const job = await startJob(company.staff, { title: 'My own deed', lane: 'scheduled', act: 'jurat' });
    expect(job).toMatchObject({ title: 'My own deed', lane: 'scheduled', act: 'jurat' });
    expect((await kit.getJob(company.staff, job.jobId)).companyId).toBeNull();
    const notary = await kit.createNotary();
    const notaryJob = await startJob(notary);
    expect((await kit.getJob(notary, notaryJob.jobId)).notaryId).toBeNull();
  });

  it('refuses a second active request with 409 gnw_active_job and the first one’s job id, which GET /api/gnw/active resumes', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const first = await startJob(person);
    const again = await send(person, 'POST', '/api/gnw/jobs', {});
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      error: 'gnw_active_job',
      message: 'You already have a notarization in progress. Continue it, or cancel it before starting another.',
      detail: { jobId: first.jobId },
    });
    const active = await send(person, 'GET', '/api/gnw/active');
    expect(active.statusCode).toBe(200);
    expect(active.json().job).toMatchObject({ jobId: first.jobId, status: 'setup' });
    // Two at once: one job, the other answer names it.
    const racer = await t.createUser({ roles: ['signer'] });
    const answers = await Promise.all([send(racer, 'POST', '/api/gnw/jobs', {}), send(racer, 'POST', '/api/gnw/jobs', {})]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    const made = await t.db.select().from(instantRequests).where(eq(instantRequests.requestedBy, racer.id));
    expect(made).toHaveLength(1);
    expect(answers.find((res) => res.statusCode === 409)?.json().detail).toEqual({ jobId: made[0]?.jobId });
  });

  it('lets the person start again once the earlier request is finished; /active then answers no job before', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    expect((await send(person, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
    const first = await startJob(person);
    await setRequest(first.jobId, { status: 'cancelled' });
    expect((await send(person, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
    const second = await startJob(person);
    expect(second.jobId).not.toBe(first.jobId);
  });

  it('refuses a title with control characters, and signed-out callers', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const nul = await send(person, 'POST', '/api/gnw/jobs', { title: 'Deed\u0000' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ error: 'validation_failed', message: expect.stringContaining('The field title holds a character that is not text') });
    for (const title of ['Deed\nof trust', 'Deed\u202eof trust']) {
      const res = await send(person, 'POST', '/api/gnw/jobs', { title });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'bad_request',
        message: 'The title must be one line of text, without control characters or text-direction overrides.',
      });
    }
    expect((await send(person, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
    for (const [method, url] of [
      ['POST', '/api/gnw/jobs'],
      ['GET', '/api/gnw/active'],
      ['GET', `/api/gnw/jobs/${crypto.randomUUID()}`],
      ['PUT', `/api/gnw/jobs/${crypto.randomUUID()}`],
    ] as const) {
      const anonymous = await send(null, method, url, method === 'GET' ? undefined : {});
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
      expect(anonymous.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
    }
  });
});

describe('PUT /api/gnw/jobs/{jobId}', () => {
  it('saves the choices, invites the other signers through the participants service, follows the act on the job, and audits the choices', slow, async () => {
    const person = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const { jobId } = await startJob(person);
    const olive = uniqueEmail('olive');
    const res = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, {
      step: 'needs',
      lane: 'scheduled',
      act: 'jurat',
      signerState: 'VA',
      timeZone: 'America/Chicago',
      witnessesRequested: 1,
      otherSigners: [{ name: 'Olive Other', email: olive.toUpperCase() }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      step: 'needs',
      lane: 'scheduled',
      act: 'jurat',
      signerState: 'VA',
      timeZone: 'America/Chicago',
      witnessesRequested: 1,
      signerCount: 2,
      otherSigners: [{ name: 'Olive Other', email: olive }],
      estimate: { totalCents: 2500 + 1000 + 800 + 1500, cap: { state: 'VA' } },
      nextStep: 'Tell us what you need: the kind of notarization, who signs, whether you need witnesses, and the state you are in.',
    });
    const detail = await kit.getJob(person, jobId);
    expect(detail.notarizationType).toBe('jurat');
    expect(detail.participants.map((participant) => participant.email)).toEqual([person.email, olive]);
    const invitations = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, olive));
    expect(invitations.map((mail) => mail.kind)).toEqual(['job_invite']);
    expect((await t.db.select({ signerCount: instantRequests.signerCount }).from(instantRequests).where(eq(instantRequests.jobId, jobId)))[0]).toEqual({
      signerCount: 2,
    });

    // Replacing the list: Olive goes, Quinn comes; the same list again changes nothing.
    const quinn = uniqueEmail('quinn');
    const replaced = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { otherSigners: [{ name: 'Quinn Q', email: quinn }] });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().otherSigners).toEqual([{ name: 'Quinn Q', email: quinn }]);
    const same = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { otherSigners: [{ name: 'Quinn Q', email: quinn }], step: 'payment' });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json()).toMatchObject({ step: 'payment', signerCount: 2 });
    const none = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { otherSigners: [] });
    expect(none.json()).toMatchObject({ otherSigners: [], signerCount: 1 });

    expect(await gnwSentences(jobId)).toEqual([
      'Pat Person started a Notarize Now request with the next notary online (acknowledgment).',
      'Pat Person chose a booked time, chose jurat as the act, said they are in Virginia, asked the platform for 1 witness and named Olive Other as the other signer on their Notarize Now request.',
      'Pat Person named Quinn Q as the other signer on their Notarize Now request.',
      'Pat Person is the only signer on their Notarize Now request.',
    ]);
  });

  it('moves the step and the time zone without an audit event', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    const res = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { step: 'payment', timeZone: 'Europe/Paris' });
    expect(res.json()).toMatchObject({ step: 'payment', timeZone: 'Europe/Paris' });
    expect(await gnwSentences(jobId)).toHaveLength(1);
  });

  it.each([
    [{ otherSigners: [{ name: 'Me Again', email: 'OWNER' }] }, 'You are already the first signer; list only the other people who sign.'],
    [
      {
        otherSigners: [
          { name: 'A', email: 'same@example.test' },
          { name: 'B', email: 'SAME@example.test' },
        ],
      },
      'Each other signer needs a different email address.',
    ],
    [{ otherSigners: [{ name: 'Bad\u0000Name', email: 'bad@example.test' }] }, null],
    [{ otherSigners: [{ name: 'x'.repeat(150), email: 'long@example.test' }] }, 'The participant’s name must be at most 120 characters.'],
    [{ timeZone: 'Mars/Olympus' }, 'timeZone must be a time zone such as America/Chicago.'],
    [{ witnessesRequested: 3 }, null],
    [{ step: 'somewhere' }, null],
  ])('refuses %j with 400 and a sentence', slow, async (payload, message) => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    const body = JSON.parse(JSON.stringify(payload).replace('"OWNER"', JSON.stringify(person.email))) as Record<string, unknown>;
    const res = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ message: message ?? expect.stringMatching(/\w{3,}/) });
    expect((await kit.getJob(person, jobId)).participants).toHaveLength(1);
  });

  it(
    'closes the choices once the search started, with setup_locked and a sentence; the step still moves and sending the same values is fine',
    slow,
    async () => {
      const person = await t.createUser({ roles: ['signer'] });
      const { jobId } = await startJob(person);
      await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { witnessesRequested: 1, signerState: 'TX' });
      await setRequest(jobId, { status: 'searching', searchStartedAt: new Date() });
      const res = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { witnessesRequested: 2 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'setup_locked', message: 'We are already looking for a notary for these choices, so they can no longer change.' });
      const otherSigner = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { otherSigners: [{ name: 'Late Comer', email: uniqueEmail('late') }] });
      expect(otherSigner.statusCode).toBe(409);
      expect((await kit.getJob(person, jobId)).participants).toHaveLength(1);
      const step = await send(person, 'PUT', `/api/gnw/jobs/${jobId}`, { step: 'notary', witnessesRequested: 1, signerState: 'TX' });
      expect(step.statusCode, step.body).toBe(200);
      expect(step.json()).toMatchObject({ step: 'notary', witnessesRequested: 1 });
    },
  );
});

describe('GET /api/gnw/jobs/{jobId}', () => {
  it('answers only the person who asked: another signer, a notary and an administrator get 404', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    expect((await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).statusCode).toBe(200);
    for (const roles of [['signer'], ['notary'], ['admin'], ['witness']] as Role[][]) {
      const other = await t.createUser({ roles });
      for (const method of ['GET', 'PUT'] as const) {
        const res = await send(other, method, `/api/gnw/jobs/${jobId}`, method === 'PUT' ? { step: 'done' } : undefined);
        expect(res.statusCode, `${roles[0]} ${method}`).toBe(404);
        expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request of yours has that job id.' });
      }
    }
    expect((await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).json().step).toBe('documents');
  });

  it('shows the search: the place in line, eligible notaries online (never the person), offers made, ringing and the typical wait', slow, async () => {
    // A notary may start a job of their own: online, they are still never counted as a notary for it.
    const person = await kit.createNotary({ name: 'Nina Notary' });
    const { jobId } = await startJob(person);
    const now = Date.now();
    // Two people searching since before this one, one since after.
    for (const secondsAgo of [120, 90, -30]) {
      const other = await t.createUser({ roles: ['signer'] });
      const { jobId: otherJob } = await startJob(other);
      await setRequest(otherJob, { status: 'searching', searchStartedAt: new Date(now - secondsAgo * 1000) });
    }
    // Matches with waits of 10, 40 and 25 seconds (median 25), one long ago among the last fifty.
    for (const wait of [10, 40, 25]) {
      const other = await t.createUser({ roles: ['signer'] });
      const { jobId: otherJob } = await startJob(other);
      await setRequest(otherJob, { status: 'cancelled', searchStartedAt: new Date(now - 3600_000), matchedAt: new Date(now - 3600_000 + wait * 1000) });
    }
    const online = await kit.createNotary({ name: 'Olga Online' });
    const offline = await kit.createNotary({ name: 'Otto Offline' });
    await t.db.insert(notaryPresence).values([
      { notaryId: online.id, isAvailable: true, lastHeartbeatAt: new Date(), wentOnlineAt: new Date() },
      { notaryId: offline.id, isAvailable: true, lastHeartbeatAt: new Date(now - 3600_000), wentOnlineAt: new Date(now - 3600_000) },
      { notaryId: person.id, isAvailable: true, lastHeartbeatAt: new Date(), wentOnlineAt: new Date() },
    ]);
    await setRequest(jobId, { status: 'searching', searchStartedAt: new Date(now - 60_000), searchEndsAt: new Date(now + 240_000) });
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    await t.db.insert(instantOffers).values([
      { requestId: request?.id ?? null, userId: offline.id, status: 'expired', expiresAt: new Date(now - 30_000) },
      // Still ringing however slowly this test runs.
      { requestId: request?.id ?? null, userId: online.id, status: 'open', expiresAt: new Date(Date.now() + 600_000) },
    ]);
    const res = await send(person, 'GET', `/api/gnw/jobs/${jobId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().search).toEqual({
      startedAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + 240_000).toISOString(),
      place: 3,
      notariesOnline: 1,
      offersMade: 2,
      typicalWaitSeconds: 25,
      ringing: true,
    });
    expect(res.json().nextStep).toBe('We are offering your job to notaries who are online, one at a time. Keep this page open; it updates by itself.');
  });

  it('shows a match: who accepted and what to do next', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    const notary = await kit.createNotary({ name: 'Nora Notary' });
    const matchedAt = new Date();
    await t.db.update(jobs).set({ notaryId: notary.id }).where(eq(jobs.id, jobId));
    await setRequest(jobId, { status: 'matched', matchedNotaryId: notary.id, matchedAt, searchStartedAt: new Date(matchedAt.getTime() - 20_000) });
    const res = await send(person, 'GET', `/api/gnw/jobs/${jobId}`);
    expect(res.json()).toMatchObject({
      status: 'matched',
      notaryName: 'Nora Notary',
      matchedAt: matchedAt.toISOString(),
      nextStep: 'Nora Notary accepted your job. Confirm your identity, then join the session.',
      search: { ringing: false },
      cancelFeeCents: 0,
    });
  });

  it('shows a booking in the person’s zone, and the no-show price as the cancel fee within 15 minutes of it', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person, { lane: 'scheduled' });
    const notary = await kit.createNotary({ name: 'Bea Booked' });
    const startsAt = new Date('2031-12-02T15:30:00Z');
    await t.db
      .insert(sessionBookings)
      .values({ jobId, notaryId: notary.id, startsAt, endsAt: new Date(startsAt.getTime() + 1800_000), timeZone: 'America/Chicago' });
    await setRequest(jobId, { status: 'booked', timeZone: 'America/Chicago' });
    const far = (await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).json();
    expect(far.booking).toMatchObject({
      startsAt: startsAt.toISOString(),
      timeZone: 'America/Chicago',
      notaryName: 'Bea Booked',
      label: 'Tuesday, December 2, 9:30 AM CST',
    });
    expect(far.cancelFeeCents).toBe(0);
    expect(far.nextStep).toBe(
      'Your session with Bea Booked is booked for Tuesday, December 2, 9:30 AM CST. We will email you a reminder 24 hours and 15 minutes before.',
    );
    const soon = new Date(Date.now() + 10 * 60_000);
    await t.db
      .update(sessionBookings)
      .set({ startsAt: soon, endsAt: new Date(soon.getTime() + 1800_000) })
      .where(eq(sessionBookings.jobId, jobId));
    expect((await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).json().cancelFeeCents).toBe(2000);
    // Not cancellable any more once the request is over.
    await setRequest(jobId, { status: 'cancelled' });
    expect((await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).json()).toMatchObject({
      cancelFeeCents: null,
      nextStep: 'This request was cancelled. Start a new one whenever you are ready.',
    });
  });

  it('answers a $0-price job with no estimate rather than a $0 one', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    const saved = await t.db.select().from(priceItems);
    await t.db.delete(priceItems);
    try {
      expect((await send(person, 'GET', `/api/gnw/jobs/${jobId}`)).json().estimate).toBeNull();
    } finally {
      await t.db.insert(priceItems).values(saved);
    }
  });
});

describe('the login’s nextAction (the server’s part of the post-login rules)', () => {
  const logIn = (user: TestUser) => t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });

  it('sends a person whose request is still in setup back to it: nextAction gnw-setup with the job id', slow, async () => {
    for (const roles of [['signer'], ['witness']] as Role[][]) {
      const person = await t.createUser({ roles });
      const { jobId } = await startJob(person);
      const res = await logIn(person);
      expect(res.statusCode).toBe(200);
      expect(res.json().nextAction).toEqual({ nextAction: 'gnw-setup', jobId, pendingSetup: null, startWith: null, route: null });
    }
  });

  it('gives no nextAction without an active request, or once the request has left setup', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    expect((await logIn(person)).json().nextAction).toBeNull();
    const { jobId } = await startJob(person);
    for (const status of ['searching', 'unmatched', 'matched', 'booked', 'completed', 'cancelled'] as const) {
      await setRequest(jobId, { status });
      expect((await logIn(person)).json().nextAction, status).toBeNull();
    }
  });

  it('gives elevated roles none, even with a request in setup', slow, async () => {
    for (const roles of [['admin'], ['notary'], ['title'], ['title_agent'], ['billing'], ['finance'], ['observer'], ['signer', 'observer']] as Role[][]) {
      const person = await t.createUser({ roles });
      await startJob(person);
      const res = await logIn(person);
      expect(res.statusCode).toBe(200);
      expect(res.json().nextAction, roles.join(',')).toBeNull();
    }
  });

  it('answers the nextAction where the login completes after the second factor, not before it', slow, async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const { jobId } = await startJob(person);
    const headers = await t.signInAs(person);
    const start = await t.app.inject({ method: 'POST', url: '/api/auth/mfa/totp/setup/start', headers });
    const secret = start.json().secret as string;
    const linked = await t.app.inject({ method: 'POST', url: '/api/auth/mfa/totp/setup/verify', headers, payload: { token: currentCode(secret) } });
    expect(linked.statusCode, linked.body).toBe(200);

    const login = await logIn(person);
    expect(login.json()).toMatchObject({ twofaRequired: true, nextAction: null });
    const ticket = login.json().ticket as string;
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/verify',
      payload: { ticket, code: nextCode(secret), rememberDevice: false },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toMatchObject({
      user: { id: person.id },
      nextAction: { nextAction: 'gnw-setup', jobId, pendingSetup: null, startWith: null, route: null },
    });
  });
});
