import { and, asc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, instantRequests, jobs, payments, priceItems, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { startStripeStandIn, stripeStandInEnv, type StripeStandIn } from '#test/stripe-stand-in.ts';

/**
 * Notarize Now's money (decision 051), against the real Stripe SDK and the local stand-in of the
 * Stripe API: preauth holds the estimate once, finalize settles it once after the seal, and a
 * platform that cannot charge a person says so.
 */

/** With one signer and one document: $39.00 estimated, $54.00 with one witness; sealed without a recording (no notarial act), $14.00 charged. */
const prices = [
  { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
  { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
  { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
  { key: 'witness', label: 'Witness', amountCents: 1500, unit: 'witness', feeKind: 'platform' },
] as const;

/** A seal, a second app and the SDK's own retries take longer than the default on a busy machine. */
const slow = { timeout: 120_000 };

let t: TestApp;
let stripe: StripeStandIn;
let kit: ReturnType<typeof createJobKit>;
let notary: TestUser;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp(
    stripeStandInEnv(stripe, {
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
    }),
  );
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  await t.db.insert(priceItems).values(prices.map((price, position) => ({ ...price, companyId: null, position })));
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

async function send(app: TestApp, user: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) {
  return app.app.inject({ method, url, headers: await app.signInAs(user), ...(payload ? { payload } : {}) });
}
const call = async (user: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: await kit.headersFor(user), ...(payload ? { payload } : {}) });

/** A person's job with a document and a state (and witnesses when asked), ready to pay for. */
async function readyJob(options: { witnesses?: number; upload?: boolean; state?: boolean } = {}) {
  const person = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
  const created = await call(person, 'POST', '/api/gnw/jobs', {});
  expect(created.statusCode, created.body).toBe(201);
  const jobId = created.json().jobId as string;
  if (options.upload !== false) await kit.uploadPdf(person, jobId);
  const put = await call(person, 'PUT', `/api/gnw/jobs/${jobId}`, {
    step: 'payment',
    ...(options.state !== false ? { signerState: 'VA' } : {}),
    witnessesRequested: options.witnesses ?? 0,
  });
  expect(put.statusCode, put.body).toBe(200);
  return { person, jobId };
}

const preauth = (user: TestUser, jobId: string, paymentMethod = 'pm_card_visa') => call(user, 'POST', '/api/gnw/preauth', { jobId, paymentMethod });
const finalize = (user: TestUser, jobId: string) => call(user, 'POST', '/api/gnw/finalize', { jobId });

async function sentences(jobId: string, prefix: string): Promise<string[]> {
  const rows = await t.db
    .select({ event: auditEvents, actorName: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(and(eq(auditEvents.jobId, jobId), like(auditEvents.action, `${prefix}%`)))
    .orderBy(asc(auditEvents.sequence));
  return rows.map(({ event, actorName }) =>
    describeAuditEvent({ action: event.action, actorName, actorId: event.actorId, data: (event.data ?? {}) as Record<string, unknown> }),
  );
}

/** What the matching loop and the session do (other features): the notary accepts, starts the session and seals. */
async function matchAndSeal(jobId: string) {
  await t.db.update(jobs).set({ notaryId: notary.id }).where(eq(jobs.id, jobId));
  await t.db.update(instantRequests).set({ status: 'matched', matchedNotaryId: notary.id, matchedAt: new Date() }).where(eq(instantRequests.jobId, jobId));
  await kit.moveJob(notary, jobId, ['ready', 'in_session']);
  return kit.sealJob(notary, jobId);
}

describe('POST /api/gnw/preauth', () => {
  it('holds the estimate, witnesses included, on the card with an idempotency key, keeps it on the request and moves on to the notary', slow, async () => {
    const { person, jobId } = await readyJob({ witnesses: 1 });
    const res = await preauth(person, jobId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      jobId,
      step: 'notary',
      status: 'setup',
      payment: { status: 'held', amountCents: 5400, capturedCents: null },
      estimate: { totalCents: 5400 },
      nextStep: 'Your card is authorised. Start looking for a notary who is online now.',
      cancelFeeCents: 0,
    });
    const [row] = await t.db.select().from(payments).where(eq(payments.jobId, jobId));
    expect(row).toMatchObject({ provider: 'stripe', status: 'held', amountCents: 5400, idempotencyKey: `job-${jobId}-hold-1` });
    expect(stripe.intents.get(row?.externalId ?? '')).toMatchObject({ amount: 5400, capture_method: 'manual', status: 'requires_capture' });
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    expect(request).toMatchObject({ estimateCents: 5400, step: 'notary' });
    expect(await sentences(jobId, 'gnw.preauthorized')).toEqual([
      'Pat Person authorised $54.00 on a card for their Notarize Now request; it is taken only once the notarization completes.',
    ]);

    // A double click: the same job back, no second hold, no second event.
    const creates = stripe.calls.filter((item) => item.path === '/v1/payment_intents' && item.idempotencyKey?.startsWith(`job-${jobId}`)).length;
    const again = await preauth(person, jobId);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().payment).toEqual(res.json().payment);
    expect(stripe.calls.filter((item) => item.path === '/v1/payment_intents' && item.idempotencyKey?.startsWith(`job-${jobId}`)).length).toBe(creates);
    expect(await t.db.select().from(payments).where(eq(payments.jobId, jobId))).toHaveLength(1);
    expect(await sentences(jobId, 'gnw.preauthorized')).toHaveLength(1);
    // The choices the card holds no longer change.
    const change = await call(person, 'PUT', `/api/gnw/jobs/${jobId}`, { witnessesRequested: 2 });
    expect(change.statusCode).toBe(409);
    expect(change.json()).toEqual({
      error: 'setup_locked',
      message: 'Your card already holds the estimate for these choices. Cancel this request to start again with other choices.',
    });
    // The lane sets no price: "Pick a time" after the hold moves to the scheduled lane and keeps it.
    const lane = await call(person, 'PUT', `/api/gnw/jobs/${jobId}`, { lane: 'scheduled', step: 'notary' });
    expect(lane.statusCode, lane.body).toBe(200);
    expect(lane.json()).toMatchObject({ lane: 'scheduled', payment: res.json().payment });
  });

  it('holds once when two clicks arrive together', slow, async () => {
    const { person, jobId } = await readyJob();
    const answers = await Promise.all([preauth(person, jobId), preauth(person, jobId)]);
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200]);
    const rows = await t.db.select().from(payments).where(eq(payments.jobId, jobId));
    expect(rows.filter((row) => row.status === 'held')).toHaveLength(1);
    expect(new Set(rows.map((row) => row.externalId)).size).toBe(1);
  });

  it('refuses before the document is uploaded or the state chosen, with sentences and nothing held', slow, async () => {
    const noDocument = await readyJob({ upload: false });
    const res = await preauth(noDocument.person, noDocument.jobId);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'gnw_not_ready', message: 'Upload the document you need notarized before paying.' });
    const noState = await readyJob({ state: false });
    const stateless = await preauth(noState.person, noState.jobId);
    expect(stateless.statusCode).toBe(409);
    expect(stateless.json()).toEqual({
      error: 'gnw_not_ready',
      message: 'Choose the state you are in before paying: its fee cap and rules apply to your notarization.',
    });
    expect(await t.db.select().from(payments).where(eq(payments.jobId, noDocument.jobId))).toEqual([]);
    expect(await t.db.select().from(payments).where(eq(payments.jobId, noState.jobId))).toEqual([]);
  });

  it('refuses a declined card with 402 and Stripe’s words, and takes another card after', slow, async () => {
    const { person, jobId } = await readyJob();
    const declined = await preauth(person, jobId, 'pm_card_chargeDeclined');
    expect(declined.statusCode).toBe(402);
    expect(declined.json()).toMatchObject({ error: 'card_declined', message: expect.any(String) });
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    expect(request).toMatchObject({ step: 'payment', estimateCents: null });
    const ok = await preauth(person, jobId);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().payment).toMatchObject({ status: 'held', amountCents: 3900 });
  });

  it('refuses without a card, and another person’s job as not found', slow, async () => {
    const { person, jobId } = await readyJob();
    const noCard = await call(person, 'POST', '/api/gnw/preauth', { jobId });
    expect(noCard.statusCode).toBe(400);
    expect(noCard.json().message).toMatch(/paymentMethod/);
    const stranger = await t.createUser({ roles: ['signer'] });
    const res = await preauth(stranger, jobId);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request of yours has that job id.' });
    expect(await t.db.select().from(payments).where(eq(payments.jobId, jobId))).toEqual([]);
  });
});

