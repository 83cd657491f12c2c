import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { identityResetResultSchema } from '#shared/identity.ts';
import { userParams } from '#server/lib/route-params.ts';
import { adminClearSignatureAndIdentity, adminResetIdentity } from './identity-admin.service.ts';

/** Under /api/admin/users. */
export const identityAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/:id/reset-id', { config: { access: ['admin'] }, schema: { params: userParams, response: { 200: identityResetResultSchema } } }, async (request) =>
    adminResetIdentity(request.ctx, request.params.id),
  );
  app.post(
    '/:id/clear-signature-id',
    { config: { access: ['admin'] }, schema: { params: userParams, response: { 200: identityResetResultSchema } } },
    async (request) => adminClearSignatureAndIdentity(request.ctx, request.params.id),
  );
};
