import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { heldPaymentSchema, holdPaymentInputSchema, jobPaymentSchema, paymentConfigSchema, webhookReceiptSchema } from '#shared/payments.ts';
import type { Role } from '#shared/roles.ts';
import { jobParams } from '#server/lib/route-params.ts';
import { getJobForPayment, getJobPayment, getPaymentConfig, holdJobPayment, receiveStripeWebhook, syncJobPayment } from './payments.service.ts';

/** Who may pay for a job: the roles that create jobs; the service keeps it to the job's creator and its company's title staff. */
const payers: readonly Role[] = ['admin', 'title', 'title_agent', 'notary', 'signer'];
/** Who may see a job's payment: the payers as above, and administrators, billing and finance for any job. */
const readers: readonly Role[] = ['admin', 'billing', 'finance', 'title', 'title_agent', 'notary', 'signer'];
/** Who may check a payment with the provider and finish what is owed. */
const settlers: readonly Role[] = ['admin', 'billing', 'finance'];

/** Whose job it is is settled before the body is read (a route-level onRequest runs after the access hook). */
const mayPay = async (request: FastifyRequest) => {
  await getJobForPayment(request.ctx, (request.params as { id: string }).id, 'pay');
};

/** Under /api/jobs: a job's payment. */
export const jobPaymentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/payment', { config: { access: readers }, schema: { params: jobParams, response: { 200: jobPaymentSchema } } }, async (request) =>
    getJobPayment(request.ctx, request.params.id),
  );
  app.post(
    '/:id/payment/hold',
    { config: { access: payers }, onRequest: mayPay, schema: { params: jobParams, body: holdPaymentInputSchema, response: { 201: heldPaymentSchema } } },
    async (request, reply) => reply.code(201).send(await holdJobPayment(request.ctx, request.params.id, request.body ?? {})),
  );
  app.post('/:id/payment/sync', { config: { access: settlers }, schema: { params: jobParams, response: { 200: jobPaymentSchema } } }, async (request) =>
    syncJobPayment(request.ctx, request.params.id),
  );
};

/** Under /api/payments. */
export const paymentsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/config', { config: { access: 'signed-in' }, schema: { response: { 200: paymentConfigSchema } } }, async (request) => getPaymentConfig(request.ctx));

  // Stripe signs the bytes it sent: the webhook's body is kept raw (in this plugin only) and verified before it is parsed.
  await app.register(async (webhook) => {
    webhook.removeAllContentTypeParsers();
    webhook.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    webhook.post('/stripe/webhook', { config: { access: 'public' }, schema: { response: { 200: webhookReceiptSchema } } }, async (request) => {
      const signature = request.headers['stripe-signature'];
      return receiveStripeWebhook(
        request.ctx,
        Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        typeof signature === 'string' ? signature : undefined,
      );
    });
  });
};
