import { contentDisposition } from '#server/lib/content-disposition.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { prepareJournalDrafts, storeJournalDrafts } from '#server/features/journal/journal.service.ts';
import { notarizedListSchema, verificationSchema } from '#shared/fields.ts';
import { preparedJournalSchema } from '#shared/journal.ts';
import { AppError } from '#server/lib/errors.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { receiveToTempFile } from '#server/providers/storage/storage.ts';
import { completeJob, findNotarizedDocuments, openNotarizedFile } from './notarization.service.ts';
import { getPlatformCaCertificate, verifyByHash, verifyById } from './verification.service.ts';
import { jobParams, uuidParam } from '#server/lib/route-params.ts';

/** `/:id` of the public verification page: its sentence asks for the id printed on the document. */
const verificationParams = z.object({ id: z.uuid({ message: 'Enter a document id (a UUID).' }) });

export const notarizationRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const url of ['/:id/complete-job', '/:id/merge-documents']) {
    app.post(url, { config: { access: ['notary'] }, schema: { params: jobParams, response: { 200: notarizedListSchema } } }, async (request) => {
      const sealed = await completeJob(request.ctx, request.params.id);
      // The act is done: its journal entries are drafted from what was recorded, for the notary to finish.
      await storeJournalDrafts(request.ctx, request.params.id);
      return sealed;
    });
  }

  // Prepares and stores the job's journal drafts (as POST /api/notary-log/drafts/{jobId}) and answers with them.
  app.post(
    '/:id/prepare-notary-log',
    { config: { access: ['notary', 'admin'] }, schema: { params: jobParams, response: { 200: preparedJournalSchema } } },
    async (request) => prepareJournalDrafts(request.ctx, request.params.id),
  );

  app.get('/:id/notarized', { config: { access: 'signed-in' }, schema: { params: jobParams, response: { 200: notarizedListSchema } } }, async (request) =>
    findNotarizedDocuments(request.ctx, request.params.id),
  );

  app.get(
    '/:id/notarized/:nid/file',
    { config: { access: 'signed-in' }, schema: { params: jobParams.extend({ nid: uuidParam('Notarized document') }) } },
    async (request, reply) => {
      const file = await openNotarizedFile(request.ctx, request.params.id, request.params.nid);
      return reply
        .type('application/pdf')
        .header('content-length', String(file.sizeBytes))
        .header('content-disposition', contentDisposition(file.name))
        .header('cache-control', 'private, no-store')
        .send(file.stream);
    },
  );
};

/** The public verification API: no sign-in, no personal data in the answer. */
export const verifyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/', { config: { access: 'public' }, schema: { response: { 200: verificationSchema } } }, async (request) => {
    const { ctx } = request;
    const hits = await hitRateLimit(ctx.db, `verify:address:${ctx.ipAddress}`, 60_000);
    if (hits.count > 30) throwRateLimited('verification requests', hits.resetAt);
    if (!request.isMultipart()) throw new AppError(400, 'no_file', 'Upload the PDF to check as multipart/form-data.');
    const part = await request.file();
    if (!part) throw new AppError(400, 'no_file', 'Upload the PDF to check.');
    const received = await receiveToTempFile(part.file, path.join(ctx.config.dataDir, 'tmp'), ctx.config.documentMaxBytes);
    try {
      if (received.isTooLarge) throw new AppError(413, 'file_too_large', 'This file is larger than the upload limit.');
      return await verifyByHash(ctx, received.sha256);
    } finally {
      await fs.promises.rm(received.filePath, { force: true });
    }
  });

  app.get('/platform-ca.pem', { config: { access: 'public' } }, async (request, reply) =>
    reply
      .type('application/x-pem-file')
      .header('content-disposition', 'attachment; filename="open-ron-platform-ca.pem"')
      .header('cache-control', 'public, max-age=3600')
      .send(await getPlatformCaCertificate(request.ctx)),
  );

  app.get(
    '/:id',
    {
      config: { access: 'public' },
      schema: { params: verificationParams, response: { 200: verificationSchema } },
    },
    async (request) => verifyById(request.ctx, request.params.id),
  );
};
