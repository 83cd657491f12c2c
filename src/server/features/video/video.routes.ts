import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { canEnterSchema } from '#shared/jobs.ts';
import { admitSocket } from '#server/lib/http.ts';
import {
  createVideoSessionInputSchema,
  deviceGroupIdSchema,
  heartbeatInputSchema,
  heartbeatResultSchema,
  joinSessionInputSchema,
  joinSessionResultSchema,
  sharedVideoMapInputSchema,
  sharedVideoMapSchema,
  recordingSchema,
  recordingStartInputSchema,
  recordingStopInputSchema,
  videoDebugInfoSchema,
  videoSessionSchema,
  videoTokenInputSchema,
  videoTokenSchema,
} from '#shared/video.ts';
import { checkCanEnter, decideParticipant, issueVideoToken, joinSession, recordHeartbeat } from './lobby/video-lobby.service.ts';
import { getSharedVideoMap, setSharedVideoMap } from './video-map.service.ts';
import { finalizeLiveSession, startSessionRecording, stopSessionRecording } from './recording/live-recording.service.ts';
import { SignalSocketSession } from './signaling/signal-connection.ts';
import { activateVideoSession, createVideoSession, getVideoDebugInfo, getVideoSession, startVideoSession } from './video-sessions.service.ts';
import { jobParams, sessionParams, uuidParam } from '#server/lib/route-params.ts';

const signedIn = 'signed-in' as const;
const participantParams = sessionParams.extend({ participantId: uuidParam('Participant') });
const activateParams = sessionParams.extend({ deviceGroupId: deviceGroupIdSchema });

/** The live session's calls under /api/video. */
export const videoRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/session',
    { config: { access: signedIn }, schema: { body: createVideoSessionInputSchema, response: { 200: videoSessionSchema, 201: videoSessionSchema } } },
    async (request, reply) => {
      const { session, isNew } = await createVideoSession(request.ctx, request.body.jobId);
      return reply.code(isNew ? 201 : 200).send(session);
    },
  );

  app.get('/session/:sid', { config: { access: signedIn }, schema: { params: sessionParams, response: { 200: videoSessionSchema } } }, async (request) =>
    getVideoSession(request.ctx, request.params.sid),
  );

  app.post(
    '/session/:sid/activate/:deviceGroupId',
    { config: { access: signedIn }, schema: { params: activateParams, response: { 200: videoSessionSchema } } },
    async (request) => activateVideoSession(request.ctx, request.params.sid, request.params.deviceGroupId),
  );

  app.post('/session/:sid/start', { config: { access: signedIn }, schema: { params: sessionParams, response: { 200: videoSessionSchema } } }, async (request) =>
    startVideoSession(request.ctx, request.params.sid),
  );

  app.post(
    '/session/:sid/finalize',
    { config: { access: signedIn }, schema: { params: sessionParams, response: { 200: videoSessionSchema } } },
    async (request) => finalizeLiveSession(request.ctx, request.params.sid),
  );

  app.get(
    '/session/:sid/shared-video-map',
    { config: { access: signedIn }, schema: { params: sessionParams, response: { 200: sharedVideoMapSchema } } },
    async (request) => getSharedVideoMap(request.ctx, request.params.sid),
  );

  app.post(
    '/session/:sid/shared-video-map',
    { config: { access: signedIn }, schema: { params: sessionParams, body: sharedVideoMapInputSchema, response: { 200: sharedVideoMapSchema } } },
    async (request) => setSharedVideoMap(request.ctx, request.params.sid, request.body),
  );

  for (const decision of ['admit', 'deny'] as const) {
    app.post(
      `/session/:sid/participants/:participantId/${decision}`,
      { config: { access: signedIn }, schema: { params: participantParams, response: { 200: videoSessionSchema } } },
      async (request) => decideParticipant(request.ctx, request.params.sid, request.params.participantId, decision),
    );
  }

  app.post('/token', { config: { access: signedIn }, schema: { body: videoTokenInputSchema, response: { 200: videoTokenSchema } } }, async (request) =>
    issueVideoToken(request.ctx, request.body),
  );

  app.post('/heartbeat', { config: { access: signedIn }, schema: { body: heartbeatInputSchema, response: { 200: heartbeatResultSchema } } }, async (request) =>
    recordHeartbeat(request.ctx, request.body.sessionId, request.body.role),
  );

  app.post(
    '/recording/start',
    { config: { access: signedIn }, schema: { body: recordingStartInputSchema, response: { 201: recordingSchema } } },
    async (request, reply) => reply.code(201).send(await startSessionRecording(request.ctx, request.body.sessionId)),
  );

  app.post(
    '/recording/stop',
    { config: { access: signedIn }, schema: { body: recordingStopInputSchema, response: { 200: recordingSchema } } },
    async (request) => stopSessionRecording(request.ctx, request.body),
  );

  /** Signaling between a browser and the media hub (src/shared/video-signaling.ts). */
  app.get('/signal', { websocket: true, config: { access: signedIn } }, (socket, request) => {
    const credential = admitSocket(request, socket);
    if (!credential) return;
    const { video } = request.ctx;
    if (!video) {
      socket.close(1011, 'no media hub here');
      return;
    }
    const session = new SignalSocketSession(request.ctx, video, credential.token, {
      send: (data) => socket.send(data),
      close: (code, reason) => socket.close(code, reason),
      isOpen: () => socket.readyState === socket.OPEN,
    });
    socket.on('message', (data: Buffer) => session.onMessage(data.toString('utf8')));
    socket.on('close', () => session.onClosed());
  });

  app.get('/debug/info', { config: { access: ['admin'] }, schema: { response: { 200: videoDebugInfoSchema } } }, async (request) =>
    getVideoDebugInfo(request.ctx),
  );
};

/** The job's side of the session, under /api/jobs: may I enter, and entering. */
export const videoJobRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/can-enter', { config: { access: signedIn }, schema: { params: jobParams, response: { 200: canEnterSchema } } }, async (request) =>
    checkCanEnter(request.ctx, request.params.id),
  );

  app.post(
    '/:id/session/join',
    { config: { access: signedIn }, schema: { params: jobParams, body: joinSessionInputSchema, response: { 200: joinSessionResultSchema } } },
    async (request) => joinSession(request.ctx, request.params.id, request.body),
  );
};
