import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditTrailSchema } from '#shared/audit.ts';
import {
  addSignerInputSchema,
  createJobInputSchema,
  idBypassInputSchema,
  jobListQuerySchema,
  jobListSchema,
  jobNotarizationTypesSchema,
  jobSchema,
  participantSchema,
  remindSignerInputSchema,
  replaceNotaryInputSchema,
  updateJobInputSchema,
  updateSignerInputSchema,
} from '#shared/jobs.ts';
import { jobCreatorRoles } from '#shared/roles.ts';
import { getJobAuditTrail } from '#server/features/audit/audit.service.ts';
import { createJob, findJobs, getJob, getNotarizationTypes, notifyParticipants, notifyReadyForNotary, replaceNotary, updateJob } from './jobs.service.ts';
import { addParticipant, remindAllParticipants, remindParticipant, removeParticipant, setIdBypass, updateParticipant } from './participants.service.ts';
import { jobParams, uuidParam } from '#server/lib/route-params.ts';
import { getJobNotarizationTypes } from './job-notarization-types.ts';

const signerParams = jobParams.extend({ sid: uuidParam('Signer') });
const signedIn = 'signed-in' as const;

export const jobsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/notarization-types',
    {
      config: { access: signedIn },
      schema: { response: { 200: z.object({ items: z.array(z.object({ key: z.string(), label: z.string(), description: z.string() })) }) } },
    },
    async () => getNotarizationTypes(),
  );

  app.post(
    '/',
    { config: { access: jobCreatorRoles, apiKeyScope: 'jobs:write' }, schema: { body: createJobInputSchema, response: { 201: jobSchema } } },
    async (request, reply) => reply.code(201).send(await createJob(request.ctx, request.body)),
  );

  app.get(
    '/',
    { config: { access: signedIn, apiKeyScope: 'jobs:read' }, schema: { querystring: jobListQuerySchema, response: { 200: jobListSchema } } },
    async (request) => findJobs(request.ctx, request.query),
  );

  app.get(
    '/:id/notarization-types',
    { config: { access: signedIn }, schema: { params: jobParams, response: { 200: jobNotarizationTypesSchema } } },
    async (request) => getJobNotarizationTypes(request.ctx, request.params.id),
  );

  app.get('/:id', { config: { access: signedIn, apiKeyScope: 'jobs:read' }, schema: { params: jobParams, response: { 200: jobSchema } } }, async (request) =>
    getJob(request.ctx, request.params.id),
  );

  app.patch(
    '/:id',
    { config: { access: signedIn, apiKeyScope: 'jobs:write' }, schema: { params: jobParams, body: updateJobInputSchema, response: { 200: jobSchema } } },
    async (request) => updateJob(request.ctx, request.params.id, request.body),
  );

  app.post(
    '/:id/signers',
    {
      config: { access: signedIn, apiKeyScope: 'jobs:write' },
      schema: { params: jobParams, body: addSignerInputSchema, response: { 201: participantSchema } },
    },
    async (request, reply) => reply.code(201).send(await addParticipant(request.ctx, request.params.id, request.body)),
  );

  app.post(
    '/:id/signers/remind',
    { config: { access: signedIn }, schema: { params: jobParams, response: { 200: z.object({ reminded: z.number(), skipped: z.number() }) } } },
    async (request) => remindAllParticipants(request.ctx, request.params.id),
  );

  app.patch(
    '/:id/signers/:sid',
    {
      config: { access: signedIn, apiKeyScope: 'jobs:write' },
      schema: { params: signerParams, body: updateSignerInputSchema, response: { 200: participantSchema } },
    },
    async (request) => updateParticipant(request.ctx, request.params.id, request.params.sid, request.body),
  );

  app.delete(
    '/:id/signers/:sid',
    { config: { access: signedIn, apiKeyScope: 'jobs:write' }, schema: { params: signerParams, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => {
      await removeParticipant(request.ctx, request.params.id, request.params.sid);
      return { ok: true as const };
    },
  );

  app.post(
    '/:id/signers/:sid/remind',
    { config: { access: signedIn }, schema: { params: signerParams, body: remindSignerInputSchema.default({}), response: { 200: participantSchema } } },
    async (request) => remindParticipant(request.ctx, request.params.id, request.params.sid, request.body.emailOverride ?? null),
  );

  app.post(
    '/:id/signers/:sid/id-bypass',
    { config: { access: ['admin', 'notary'] }, schema: { params: signerParams, body: idBypassInputSchema, response: { 200: participantSchema } } },
    async (request) => setIdBypass(request.ctx, request.params.id, request.params.sid, request.body),
  );

  app.post(
    '/:id/notify',
    { config: { access: signedIn }, schema: { params: jobParams, response: { 200: z.object({ notified: z.number() }) } } },
    async (request) => notifyParticipants(request.ctx, request.params.id),
  );

  app.post(
    '/:id/notify-ready-for-notary',
    { config: { access: signedIn }, schema: { params: jobParams, response: { 200: z.object({ notified: z.number() }) } } },
    async (request) => notifyReadyForNotary(request.ctx, request.params.id),
  );

  app.post(
    '/:id/replace-notary',
    { config: { access: signedIn }, schema: { params: jobParams, body: replaceNotaryInputSchema, response: { 200: jobSchema } } },
    async (request) => replaceNotary(request.ctx, request.params.id, request.body.notaryId),
  );

  app.get('/:id/audit', { config: { access: signedIn }, schema: { params: jobParams, response: { 200: auditTrailSchema } } }, async (request) =>
    getJobAuditTrail(request.ctx, request.params.id),
  );
};
