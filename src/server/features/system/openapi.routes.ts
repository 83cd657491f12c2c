import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** GET /api/openapi.json: the API's reference, generated from the routes' zod contracts (lib/openapi.ts, decision 054). */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/openapi.json',
    { config: { access: 'public' }, schema: { description: 'This document: every operation of the API, with who may call it.' } },
    async (_request, reply) => reply.header('cache-control', 'no-cache').type('application/json').send(JSON.stringify(app.swagger())),
  );
};
