import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okMessageSchema } from '#shared/auth.ts';
import {
  companyPriceItemSchema,
  companyPriceListSchema,
  companyPricesQuerySchema,
  createPriceItemInputSchema,
  jobChargesSchema,
  priceItemSchema,
  priceKeySchema,
  priceListSchema,
  reorderPriceItemsInputSchema,
  seedCompanyPricesInputSchema,
  seedCompanyPricesResultSchema,
  updatePriceItemInputSchema,
} from '#shared/pricing.ts';
import { companyParams, jobParams } from '#server/lib/route-params.ts';
import { findJobCharges } from './job-charges.service.ts';
import {
  createDefaultPrice,
  deleteDefaultPrice,
  findCompanyPrices,
  findDefaultPrices,
  reorderDefaultPrices,
  removeCompanyPrice,
  seedCompanyPrices,
  setCompanyPrice,
  updateDefaultPrice,
} from './pricing.service.ts';

/** Who reads prices: administrators and the billing and finance staff. */
const readers = ['admin', 'billing', 'finance'] as const;
/** Who changes them: administrators and finance. */
const changers = ['admin', 'finance'] as const;

const keyParams = z.object({ key: priceKeySchema });
const companyKeyParams = companyParams.extend({ key: priceKeySchema });

export const pricingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/defaults', { config: { access: readers }, schema: { response: { 200: priceListSchema } } }, async (request) => findDefaultPrices(request.ctx));
  app.post(
    '/defaults',
    { config: { access: changers }, schema: { body: createPriceItemInputSchema, response: { 201: priceItemSchema } } },
    async (request, reply) => reply.code(201).send(await createDefaultPrice(request.ctx, request.body)),
  );
  app.post(
    '/defaults/reorder',
    { config: { access: changers }, schema: { body: reorderPriceItemsInputSchema, response: { 200: priceListSchema } } },
    async (request) => reorderDefaultPrices(request.ctx, request.body.order),
  );
  app.put(
    '/defaults/:key',
    { config: { access: changers }, schema: { params: keyParams, body: updatePriceItemInputSchema, response: { 200: priceItemSchema } } },
    async (request) => updateDefaultPrice(request.ctx, request.params.key, request.body),
  );
  app.delete('/defaults/:key', { config: { access: changers }, schema: { params: keyParams, response: { 200: okMessageSchema } } }, async (request) =>
    deleteDefaultPrice(request.ctx, request.params.key),
  );

  app.get(
    '/company/:id',
    { config: { access: readers }, schema: { params: companyParams, querystring: companyPricesQuerySchema, response: { 200: companyPriceListSchema } } },
    async (request) => findCompanyPrices(request.ctx, request.params.id, request.query.limit),
  );
  app.post(
    '/company/:id/seed',
    { config: { access: changers }, schema: { params: companyParams, body: seedCompanyPricesInputSchema, response: { 200: seedCompanyPricesResultSchema } } },
    async (request) => seedCompanyPrices(request.ctx, request.params.id, request.body.overwrite),
  );
  app.put(
    '/company/:id/items/:key',
    { config: { access: changers }, schema: { params: companyKeyParams, body: updatePriceItemInputSchema, response: { 200: companyPriceItemSchema } } },
    async (request) => setCompanyPrice(request.ctx, request.params.id, request.params.key, request.body),
  );
  app.delete(
    '/company/:id/items/:key',
    { config: { access: changers }, schema: { params: companyKeyParams, response: { 200: okMessageSchema } } },
    async (request) => removeCompanyPrice(request.ctx, request.params.id, request.params.key),
  );
};

/** Who reads a job's charges: administrators, billing, finance, and the title staff of the job's company (checked by the service). */
const chargeReaders = ['admin', 'billing', 'finance', 'title', 'title_agent'] as const;

/** GET /api/jobs/{id}/charges */
export const jobChargesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/charges', { config: { access: chargeReaders }, schema: { params: jobParams, response: { 200: jobChargesSchema } } }, async (request) =>
    findJobCharges(request.ctx, request.params.id),
  );
};
