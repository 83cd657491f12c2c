import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { saveSignatureInputSchema, signatureSchema, type SignatureKind } from '#shared/signatures.ts';
import { idParams } from '#server/lib/route-params.ts';
import { getOwnSignature, openSignatureImage, saveSignature } from './signatures.service.ts';

const signedIn = 'signed-in' as const;
/** The routes are named in the singular, as the web app calls them: /api/signature and /api/initials. */
const kindPaths: Record<SignatureKind, string> = { signature: '/signature', initials: '/initials' };

export const signaturesRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const [kind, base] of Object.entries(kindPaths) as Array<[SignatureKind, string]>) {
    app.post(base, { config: { access: signedIn }, schema: { body: saveSignatureInputSchema, response: { 201: signatureSchema } } }, async (request, reply) =>
      reply.code(201).send(await saveSignature(request.ctx, kind, request.body)),
    );
    app.get(`${base}/me`, { config: { access: signedIn }, schema: { response: { 200: signatureSchema } } }, async (request) =>
      getOwnSignature(request.ctx, kind),
    );
  }

  app.get('/signatures/:id/image', { config: { access: signedIn }, schema: { params: idParams('Signature') } }, async (request, reply) => {
    const { stream } = await openSignatureImage(request.ctx, request.params.id);
    return reply.type('image/png').header('cache-control', 'private, no-store').header('content-disposition', 'inline; filename="signature.png"').send(stream);
  });
};
