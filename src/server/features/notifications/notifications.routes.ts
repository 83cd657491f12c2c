import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dismissNotificationInputSchema, pendingJobsSchema } from '#shared/notifications.ts';
import { dismissNotification, findPendingJobs } from './notifications.service.ts';

export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/users/me/pending-jobs', { config: { access: 'signed-in' }, schema: { response: { 200: pendingJobsSchema } } }, async (request) =>
    findPendingJobs(request.ctx),
  );
  app.post(
    '/dismiss',
    { config: { access: 'signed-in' }, schema: { body: dismissNotificationInputSchema, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => dismissNotification(request.ctx, request.body.jobId, request.body.kind),
  );
};