describe('a platform that cannot charge a person', () => {
  it('says payment is not configured (503) without a provider, and refuses the invoice provider (409): nothing is held either way', slow, async () => {
    for (const [env, status, message] of [
      [{}, 503, 'Payment is not configured on this platform. Notarize Now cannot take your payment yet, so nothing was charged. Please try again later.'],
      [
        { PAYMENT_PROVIDER: 'invoice' },
        409,
        'This platform takes payment only by a title company’s invoice, and a Notarize Now notarization belongs to no company, so it cannot take your payment. Nothing was charged.',
      ],
    ] as const) {
      const other = await createTestApp({ ...env, LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
      try {
        await other.db.insert(priceItems).values(prices.map((price, position) => ({ ...price, companyId: null, position })));
        const person = await other.createUser({ roles: ['signer'] });
        const otherKit = createJobKit(other);
        const created = await send(other, person, 'POST', '/api/gnw/jobs', {});
        const jobId = created.json().jobId as string;
        await otherKit.uploadPdf(person, jobId);
        await send(other, person, 'PUT', `/api/gnw/jobs/${jobId}`, { signerState: 'VA' });
        const res = await send(other, person, 'POST', '/api/gnw/preauth', { jobId, paymentMethod: 'pm_card_visa' });
        expect(res.statusCode).toBe(status);
        expect(res.json()).toEqual({ error: 'payment_not_configured', message });
        expect(await other.db.select().from(payments)).toEqual([]);
      } finally {
        await other.close();
      }
    }
  });
});

describe('POST /api/gnw/finalize', () => {
  it('refuses before the seal; after it answers the charge, the notarized documents to download, and marks the request done, once', slow, async () => {
    const { person, jobId } = await readyJob();
    expect((await preauth(person, jobId)).statusCode).toBe(200);
    const early = await finalize(person, jobId);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toEqual({
      error: 'gnw_not_ready',
      message: 'Your notarization is not complete yet: the notary seals your documents at the end of the session. Finish once they have.',
    });

    await matchAndSeal(jobId);
    const intentId = (await t.db.select().from(payments).where(eq(payments.jobId, jobId)))[0]?.externalId ?? '';
    expect(stripe.capturesDone(intentId)).toBe(1);

    const res = await finalize(person, jobId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.chargedCents).toBe(1400);
    expect(body.message).toBe(
      'Your notarization is complete. $14.00 was charged to your card; the other $25.00 held on it was released. Your notarized document is ready to download.',
    );
    expect(body.job).toMatchObject({
      status: 'completed',
      step: 'done',
      jobStatus: 'completed',
      payment: { status: 'captured', amountCents: 3900, capturedCents: 1400 },
      cancelFeeCents: null,
      nextStep: 'Your notarization is complete. Download your notarized documents below.',
    });
    expect(body.documents).toEqual([
      { id: expect.any(String), name: expect.stringMatching(/\.pdf$/), downloadUrl: `/api/jobs/${jobId}/notarized/${body.documents[0].id}/file` },
    ]);
    const download = await t.app.inject({ method: 'GET', url: body.documents[0].downloadUrl, headers: await kit.headersFor(person) });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    expect(request?.finalizedAt).toBeInstanceOf(Date);

    // A retried finalize: the same answer, no call to Stripe, no second event.
    const callsBefore = stripe.calls.length;
    const again = await finalize(person, jobId);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ chargedCents: 1400, message: body.message, documents: body.documents });
    expect(stripe.calls.length).toBe(callsBefore);
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect(await sentences(jobId, 'gnw.finalized')).toEqual(['Pat Person finished their Notarize Now request; $14.00 was charged.']);
    // Another person learns nothing of it.
    const stranger = await t.createUser({ roles: ['signer'] });
    expect((await finalize(stranger, jobId)).statusCode).toBe(404);
    // The request is over: a new one may start.
    expect((await call(person, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
  });

  it('captures once when the completion’s capture answers were all lost: finalize retries with the same key, and again changes nothing', slow, async () => {
    const { person, jobId } = await readyJob();
    expect((await preauth(person, jobId)).statusCode).toBe(200);
    const intentId = (await t.db.select().from(payments).where(eq(payments.jobId, jobId)))[0]?.externalId ?? '';
    stripe.dropAnswers('capture', 10);
    try {
      await matchAndSeal(jobId);
    } finally {
      stripe.dropAnswers('capture', 0);
    }
    // Stripe captured, but the platform never heard: the payment is still held on record.
    expect((await t.db.select().from(payments).where(eq(payments.jobId, jobId)))[0]?.status).toBe('held');
    expect(stripe.capturesDone(intentId)).toBe(1);

    const answers = await Promise.all([finalize(person, jobId), finalize(person, jobId)]);
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ chargedCents: 1400 });
    }
    expect((await finalize(person, jobId)).json().chargedCents).toBe(1400);
    expect(stripe.capturesDone(intentId)).toBe(1);
    const captureCalls = stripe.calls.filter((item) => item.path === `/v1/payment_intents/${intentId}/capture`);
    expect(new Set(captureCalls.map((item) => item.idempotencyKey))).toEqual(new Set([`job-${jobId}-hold-1:capture`]));
    expect((await t.db.select().from(payments).where(eq(payments.jobId, jobId)))[0]).toMatchObject({ status: 'captured', capturedCents: 1400 });
    expect(await sentences(jobId, 'gnw.finalized')).toHaveLength(1);
  });
});
