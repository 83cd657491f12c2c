import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, priceItems } from '#server/db/schema/index.ts';
import { reconcilePayments } from './payments.service.ts';
import { createPaymentProvider } from '#server/providers/payment/payment-provider.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createPaymentKit } from '#test/payment-fixtures.ts';
import { startStripeStandIn, stripeStandInEnv, type StripeStandIn } from '#test/stripe-stand-in.ts';

/**
 * Stripe, end to end: the real app and the real SDK against a local stand-in of the Stripe API
 * (test/stripe-stand-in.ts) that answers, forgets to answer, and signs webhooks as Stripe does.
 */

let t: TestApp;
let stripe: StripeStandIn;
let kit: Awaited<ReturnType<typeof createPaymentKit>>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp(
    stripeStandInEnv(stripe, {
      STRIPE_PUBLISHABLE_KEY: 'pk_test_stand_in',
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
    }),
  );
  kit = await createPaymentKit(t);
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

const postWebhook = (webhook: { payload: string; headers: Record<string, string> }) =>
  t.app.inject({ method: 'POST', url: '/api/payments/stripe/webhook', headers: webhook.headers, payload: webhook.payload });

/** A booked job with its estimated charges held on the test card; the PaymentIntent as the stand-in has it. */
async function heldJob() {
  const job = await kit.bookJob();
  const res = await kit.hold(kit.company.staff, job.id);
  expect(res.statusCode, res.body).toBe(201);
  const intentId = res.json().payment.externalId as string;
  return { job, intentId, payment: res.json().payment };
}

