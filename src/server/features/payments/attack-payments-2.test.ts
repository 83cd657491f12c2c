import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, payments } from '#server/db/schema/index.ts';
import { createPaymentProvider } from '#server/providers/payment/payment-provider.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createPaymentKit } from '#test/payment-fixtures.ts';
import { signStripePayload, startStripeStandIn, stripeStandInEnv, type StripeStandIn } from '#test/stripe-stand-in.ts';
import { reconcilePayments } from './payments.service.ts';

/**
 * The payment provider attacked again (decision 050): webhooks huge, in the wrong type, signed but
 * malformed, sent many times at once; holds with odd cards; a capture retried from every side at
 * once; a hold racing the job's cancellation. Every answer a sentence in the one shape, never a 500.
 */

let t: TestApp;
let stripe: StripeStandIn;
let kit: Awaited<ReturnType<typeof createPaymentKit>>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp(
    stripeStandInEnv(stripe, {
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
    }),
  );
  kit = await createPaymentKit(t);
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

const webhookUrl = '/api/payments/stripe/webhook';
type Res = Awaited<ReturnType<typeof t.app.inject>>;

function expectRefusal(res: Res, status: number | number[], label: string) {
  const statuses = [status].flat();
  expect(statuses, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
  const body = res.json();
  expect(typeof body.error, label).toBe('string');
  expect(typeof body.message, label).toBe('string');
}

/** A body signed with the platform's webhook secret, as only Stripe could sign it. */
const signed = (payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: webhookUrl,
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signStripePayload(payload, stripe.webhookSecret), ...headers },
    payload,
  });

async function heldJob() {
  const job = await kit.bookJob();
  const res = await kit.hold(kit.company.staff, job.id);
  expect(res.statusCode, res.body).toBe(201);
  return { job, intentId: res.json().payment.externalId as string, paymentId: res.json().payment.id as string };
}

const eventsOf = async (paymentId: string, action: string) =>
  (await t.db.select().from(auditEvents).where(eq(auditEvents.action, action))).filter(
    (event) => (event.data as { paymentId?: string }).paymentId === paymentId,
  );

