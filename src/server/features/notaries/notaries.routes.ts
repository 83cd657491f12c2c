import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notaryListSchema } from '#shared/notaries.ts';
import { approveNotary, findNotaries } from './notaries.service.ts';

const admin = ['admin'] as const;

export const notariesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/pending', { config: { access: admin }, schema: { response: { 200: notaryListSchema } } }, async (request) => ({
    items: await findNotaries(request.ctx, 'pending'),
  }));
  app.get('/approved', { config: { access: admin }, schema: { response: { 200: notaryListSchema } } }, async (request) => ({
    items: await findNotaries(request.ctx, 'approved'),
  }));
  app.post(
    '/approve/:id',
    { config: { access: admin }, schema: { params: z.object({ id: z.uuid({ message: 'Notary id must be a UUID.' }) }) } },
    async (request) => {
      await approveNotary(request.ctx, request.params.id);
      return { ok: true };
    },
  );
};
