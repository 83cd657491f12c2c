import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signingAssetsSchema } from '#shared/fields.ts';
import { admitSocket } from '#server/lib/http.ts';
import { getSigningAssets, joinLiveChannel } from './signing.service.ts';
import { jobParams } from '#server/lib/route-params.ts';

export const signingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/signing-assets', { config: { access: 'signed-in' }, schema: { params: jobParams, response: { 200: signingAssetsSchema } } }, async (request) =>
    getSigningAssets(request.ctx, request.params.id),
  );

  /** The job's live channel: field changes and the session's current page, within a second, on every instance. */
  app.get('/:id/live', { websocket: true, config: { access: 'signed-in' }, schema: { params: jobParams } }, (socket, request) => {
    const pending: string[] = [];
    let channel: Awaited<ReturnType<typeof joinLiveChannel>> | null = null;
    let isClosed = false;
    socket.on('message', (data: Buffer) => {
      const raw = data.toString('utf8');
      if (channel) channel.onMessage(raw).catch((error: unknown) => request.log.warn({ err: error }, 'live channel message failed'));
      else pending.push(raw);
    });
    socket.on('close', () => {
      isClosed = true;
      void channel?.leave();
    });
    const credential = admitSocket(request, socket);
    if (!credential) return;
    joinLiveChannel(
      request.ctx,
      request.params.id,
      credential.token,
      (message) => {
        if (socket.readyState === socket.OPEN) socket.send(message);
      },
      ({ code, reason }) => socket.close(code, reason),
    )
      .then(async (joined) => {
        channel = joined;
        if (isClosed) return joined.leave();
        for (const raw of pending.splice(0)) await joined.onMessage(raw);
      })
      .catch(() => socket.close(4404, 'not found'));
  });
};
