import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { acceptInviteResponseSchema, jobInvitationLookupSchema } from '#shared/invites.ts';
import { acceptJobInvitation, getJobInvitation } from './email-invitations.service.ts';
import { jobIdParams as jobParams } from '#server/lib/route-params.ts';

/** Invitations to a signed-in person's confirmed address, seen and accepted without the emailed link. */
export const emailInvitationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/jobs/:jobId', { config: { access: 'signed-in' }, schema: { params: jobParams, response: { 200: jobInvitationLookupSchema } } }, async (request) =>
    getJobInvitation(request.ctx, request.params.jobId),
  );

  app.post(
    '/jobs/:jobId/accept',
    { config: { access: 'signed-in' }, schema: { params: jobParams, response: { 200: acceptInviteResponseSchema } } },
    async (request) => acceptJobInvitation(request.ctx, request.params.jobId),
  );
};
