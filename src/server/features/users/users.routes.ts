import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { adminSetPasswordInputSchema } from '#shared/mfa.ts';
import { userParams } from '#server/lib/route-params.ts';
import { setUserPassword } from './users.service.ts';

export const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.put(
    '/:id/password',
    {
      config: { access: ['admin'] },
      schema: {
        params: userParams,
        body: adminSetPasswordInputSchema,
        response: { 200: z.object({ ok: z.literal(true) }) },
      },
    },
    async (request) => {
      await setUserPassword(request.ctx, request.params.id, request.body.password);
      return { ok: true as const };
    },
  );
};