describe('the webhook, attacked', () => {
  it('refuses a huge body with 413, another content type with 415, no body or no signature with 400, each in the one shape', async () => {
    const { intentId } = await heldJob();
    const intent = stripe.intents.get(intentId)!;
    const real = stripe.webhookFor('payment_intent.canceled', { ...intent, status: 'canceled' });
    const huge = JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) });
    expectRefusal(await signed(huge), 413, '2 MB signed');
    expectRefusal(await t.app.inject({ method: 'POST', url: webhookUrl, headers: { 'content-type': 'application/json' }, payload: huge }), 413, '2 MB');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      const res = await t.app.inject({ method: 'POST', url: webhookUrl, headers: { ...real.headers, 'content-type': type }, payload: real.payload });
      expectRefusal(res, [400, 415], type);
    }
    expectRefusal(await t.app.inject({ method: 'POST', url: webhookUrl }), 400, 'no body');
    expectRefusal(
      await t.app.inject({ method: 'POST', url: webhookUrl, headers: { 'content-type': 'application/json' }, payload: real.payload }),
      400,
      'unsigned',
    );
    const long = await t.app.inject({
      method: 'POST',
      url: webhookUrl,
      headers: { ...real.headers, 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},${'v1=00,'.repeat(5000)}` },
      payload: real.payload,
    });
    expectRefusal(long, [400, 431], 'a 30 kB signature');
    const forgedTwice = stripe.webhookFor('payment_intent.canceled', { ...intent, status: 'canceled' }, { secret: 'whsec_not_the_platforms' });
    const twice = await t.app.inject({
      method: 'POST',
      url: webhookUrl,
      headers: { 'content-type': 'application/json', 'stripe-signature': [forgedTwice.headers['stripe-signature']!, forgedTwice.headers['stripe-signature']!] },
      payload: real.payload,
    });
    expectRefusal(twice, 400, 'two forged Stripe-Signature headers');
    expect((await t.db.select().from(payments).where(eq(payments.externalId, intentId)))[0]?.status).toBe('held');
    // Stripe's own content type, charset and all, is taken.
    const ok = await t.app.inject({ method: 'POST', url: webhookUrl, headers: real.headers, payload: real.payload });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ handled: true, message: 'The payment is now released.' });
  });

  it('changes a payment once when one signed event is delivered ten times at the same moment', async () => {
    const { intentId, paymentId } = await heldJob();
    const webhook = stripe.webhookFor('payment_intent.succeeded', stripe.setStatus(intentId, 'succeeded'));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.app.inject({ method: 'POST', url: webhookUrl, headers: webhook.headers, payload: webhook.payload })),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(answers.filter((res) => res.json().message === 'The payment is now captured.')).toHaveLength(1);
    expect(await eventsOf(paymentId, 'payment.captured')).toHaveLength(1);
  });
});

describe('a signed webhook of an unexpected shape', () => {
  it('answers a signed event that is not an event object (null, a list, a number type, no data) with 400 invalid_webhook, never a 500', async () => {
    const { intentId } = await heldJob();
    const intent = stripe.intents.get(intentId)!;
    const answers: string[] = [];
    for (const payload of [
      'null',
      '[]',
      '"payment_intent.succeeded"',
      '42',
      JSON.stringify({ id: 'evt_1', object: 'event', type: 42, data: { object: intent } }),
      JSON.stringify({ id: 'evt_2', object: 'event', data: { object: intent } }),
      JSON.stringify({ id: 'evt_3', object: 'event', type: 'payment_intent.succeeded' }),
      JSON.stringify({ id: 'evt_4', object: 'event', type: 'payment_intent.succeeded', data: null }),
      JSON.stringify({ id: 'evt_5', object: 'event', type: 'payment_intent.succeeded', data: { object: { ...intent, id: 42 } } }),
    ]) {
      const res = await signed(payload);
      answers.push(`${res.statusCode} ${payload.slice(0, 70)}`);
      if (res.statusCode !== 500) expectRefusal(res, [200, 400], payload.slice(0, 60));
    }
    expect(answers.filter((answer) => answer.startsWith('500'))).toEqual([]);
    expect((await t.db.select().from(payments).where(eq(payments.externalId, intentId)))[0]?.status).toBe('held');
  });
});

describe('holds and captures, attacked', () => {
  it('refuses odd cards with 400 before calling Stripe, and a 1 MB body with 413', async () => {
    const job = await kit.bookJob();
    const before = stripe.calls.length;
    for (const paymentMethod of [
      'pm_card_visa\u0000',
      'pm_card_visa\n',
      'pm_cаrd_visa',
      'pm_%',
      `pm_${'a'.repeat(201)}`,
      'pm_card_visa ',
      null,
      ['pm_card_visa'],
      { id: 'pm_x' },
    ]) {
      const res = await kit.hold(kit.company.staff, job.id, { paymentMethod });
      expectRefusal(res, 400, JSON.stringify(paymentMethod).slice(0, 30));
    }
    expectRefusal(await kit.hold(kit.company.staff, job.id, { paymentMethod: 'pm_card_visa', note: 'x' }), 400, 'an unknown key');
    const huge = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/payment/hold`,
      headers: { ...(await t.headersFor(kit.company.staff)), 'content-type': 'application/json' },
      payload: JSON.stringify({ paymentMethod: `pm_${'x'.repeat(1024 * 1024)}` }),
    });
    expectRefusal(huge, 413, '1 MB');
    expect(stripe.calls.length).toBe(before);
    expect(await kit.rowsOf(job.id)).toEqual([]);
  });

  it('captures once when the completion, three syncs and the reconciler all settle one job at the same moment, its first answers lost', async () => {
    const { job, intentId, paymentId } = await heldJob();
    stripe.dropAnswers('capture', 1);
    await kit.completeJob(job.id);
    const settler = await t.createUser({ roles: ['finance'] });
    const reconcilerCtx = {
      db: t.db,
      payment: createPaymentProvider(t.config.payment),
      log: t.app.log,
      user: null,
      ipAddress: 'test',
      userAgent: null,
    };
    const answers = await Promise.all([
      kit.jobs.call(settler, 'POST', `/api/jobs/${job.id}/payment/sync`),
      kit.jobs.call(settler, 'POST', `/api/jobs/${job.id}/payment/sync`),
      kit.jobs.call(settler, 'POST', `/api/jobs/${job.id}/payment/sync`),
      reconcilePayments(reconcilerCtx),
    ]);
    for (const res of answers.slice(0, 3) as Res[]) expect([200, 502, 503], res.body).toContain(res.statusCode);
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect(await eventsOf(paymentId, 'payment.captured')).toHaveLength(1);
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'captured', capturedCents: 1400 });
  });

  it('leaves nothing held on a cancelled job after one reconciler pass when the hold and the cancellation race', async () => {
    const job = await kit.bookJob();
    const [held, cancelled] = await Promise.all([kit.hold(kit.company.staff, job.id), kit.cancelJob(kit.company.staff, job.id)]);
    expect([201, 409], held.body).toContain(held.statusCode);
    expect(cancelled).toBeDefined();
    const provider = createPaymentProvider(t.config.payment);
    await reconcilePayments({ db: t.db, payment: provider, log: t.app.log, user: null, ipAddress: 'test', userAgent: null });
    const rows = await kit.rowsOf(job.id);
    expect(rows.filter((row) => row.status === 'held')).toEqual([]);
    for (const row of rows.filter((row) => row.externalId)) expect(stripe.intents.get(row.externalId!)?.status).not.toBe('requires_capture');
  });

  it('answers a sync Stripe does not answer with 502 and a sentence, and records nothing false', async () => {
    const { job, paymentId } = await heldJob();
    stripe.dropAnswers('retrieve', 3);
    const res = await kit.jobs.call(await t.createUser({ roles: ['billing'] }), 'POST', `/api/jobs/${job.id}/payment/sync`);
    expectRefusal(res, 502, 'sync without Stripe');
    expect((await t.db.select().from(payments).where(eq(payments.id, paymentId)))[0]?.status).toBe('held');
    expect((await t.db.select().from(auditEvents).where(like(auditEvents.action, 'payment.%'))).length).toBeGreaterThan(0);
  });
});