describe('the configuration', () => {
  it('tells a signed-in person that payment is by card through Stripe, with the publishable key Stripe.js collects the card with', async () => {
    const res = await kit.jobs.call(kit.company.agent, 'GET', '/api/payments/config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ configured: true, provider: 'stripe', message: expect.stringContaining('Stripe'), publishableKey: 'pk_test_stand_in' });
    expect((await t.app.inject({ method: 'GET', url: '/api/payments/config' })).statusCode).toBe(401);
  });
});

describe('a hold at booking', () => {
  it('holds the job’s estimated charges on the card with a manual-capture PaymentIntent and an idempotency key, and says so', async () => {
    const job = await kit.bookJob();
    const res = await kit.hold(kit.company.staff, job.id);
    expect(res.statusCode, res.body).toBe(201);
    const { payment, message } = res.json();
    expect(payment).toMatchObject({ jobId: job.id, provider: 'stripe', status: 'held', amountCents: 3900, capturedCents: null, currency: 'usd' });
    expect(message).toBe(
      '$39.00 is held on the card until the notarization completes; only what the job is charged then is taken, and nothing if it is cancelled.',
    );
    const intent = stripe.intents.get(payment.externalId);
    expect(intent).toMatchObject({ amount: 3900, currency: 'usd', capture_method: 'manual', status: 'requires_capture', metadata: { jobId: job.id } });
    const create = stripe.calls.find((call) => call.path === '/v1/payment_intents' && call.idempotencyKey === `job-${job.id}-hold-1`);
    expect(create).toBeDefined();
    expect(await kit.paymentSentences(job.id)).toEqual([`${kit.company.staff.name} had $39.00 held on a card until the notarization completes.`]);

    const again = await kit.hold(kit.company.staff, job.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'payment_exists', message: '$39.00 is already held on a card for this job.' });
    const seen = await kit.paymentOf(kit.company.staff, job.id);
    expect(seen.json()).toMatchObject({ jobId: job.id, current: { id: payment.id, status: 'held' }, attempts: [{ id: payment.id }] });
  });

  it('refuses a declined card with 402 card_declined and Stripe’s words, keeps the attempt on record, and takes another card after', async () => {
    const job = await kit.bookJob();
    const res = await kit.hold(kit.company.staff, job.id, { paymentMethod: 'pm_card_chargeDeclined' });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toEqual({
      error: 'card_declined',
      message: 'The card was declined; nothing was held. Use another card.',
      detail: 'Your card was declined.',
    });
    const [failed] = await kit.rowsOf(job.id);
    expect(failed).toMatchObject({ status: 'failed', failureMessage: 'Your card was declined.', amountCents: 3900 });
    expect(failed?.externalId).toMatch(/^pi_/);
    expect(await kit.paymentSentences(job.id)).toEqual(['Holding $39.00 on a card failed: Your card was declined.']);

    const retried = await kit.hold(kit.company.staff, job.id);
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json().payment.status).toBe('held');
    const payment = (await kit.paymentOf(kit.company.staff, job.id)).json();
    expect(payment.current.status).toBe('held');
    expect(payment.attempts.map((attempt: { status: string }) => attempt.status)).toEqual(['held', 'failed']);
  });

  it('holds nothing for a card whose bank wants 3-D Secure: the PaymentIntent is let go and the person told', async () => {
    const job = await kit.bookJob();
    const res = await kit.hold(kit.company.staff, job.id, { paymentMethod: 'pm_card_authenticationRequired' });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('payment_action_required');
    const [row] = await kit.rowsOf(job.id);
    expect(row?.status).toBe('failed');
    expect(stripe.intents.get(row?.externalId ?? '')?.status).toBe('canceled');
  });

  it('makes one hold when the same request arrives twice at once', async () => {
    const job = await kit.bookJob();
    const [first, second] = await Promise.all([kit.hold(kit.company.staff, job.id), kit.hold(kit.company.staff, job.id)]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([201, 409]);
    const intents = [...stripe.intents.values()].filter((intent) => intent.metadata.jobId === job.id);
    expect(intents.filter((intent) => intent.status === 'requires_capture')).toHaveLength(1);
    expect((await kit.rowsOf(job.id)).filter((row) => row.status === 'held')).toHaveLength(1);
  });

  it('refuses a missing or malformed card with 400, and a completed or cancelled job with 409', async () => {
    const job = await kit.bookJob();
    const missing = await kit.hold(kit.company.staff, job.id, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/paymentMethod/);
    for (const paymentMethod of ['card_visa', 'pm_', 'pm_x y', 42]) {
      const bad = await kit.hold(kit.company.staff, job.id, { paymentMethod });
      expect(bad.statusCode, String(paymentMethod)).toBe(400);
      expect(bad.json().message).toBe('paymentMethod must be a Stripe payment method id (pm_…).');
    }
    expect((await kit.hold(kit.company.staff, job.id, { paymentMethod: 'pm_card_visa', amountCents: 1 })).statusCode).toBe(400);
    await kit.cancelJob(kit.company.staff, job.id);
    const late = await kit.hold(kit.company.staff, job.id);
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toBe('This job is cancelled; there is nothing to hold for it.');
    expect(await kit.rowsOf(job.id)).toEqual([]);
  });
});

