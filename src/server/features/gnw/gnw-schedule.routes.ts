import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { gnwBookInputSchema, gnwCancelInputSchema, gnwJobInputSchema, gnwJobSchema, gnwSlotsInputSchema, gnwSlotsSchema } from '#shared/gnw.ts';
import { cancelGnwJob } from './gnw-cancel.service.ts';
import { bookGnwSession, findGnwSlots, switchGnwToScheduled } from './gnw-schedule.service.ts';

/**
 * Under /api/gnw: the scheduled lane and cancelling (decision 051). Any signed-in person may ask for
 * open times; the job named in a body must be the caller's own Notarize Now request (the services
 * answer 404 otherwise, before anything is read or changed).
 */
export const gnwScheduleRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/schedule/slots', { config: { access: 'signed-in' }, schema: { body: gnwSlotsInputSchema, response: { 200: gnwSlotsSchema } } }, async (request) =>
    findGnwSlots(request.ctx, request.body),
  );
  app.post('/schedule/book', { config: { access: 'signed-in' }, schema: { body: gnwBookInputSchema, response: { 200: gnwJobSchema } } }, async (request) =>
    bookGnwSession(request.ctx, request.body),
  );
  app.post('/switch-to-scheduled', { config: { access: 'signed-in' }, schema: { body: gnwJobInputSchema, response: { 200: gnwJobSchema } } }, async (request) =>
    switchGnwToScheduled(request.ctx, request.body.jobId),
  );
  app.post('/cancel', { config: { access: 'signed-in' }, schema: { body: gnwCancelInputSchema, response: { 200: gnwJobSchema } } }, async (request) =>
    cancelGnwJob(request.ctx, request.body),
  );
};
