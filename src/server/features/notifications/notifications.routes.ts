import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dismissNotificationInputSchema, pendingJobsSchema } from '#shared/notifications.ts';
import { admitSocket } from '#server/lib/http.ts';
import { dismissNotification, findPendingJobs } from './notifications.service.ts';
import { openUserLiveChannel, type UserLiveChannel } from './user-live.ts';

export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/users/me/pending-jobs', { config: { access: 'signed-in' }, schema: { response: { 200: pendingJobsSchema } } }, async (request) =>
    findPendingJobs(request.ctx),
  );
  app.post(
    '/dismiss',
    { config: { access: 'signed-in' }, schema: { body: dismissNotificationInputSchema, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => dismissNotification(request.ctx, request.body.jobId, request.body.kind),
  );

  /** The person's own channel: every open tab hears when their access changed or their sign-in ended. */
  app.get('/live', { websocket: true, config: { access: 'signed-in' } }, (socket, request) => {
    let channel: UserLiveChannel | null = null;
    let isClosed = false;
    socket.on('close', () => {
      isClosed = true;
      void channel?.stop();
    });
    // The channel only speaks; whatever a client sends is ignored.
    socket.on('message', () => undefined);
    const credential = admitSocket(request, socket);
    if (!credential) return;
    openUserLiveChannel(
      request.ctx,
      credential.token,
      (event) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
      },
      (code, reason) => socket.close(code, reason),
    )
      .then((opened) => {
        channel = opened;
        if (isClosed) return opened.stop();
      })
      .catch((error: unknown) => {
        request.log.warn({ err: error }, 'user channel failed to open');
        socket.close(1011, 'unavailable');
      });
  });
};
