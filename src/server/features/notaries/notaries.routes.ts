import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notaryOptionListSchema } from '#shared/jobs.ts';
import { okMessageSchema, rejectApplicationInputSchema } from '#shared/auth.ts';
import { notaryListSchema } from '#shared/notaries.ts';
import { searchTextSchema } from '#shared/text.ts';
import { approveNotary, findNotaries, findNotaryOptions, rejectNotary } from './notaries.service.ts';
import { notaryCertificateRoutes } from './notary-certificate.routes.ts';
import { notaryProfileRoutes } from './notary-profile.routes.ts';
import { notaryParams } from '#server/lib/route-params.ts';

const admin = ['admin'] as const;
const limitMessage = { message: 'Ask for 1 to 50 notaries.' };

export const notariesRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(notaryCertificateRoutes);
  await app.register(notaryProfileRoutes);
  app.get('/pending', { config: { access: admin }, schema: { response: { 200: notaryListSchema } } }, async (request) => ({
    items: await findNotaries(request.ctx, 'pending'),
  }));
  app.get('/approved', { config: { access: admin }, schema: { response: { 200: notaryListSchema } } }, async (request) => ({
    items: await findNotaries(request.ctx, 'approved'),
  }));
  app.get(
    '/lookup',
    {
      config: { access: ['admin', 'title', 'title_agent', 'notary', 'signer'] },
      schema: {
        querystring: z.object({
          q: searchTextSchema(100).default(''),
          limit: z.coerce.number(limitMessage).int(limitMessage).min(1, limitMessage).max(50, limitMessage).default(20),
        }),
        response: { 200: notaryOptionListSchema },
      },
    },
    async (request) => findNotaryOptions(request.ctx, request.query.q, request.query.limit),
  );
  app.post('/approve/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: okMessageSchema } } }, async (request) =>
    approveNotary(request.ctx, request.params.id),
  );
  app.post(
    '/reject/:id',
    { config: { access: admin }, schema: { params: notaryParams, body: rejectApplicationInputSchema, response: { 200: okMessageSchema } } },
    async (request) => rejectNotary(request.ctx, request.params.id, request.body.reason),
  );
};
