import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { registerResponseSchema } from '#shared/auth.ts';
import { acceptInviteResponseSchema, claimInviteInputSchema, inviteSummarySchema, requestAccessInputSchema } from '#shared/invites.ts';
import { setSessionCookie } from '#server/lib/http.ts';
import { acceptInvite, claimInvite, getInvite, requestAccess } from './invites.service.ts';

const tokenParamsSchema = z.object({ token: z.string().min(1).max(200) });

export const invitesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:token', { config: { access: 'public' }, schema: { params: tokenParamsSchema, response: { 200: inviteSummarySchema } } }, async (request) =>
    getInvite(request.ctx, request.params.token),
  );

  app.post(
    '/:token/claim',
    { config: { access: 'public' }, schema: { params: tokenParamsSchema, body: claimInviteInputSchema, response: { 201: registerResponseSchema } } },
    async (request, reply) => {
      const { response, signedIn } = await claimInvite(request.ctx, request.params.token, request.body);
      setSessionCookie(reply, request.ctx.config, signedIn.token, signedIn.expiresAt);
      return reply.code(201).send(response);
    },
  );

  app.post(
    '/:token/accept',
    { config: { access: 'signed-in' }, schema: { params: tokenParamsSchema, response: { 200: acceptInviteResponseSchema } } },
    async (request) => acceptInvite(request.ctx, request.params.token),
  );

  app.post(
    '/request-access',
    { config: { access: 'public' }, schema: { body: requestAccessInputSchema, response: { 200: z.object({ ok: z.literal(true), message: z.string() }) } } },
    async (request) => requestAccess(request.ctx, request.body.email),
  );
};
