import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loginResponseSchema } from '#shared/auth.ts';
import { emailCodeStartInputSchema, emailCodeStartSchema, emailCodeVerifyInputSchema } from '#shared/gnw.ts';
import { setSessionCookie } from '#server/lib/http.ts';
import { startEmailCodeSignIn, verifyEmailCodeSignIn } from './email-code.service.ts';

/**
 * Sign in, or create a signer account, with a code mailed to the address, on the way into Notarize
 * Now (decision 051). Public: the code is the proof; both calls are limited per network and address.
 */
export const emailCodeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/email-code/start',
    { config: { access: 'public' }, schema: { body: emailCodeStartInputSchema, response: { 200: emailCodeStartSchema } } },
    async (request) => startEmailCodeSignIn(request.ctx, request.body),
  );

  app.post(
    '/email-code/verify',
    { config: { access: 'public' }, schema: { body: emailCodeVerifyInputSchema, response: { 200: loginResponseSchema } } },
    async (request, reply) => {
      const { response, signedIn } = await verifyEmailCodeSignIn(request.ctx, request.body);
      setSessionCookie(reply, request.ctx.config, signedIn.token, signedIn.expiresAt);
      return response;
    },
  );
};