describe('capture at completion', () => {
  it('takes what the job was charged from the hold once the completion has committed, and records it', async () => {
    const { job, intentId } = await heldJob();
    const completed = await kit.completeJob(job.id);
    expect(completed.status).toBe('completed');
    expect(stripe.intents.get(intentId)).toMatchObject({ status: 'succeeded', amount_received: 1400 });
    expect(stripe.capturesDone(intentId)).toBe(1);
    const capture = stripe.calls.find((call) => call.path === `/v1/payment_intents/${intentId}/capture`);
    expect(capture?.idempotencyKey).toBe(`job-${job.id}-hold-1:capture`);
    const payment = (await kit.paymentOf(kit.company.staff, job.id)).json();
    expect(payment.current).toMatchObject({ status: 'captured', amountCents: 3900, capturedCents: 1400, failureMessage: null });
    expect(await kit.paymentSentences(job.id)).toContain('$14.00 was captured from the card held for this job.');
  });

  it('takes at most what was held when the job was charged more', async () => {
    const { job, intentId } = await heldJob();
    await t.db.update(priceItems).set({ amountCents: 10_000 }).where(eq(priceItems.key, 'platform'));
    try {
      await kit.completeJob(job.id);
    } finally {
      await t.db.update(priceItems).set({ amountCents: 1000 }).where(eq(priceItems.key, 'platform'));
    }
    expect(stripe.intents.get(intentId)).toMatchObject({ status: 'succeeded', amount_received: 3900 });
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 3900 });
    expect(await kit.paymentSentences(job.id)).toContain(
      '$39.00 was captured from the card held for this job; $65.00 of the charges was more than the card held and was not collected.',
    );
  });

  it('captures once when Stripe’s answer to the capture is lost and the SDK sends it again with the same idempotency key', async () => {
    const { job, intentId } = await heldJob();
    stripe.dropAnswers('capture', 1);
    await kit.completeJob(job.id);
    const captureCalls = stripe.calls.filter((call) => call.path === `/v1/payment_intents/${intentId}/capture`);
    expect(captureCalls.length).toBe(2);
    expect(new Set(captureCalls.map((call) => call.idempotencyKey))).toEqual(new Set([`job-${job.id}-hold-1:capture`]));
    expect(captureCalls.map((call) => call.isReplay)).toEqual([false, true]);
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 1400 });
    // Checking again with Stripe captures nothing more.
    const billing = await t.createUser({ roles: ['billing'] });
    const synced = await kit.jobs.call(billing, 'POST', `/api/jobs/${job.id}/payment/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json().current).toMatchObject({ status: 'captured', capturedCents: 1400 });
    expect(stripe.capturesDone(intentId)).toBe(1);
  });

  it('recovers a capture whose every answer and webhook were lost by reading the PaymentIntent back, without capturing twice; the completion stood all along', async () => {
    const { job, intentId } = await heldJob();
    stripe.dropAnswers('capture', 10);
    const completed = await kit.completeJob(job.id);
    expect(completed.status).toBe('completed');
    expect(stripe.capturesDone(intentId)).toBe(1);
    const [unknown] = await kit.rowsOf(job.id);
    expect(unknown).toMatchObject({ status: 'held', capturedCents: null });
    expect(unknown?.failureMessage).toMatch(/^Stripe did not answer/);
    expect((await kit.paymentSentences(job.id)).at(-1)).toMatch(/^Capturing \$39\.00 from the card held for this job failed: Stripe did not answer/);
    stripe.dropAnswers('capture', 0);

    const finance = await t.createUser({ roles: ['finance'] });
    const synced = await kit.jobs.call(finance, 'POST', `/api/jobs/${job.id}/payment/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json().current).toMatchObject({ status: 'captured', capturedCents: 1400, failureMessage: null });
    expect(stripe.calls.some((call) => call.method === 'GET' && call.path === `/v1/payment_intents/${intentId}`)).toBe(true);
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect((await kit.paymentSentences(job.id)).at(-1)).toBe(
      '$14.00 was captured from the card held for this job (found when the payment was checked with Stripe).',
    );
  });

  it('is settled by the reconciler when nobody checks: a capture and a release whose answers were lost, each done once, an open job’s hold left alone', async () => {
    const completed = await heldJob();
    const cancelled = await heldJob();
    const open = await heldJob();
    stripe.dropAnswers('capture', 10);
    await kit.completeJob(completed.job.id);
    stripe.dropAnswers('cancel', 10);
    await kit.cancelJob(kit.company.staff, cancelled.job.id);
    stripe.dropAnswers('capture', 0);
    stripe.dropAnswers('cancel', 0);
    expect((await kit.rowsOf(completed.job.id))[0]?.status).toBe('held');
    expect((await kit.rowsOf(cancelled.job.id))[0]?.status).toBe('held');
    const system = { db: t.db, payment: createPaymentProvider(t.config.payment), log: t.app.log, user: null, ipAddress: 'test', userAgent: null };
    expect(await reconcilePayments(system)).toBeGreaterThanOrEqual(2);
    expect((await kit.rowsOf(completed.job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 1400 });
    expect((await kit.rowsOf(cancelled.job.id))[0]).toMatchObject({ status: 'released' });
    expect((await kit.rowsOf(open.job.id))[0]).toMatchObject({ status: 'held' });
    expect(stripe.capturesDone(completed.intentId)).toBe(1);
    expect(stripe.intents.get(cancelled.intentId)?.status).toBe('canceled');
    expect(stripe.intents.get(open.intentId)?.status).toBe('requires_capture');
    // A second pass finds nothing left to do.
    const audited = (await kit.paymentSentences(completed.job.id)).length;
    await reconcilePayments(system);
    expect((await kit.paymentSentences(completed.job.id)).length).toBe(audited);
    expect(stripe.capturesDone(completed.intentId)).toBe(1);
  });

  it('records a capture Stripe refuses for good (the authorisation expired), and the job stays completed', async () => {
    const { job, intentId } = await heldJob();
    stripe.setStatus(intentId, 'canceled');
    const completed = await kit.completeJob(job.id);
    expect(completed.status).toBe('completed');
    const [row] = await kit.rowsOf(job.id);
    expect(row?.status).toBe('failed');
    expect(row?.failureMessage).toMatch(/could not be captured because it has a status of canceled/);
    expect((await kit.paymentSentences(job.id)).at(-1)).toMatch(/^Capturing \$39\.00 from the card held for this job failed: Stripe refused the capture/);
  });
});

