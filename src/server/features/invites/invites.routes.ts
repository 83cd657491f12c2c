import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { registerResponseSchema } from '#shared/auth.ts';
import { claimInviteInputSchema, inviteSummarySchema } from '#shared/invites.ts';
import { setSessionCookie } from '#server/lib/http.ts';
import { claimInvite, getInvite } from './invites.service.ts';

const tokenParamsSchema = z.object({ token: z.string().min(1).max(200) });

export const invitesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:token',
    { config: { access: 'public' }, schema: { params: tokenParamsSchema, response: { 200: inviteSummarySchema } } },
    async (request) => getInvite(request.ctx, request.params.token),
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
};
