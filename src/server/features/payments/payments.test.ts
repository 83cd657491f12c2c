import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '#server/db/schema/index.ts';
import { parseConfig } from '#server/config.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createPaymentProvider } from '#server/providers/payment/payment-provider.ts';
import { getPaymentConfig } from './payments.service.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createPaymentKit } from '#test/payment-fixtures.ts';

describe('the payment configuration', () => {
  it('stops startup with a sentence when Stripe is chosen without its key or webhook secret, or its settings are given without it', () => {
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(
      'Invalid configuration: PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (the secret key of the Stripe account, and the signing secret of its webhook endpoint for PUBLIC_URL/api/payments/stripe/webhook).',
    );
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(/needs STRIPE_WEBHOOK_SECRET \(/);
    expect(() => parseConfig({ STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(
      'Invalid configuration: STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_API_BASE are used only with PAYMENT_PROVIDER=stripe (it is unset); set PAYMENT_PROVIDER=stripe or remove them.',
    );
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'paypal' })).toThrow('PAYMENT_PROVIDER is either unset, stripe or invoice.');
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' })).toThrow(/sk_… or rk_…/);
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(/whsec_…/);
    expect(parseConfig({}).payment).toBeNull();
    expect(parseConfig({ PAYMENT_PROVIDER: 'invoice' }).payment).toEqual({ kind: 'invoice' });
    expect(parseConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_live_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' }).payment).toEqual({
      kind: 'stripe',
      secretKey: 'sk_live_1',
      webhookSecret: 'whsec_1',
      apiBase: null,
      publishableKey: null,
    });
  });

  it('takes a publishable key for the browser’s card form only with Stripe, and only a pk_ key', () => {
    const stripe = { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    expect(parseConfig({ ...stripe, STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' }).payment).toMatchObject({ kind: 'stripe', publishableKey: 'pk_test_abc' });
    expect(() => parseConfig({ ...stripe, STRIPE_PUBLISHABLE_KEY: 'sk_test_1' })).toThrow(
      'STRIPE_PUBLISHABLE_KEY must be the account’s publishable key (pk_test_… or pk_live_…).',
    );
    expect(() => parseConfig({ PAYMENT_PROVIDER: 'invoice', STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' })).toThrow(
      'Invalid configuration: STRIPE_PUBLISHABLE_KEY is used only with PAYMENT_PROVIDER=stripe (it is invoice); set PAYMENT_PROVIDER=stripe or remove it.',
    );
  });
});

describe('GET /api/payments/config’s publishable key', () => {
  it('is the configured key with Stripe, null with Stripe but no key (the card form then says so), and absent for invoices', () => {
    const configOf = (env: Record<string, string>) => {
      const config = parseConfig(env);
      return getPaymentConfig({ config, payment: createPaymentProvider(config.payment) } as Ctx);
    };
    const stripe = { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    expect(configOf({ ...stripe, STRIPE_PUBLISHABLE_KEY: 'pk_live_9' })).toMatchObject({ configured: true, provider: 'stripe', publishableKey: 'pk_live_9' });
    expect(configOf(stripe)).toMatchObject({ configured: true, provider: 'stripe', publishableKey: null });
    expect(configOf({ PAYMENT_PROVIDER: 'invoice' })).not.toHaveProperty('publishableKey');
  });
});

describe('without a payment provider', () => {
  let t: TestApp;
  let kit: Awaited<ReturnType<typeof createPaymentKit>>;
  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
    kit = await createPaymentKit(t);
  });
  afterAll(async () => t?.close());

  it('says payment is not configured, never pretends to hold, and a job still completes and cancels with nothing charged to anyone', async () => {
    const config = await kit.jobs.call(kit.company.staff, 'GET', '/api/payments/config');
    expect(config.json()).toEqual({ configured: false, message: 'Payment is not configured on this platform.' });
    const job = await kit.bookJob();
    const hold = await kit.hold(kit.company.staff, job.id);
    expect(hold.statusCode).toBe(503);
    expect(hold.json()).toEqual({
      error: 'payment_not_configured',
      message: 'Payment is not configured on this platform. Nothing was charged; an administrator sets PAYMENT_PROVIDER (stripe or invoice).',
    });
    const webhook = await t.app.inject({
      method: 'POST',
      url: '/api/payments/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{}',
    });
    expect(webhook.statusCode).toBe(503);
    expect(webhook.json().error).toBe('payment_not_configured');
    expect((await kit.completeJob(job.id)).status).toBe('completed');
    const other = await kit.bookJob();
    expect((await kit.cancelJob(kit.company.staff, other.id)).status).toBe('cancelled');
    expect(await t.db.select().from(payments)).toEqual([]);
    expect((await kit.paymentOf(kit.company.staff, job.id)).json()).toEqual({ jobId: job.id, current: null, attempts: [] });
    expect(await kit.paymentSentences(job.id)).toEqual([]);
  });
});

describe('invoicing the company', () => {
  let t: TestApp;
  let kit: Awaited<ReturnType<typeof createPaymentKit>>;
  beforeAll(async () => {
    t = await createTestApp({ PAYMENT_PROVIDER: 'invoice', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
    kit = await createPaymentKit(t);
  });
  afterAll(async () => t?.close());

  it('notes at booking that the charges will be invoiced, and at completion what the job was charged, without any card', async () => {
    expect((await kit.jobs.call(kit.company.agent, 'GET', '/api/payments/config')).json()).toEqual({
      configured: true,
      provider: 'invoice',
      message: 'The charges of each completed job go on the title company’s next invoice.',
    });
    const job = await kit.bookJob();
    const hold = await kit.hold(kit.company.staff, job.id, {});
    expect(hold.statusCode, hold.body).toBe(201);
    expect(hold.json()).toEqual({
      payment: expect.objectContaining({ provider: 'invoice', status: 'invoiced', amountCents: 3900, capturedCents: null, externalId: null }),
      message: 'The charges of this job (about $39.00) will go on Acme Title’s next invoice once the notarization completes.',
    });
    expect((await kit.hold(kit.company.staff, job.id, {})).json()).toMatchObject({
      error: 'payment_exists',
      message: 'This job is already to be paid by invoice.',
    });
    await kit.completeJob(job.id);
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'invoiced', amountCents: 3900, capturedCents: 1400 });
    expect(await kit.paymentSentences(job.id)).toEqual([
      `${kit.company.staff.name} chose to pay through Acme Title’s invoice ($39.00 estimated).`,
      '$14.00 will go on Acme Title’s next invoice.',
    ]);
  });

  it('invoices nothing for a cancelled job, and refuses a job of no company, which has no invoice to go on', async () => {
    const job = await kit.bookJob();
    expect((await kit.hold(kit.company.staff, job.id, {})).statusCode).toBe(201);
    await kit.cancelJob(kit.company.staff, job.id);
    expect((await kit.rowsOf(job.id))[0]).toMatchObject({ status: 'released', capturedCents: null });
    expect((await kit.paymentSentences(job.id)).at(-1)).toBe('Nothing will be invoiced for this job.');

    const signer = await t.createUser({ roles: ['signer'] });
    const own = await kit.bookJob(signer, { companyJob: false });
    const refused = await kit.hold(signer, own.id, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('This job belongs to no title company, so there is no company invoice to put its charges on.');
    expect(await kit.rowsOf(own.id)).toEqual([]);
  });
});