describe('release on cancel', () => {
  it('cancels the PaymentIntent once the cancellation has committed: nothing is charged', async () => {
    const { job, intentId } = await heldJob();
    const cancelled = await kit.cancelJob(kit.company.staff, job.id);
    expect(cancelled.status).toBe('cancelled');
    expect(stripe.intents.get(intentId)).toMatchObject({ status: 'canceled', amount_received: 0 });
    const cancel = stripe.calls.find((call) => call.path === `/v1/payment_intents/${intentId}/cancel`);
    expect(cancel?.idempotencyKey).toBe(`job-${job.id}-hold-1:release`);
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'released', capturedCents: null });
    expect((await kit.paymentSentences(job.id)).at(-1)).toBe('The $39.00 hold on the card was released; nothing was charged.');
  });

  it('takes the no-show fee from the hold when the job is cancelled as a no-show, and releases the rest', async () => {
    await t.db.insert(priceItems).values({ key: 'no_show', label: 'No-show fee', amountCents: 2000, unit: 'job', feeKind: 'platform', position: 99 });
    try {
      const { job, intentId } = await heldJob();
      const current = await kit.jobs.moveJob(kit.company.staff, job.id, ['ready']);
      const res = await kit.jobs.call(kit.company.staff, 'PATCH', `/api/jobs/${job.id}`, { status: 'cancelled', noShow: true, version: current.version });
      expect(res.statusCode, res.body).toBe(200);
      expect(stripe.intents.get(intentId)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
      expect(stripe.capturesDone(intentId)).toBe(1);
      expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 2000 });
      expect(await kit.paymentSentences(job.id)).toContain('$20.00 was captured from the card held for this job.');
    } finally {
      await t.db.delete(priceItems).where(eq(priceItems.key, 'no_show'));
    }
  });

  it('keeps the cancellation when Stripe does not answer, and releases the hold when the payment is checked later', async () => {
    const { job, intentId } = await heldJob();
    stripe.dropAnswers('cancel', 10);
    expect((await kit.cancelJob(kit.company.staff, job.id)).status).toBe('cancelled');
    expect((await kit.rowsOf(job.id))[0]?.status).toBe('held');
    stripe.dropAnswers('cancel', 0);
    const admin = await t.createUser({ roles: ['admin'] });
    const synced = await kit.jobs.call(admin, 'POST', `/api/jobs/${job.id}/payment/sync`);
    expect(synced.json().current).toBeNull();
    expect(synced.json().attempts[0]).toMatchObject({ status: 'released' });
    expect(stripe.intents.get(intentId)?.status).toBe('canceled');
  });
});

