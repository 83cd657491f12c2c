import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicConfigSchema } from '#shared/system.ts';
import { checkHealth, getPublicConfig } from './system.service.ts';

export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/health', { config: { access: 'public' }, schema: { response: { 200: z.object({ ok: z.literal(true) }) } } }, async (request) =>
    checkHealth(request.ctx),
  );
  app.get('/config', { config: { access: 'public' }, schema: { response: { 200: publicConfigSchema } } }, async (request) => getPublicConfig(request.ctx));
};
