import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okMessageSchema } from '#shared/auth.ts';
import { apiKeyListSchema, createApiKeyInputSchema, createdApiKeySchema } from '#shared/api-keys.ts';
import { z } from 'zod';
import { companyParams, uuidParam } from '#server/lib/route-params.ts';
import { createApiKey, findApiKeys, revokeApiKey } from './api-keys.service.ts';

/** Who may reach the key routes: title staff and administrators (the service checks the company and who may do what). */
const managers = ['admin', 'title'] as const;

const keyParams = z.object({ keyId: uuidParam('API key') });

/** A title company's API keys (decision 054), under /api/title-companies. */
export const apiKeysRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/api-keys', { config: { access: managers }, schema: { params: companyParams, response: { 200: apiKeyListSchema } } }, async (request) =>
    findApiKeys(request.ctx, request.params.id),
  );
  app.post(
    '/:id/api-keys',
    {
      config: { access: managers },
      schema: { params: companyParams, body: createApiKeyInputSchema, response: { 201: createdApiKeySchema } },
    },
    async (request, reply) => reply.code(201).send(await createApiKey(request.ctx, request.params.id, request.body)),
  );
  app.delete('/api-keys/:keyId', { config: { access: managers }, schema: { params: keyParams, response: { 200: okMessageSchema } } }, async (request) =>
    revokeApiKey(request.ctx, request.params.keyId),
  );
};
