import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createGnwJobInputSchema,
  gnwActiveSchema,
  gnwEstimateInputSchema,
  gnwEstimateSchema,
  gnwFinalizeSchema,
  gnwJobInputSchema,
  gnwJobSchema,
  gnwPreauthInputSchema,
  updateGnwJobInputSchema,
} from '#shared/gnw.ts';
import { jobIdParams } from '#server/lib/route-params.ts';
import { createGnwJob, estimateGnw, getActiveGnwJob, getGnwJob, updateGnwJob } from './gnw-jobs.service.ts';
import { finalizeGnwJob, preauthorizeGnwJob } from './gnw-payment.ts';

/**
 * Under /api/gnw: Notarize Now's estimate, the person's instant job, its payment and its finish
 * (decision 051). Any signed-in person may start one, whatever their role; each call about a job
 * answers only the person who asked for it (404 to anyone else).
 */
export const gnwRoutes: FastifyPluginAsyncZod = async (app) => {
  // Anyone, signed out too (the wizard shows it before an account exists), rate-limited per network.
  app.post('/estimate', { config: { access: 'public' }, schema: { body: gnwEstimateInputSchema, response: { 200: gnwEstimateSchema } } }, async (request) =>
    estimateGnw(request.ctx, request.body),
  );

  app.post('/jobs', { config: { access: 'signed-in' }, schema: { body: createGnwJobInputSchema, response: { 201: gnwJobSchema } } }, async (request, reply) =>
    reply.code(201).send(await createGnwJob(request.ctx, request.body ?? {})),
  );
  app.get('/active', { config: { access: 'signed-in' }, schema: { response: { 200: gnwActiveSchema } } }, async (request) => getActiveGnwJob(request.ctx));
  app.get('/jobs/:jobId', { config: { access: 'signed-in' }, schema: { params: jobIdParams, response: { 200: gnwJobSchema } } }, async (request) =>
    getGnwJob(request.ctx, request.params.jobId),
  );
  app.put(
    '/jobs/:jobId',
    { config: { access: 'signed-in' }, schema: { params: jobIdParams, body: updateGnwJobInputSchema, response: { 200: gnwJobSchema } } },
    async (request) => updateGnwJob(request.ctx, request.params.jobId, request.body),
  );

  app.post('/preauth', { config: { access: 'signed-in' }, schema: { body: gnwPreauthInputSchema, response: { 200: gnwJobSchema } } }, async (request) =>
    preauthorizeGnwJob(request.ctx, request.body),
  );
  app.post('/finalize', { config: { access: 'signed-in' }, schema: { body: gnwJobInputSchema, response: { 200: gnwFinalizeSchema } } }, async (request) =>
    finalizeGnwJob(request.ctx, request.body),
  );
};