describe('the Stripe webhook', () => {
  it('records what a signed event reports, once, however often it is delivered', async () => {
    const { job, intentId } = await heldJob();
    const webhook = stripe.webhookFor('payment_intent.canceled', stripe.setStatus(intentId, 'canceled'));
    const first = await postWebhook(webhook);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ received: true, handled: true, message: 'The payment is now released.' });
    const again = await postWebhook(webhook);
    expect(again.json()).toEqual({ received: true, handled: true, message: 'The payment is released; the event changed nothing.' });
    expect((await kit.rowsOf(job.id))[0]?.status).toBe('released');
    expect(await kit.paymentSentences(job.id)).toEqual([
      `${kit.company.staff.name} had $39.00 held on a card until the notarization completes.`,
      'The $39.00 hold on the card was released; nothing was charged (reported by Stripe).',
    ]);
  });

  it('records a capture made in Stripe’s dashboard, with the amount Stripe received', async () => {
    const { job, intentId } = await heldJob();
    const res = await postWebhook(stripe.webhookFor('payment_intent.succeeded', stripe.setStatus(intentId, 'succeeded')));
    expect(res.json()).toMatchObject({ handled: true, message: 'The payment is now captured.' });
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 3900 });
    expect((await kit.paymentSentences(job.id)).at(-1)).toBe('$39.00 was captured from the card held for this job (reported by Stripe).');
  });

  it('finds a hold Stripe let go (an authorisation that expired) whose webhook was lost, when the payment is checked', async () => {
    const { job, intentId } = await heldJob();
    stripe.setStatus(intentId, 'canceled');
    const billing = await t.createUser({ roles: ['billing'] });
    const synced = await kit.jobs.call(billing, 'POST', `/api/jobs/${job.id}/payment/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ current: null, attempts: [{ status: 'released', externalId: intentId }] });
    expect((await kit.paymentSentences(job.id)).at(-1)).toBe(
      'The $39.00 hold on the card was released; nothing was charged (found when the payment was checked with Stripe).',
    );
    // With no live payment, a new card may be held for the job.
    expect((await kit.hold(kit.company.staff, job.id)).statusCode).toBe(201);
  });

  it('never moves a payment back: a late “held” event after the capture changes nothing', async () => {
    const { job, intentId } = await heldJob();
    const heldEvent = stripe.webhookFor('payment_intent.amount_capturable_updated', { ...stripe.intents.get(intentId)! });
    await kit.completeJob(job.id);
    const late = await postWebhook(heldEvent);
    expect(late.json().message).toBe('The payment is captured; the event changed nothing.');
    expect((await kit.rowsOf(job.id))[0]?.status).toBe('captured');
  });

  it('refuses, with 400 and a sentence, an event signed with another secret, a changed body, no signature, or a replay older than five minutes', async () => {
    const { job, intentId } = await heldJob();
    const intent = stripe.setStatus(intentId, 'canceled');
    const forged = stripe.webhookFor('payment_intent.canceled', intent, { secret: 'whsec_not_the_platforms' });
    const signed = stripe.webhookFor('payment_intent.canceled', intent);
    const tampered = { payload: signed.payload.replace('"canceled"', '"succeeded"'), headers: signed.headers };
    const unsigned = { payload: signed.payload, headers: { 'content-type': 'application/json' } };
    const replayed = stripe.webhookFor('payment_intent.canceled', intent, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const mismatch = 'The webhook’s signature does not match this platform’s signing secret (STRIPE_WEBHOOK_SECRET); it was refused.';
    for (const [webhook, message] of [
      [forged, mismatch],
      [tampered, mismatch],
      [unsigned, 'The webhook has no Stripe-Signature header; it was not sent by Stripe.'],
      [replayed, 'The webhook’s signature is more than 5 minutes old; a replayed webhook is refused.'],
    ] as const) {
      const res = await postWebhook(webhook);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_webhook', message });
    }
    expect((await kit.rowsOf(job.id))[0]?.status).toBe('held');
    expect(
      (await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, job.id))).filter(
        (row) => row.action !== 'payment.held' && row.action.startsWith('payment.'),
      ),
    ).toEqual([]);
  });

  it('acknowledges events it does not act on: another kind of event, a PaymentIntent that is not the platform’s', async () => {
    const { intentId } = await heldJob();
    const other = stripe.webhookFor('customer.created', stripe.intents.get(intentId)!);
    expect((await postWebhook(other)).json()).toMatchObject({ received: true, handled: false });
    const stranger = stripe.webhookFor('payment_intent.succeeded', { ...stripe.intents.get(intentId)!, id: 'pi_someone_elses' });
    const res = await postWebhook(stranger);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, handled: false, message: 'No payment of this platform has that PaymentIntent; the event was acknowledged.' });
  });
});
