import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { adminNotaryCertificatesSchema, revokeCertificateInputSchema, revokeCertificateResponseSchema } from '#shared/notaries.ts';
import { userParams } from '#server/lib/route-params.ts';
import { findNotaryCertificatesForAdmin, revokeNotaryCertificate } from './notary-certificate-admin.service.ts';

const admin = { access: ['admin'] } as const;
const certificateParams = userParams.extend({
  serialNumber: z.string().regex(/^[0-9A-Fa-f]{1,64}$/, { message: 'The serial number is written in hexadecimal digits.' }),
});

/** A notary's platform certificates for administrators, under /api/admin/users: see them, revoke one. */
export const notaryCertificateAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/certificates', { config: admin, schema: { params: userParams, response: { 200: adminNotaryCertificatesSchema } } }, async (request) =>
    findNotaryCertificatesForAdmin(request.ctx, request.params.id),
  );
  app.post(
    '/:id/certificates/:serialNumber/revoke',
    { config: admin, schema: { params: certificateParams, body: revokeCertificateInputSchema, response: { 200: revokeCertificateResponseSchema } } },
    async (request) => revokeNotaryCertificate(request.ctx, request.params.id, request.params.serialNumber, request.body.reason),
  );
};
