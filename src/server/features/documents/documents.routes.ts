import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditAssetInputSchema } from '#shared/audit.ts';
import {
  documentListSchema,
  documentMessages,
  documentSchema,
  documentTagSchema,
  reorderDocumentsInputSchema,
  updateDocumentInputSchema,
  uploadFileNameSchema,
} from '#shared/documents.ts';
import { AppError } from '#server/lib/errors.ts';
import { documentParams, jobParams } from '#server/lib/route-params.ts';
import {
  addAuditAsset,
  addDocuments,
  assertCanUpload,
  completeDocument,
  deleteDocument,
  findDocuments,
  flushDocument,
  openDocumentFile,
  parseIfMatch,
  receiveDocument,
  removeAuditAsset,
  removeTempFiles,
  reorderDocuments,
  updateDocument,
  type ReceivedFile,
} from './documents.service.ts';

const signedIn = 'signed-in' as const;
/** What the reference says of an upload's body, which is multipart and read part by part (not a zod body). */
const uploadDescription = 'A multipart/form-data body: one or more PDF files (any field name), and optionally a `tag` field naming the documents’ tag.';

export const documentsRoutes: FastifyPluginAsyncZod = async (app) => {
  /** Reads and checks every file part as it arrives (receiveDocument); a tag field gives the tag, else the job's default (addDocuments). */
  const receiveUpload = async (request: FastifyRequest, jobId: string) => {
    const { ctx } = request;
    await assertCanUpload(ctx, jobId);
    if (!request.isMultipart()) throw new AppError(415, 'unsupported_media_type', 'Upload documents as multipart/form-data with one or more files.');
    const files: ReceivedFile[] = [];
    let tag: string | undefined;
    // no file part is longer than what is left of the body: that caps how far its buffer grows
    let bodyLeft = Number(request.headers['content-length']);
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          const received = await receiveDocument(ctx, part.file, part.filename || 'document.pdf', bodyLeft);
          files.push(received);
          bodyLeft -= received.sizeBytes;
        } else if (part.fieldname === 'tag' && typeof part.value === 'string') {
          tag = part.value;
        }
      }
      const parsedTag = documentTagSchema.optional().safeParse(tag);
      if (!parsedTag.success) throw new AppError(400, 'validation_failed', 'Choose a document tag.', { allowed: documentTagSchema.options });
      for (const file of files) {
        const parsedName = uploadFileNameSchema.safeParse(file.fileName);
        const message = parsedName.error?.issues[0]?.message;
        if (message) throw new AppError(400, 'validation_failed', message, [{ path: 'files', message }]);
      }
      return await addDocuments(ctx, jobId, files, parsedTag.data);
    } finally {
      await removeTempFiles(files);
    }
  };

  app.get(
    '/:id/documents',
    { config: { access: signedIn, apiKeyScope: 'documents' }, schema: { params: jobParams, response: { 200: documentListSchema } } },
    async (request) => ({
      items: await findDocuments(request.ctx, request.params.id),
    }),
  );

  app.post(
    '/:id/documents',
    {
      config: { access: signedIn, apiKeyScope: 'documents' },
      schema: { description: uploadDescription, params: jobParams, response: { 201: documentListSchema } },
    },
    async (request, reply) => {
      const items = await receiveUpload(request, request.params.id);
      return reply.code(201).send({ items });
    },
  );

  app.post(
    '/:id/documents/batch',
    {
      config: { access: signedIn, apiKeyScope: 'documents' },
      schema: { description: uploadDescription, params: jobParams, response: { 201: documentListSchema } },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new AppError(400, 'no_file', documentMessages.noFiles);
      const items = await receiveUpload(request, request.params.id);
      return reply.code(201).send({ items });
    },
  );

  app.patch(
    '/:id/documents/reorder',
    { config: { access: signedIn }, schema: { params: jobParams, body: reorderDocumentsInputSchema, response: { 200: documentListSchema } } },
    async (request) => ({ items: await reorderDocuments(request.ctx, request.params.id, request.body.order) }),
  );

  app.patch(
    '/:id/documents/:docId',
    { config: { access: signedIn }, schema: { params: documentParams, body: updateDocumentInputSchema, response: { 200: documentSchema } } },
    async (request, reply) => {
      const document = await updateDocument(request.ctx, request.params.id, request.params.docId, parseIfMatch(request.headers['if-match']), request.body);
      return reply.header('etag', `"${document.version}"`).send(document);
    },
  );

  app.delete(
    '/:id/documents/:docId',
    { config: { access: signedIn }, schema: { params: documentParams, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => {
      await deleteDocument(request.ctx, request.params.id, request.params.docId, parseIfMatch(request.headers['if-match']));
      return { ok: true as const };
    },
  );

  app.post(
    '/:id/documents/:docId/flush',
    {
      config: { access: signedIn },
      schema: { params: documentParams, body: updateDocumentInputSchema, response: { 202: z.object({ isApplied: z.boolean(), currentVersion: z.number() }) } },
    },
    async (request, reply) => reply.code(202).send(await flushDocument(request.ctx, request.params.id, request.params.docId, request.body)),
  );

  app.post(
    '/:id/documents/:docId/complete',
    { config: { access: signedIn }, schema: { params: documentParams, response: { 200: documentSchema } } },
    async (request) => completeDocument(request.ctx, request.params.id, request.params.docId),
  );

  app.get('/:id/documents/:docId/file', { config: { access: signedIn }, schema: { params: documentParams } }, async (request, reply) => {
    const file = await openDocumentFile(request.ctx, request.params.id, request.params.docId);
    return reply
      .type('application/pdf')
      .header('content-length', String(file.sizeBytes))
      .header('content-disposition', `inline; filename="${file.name.replace(/[^\w.\- ]/g, '_')}"`)
      .header('cache-control', 'private, no-store')
      .send(file.stream);
  });

  app.post(
    '/:id/audit/assets',
    { config: { access: signedIn }, schema: { params: jobParams, body: auditAssetInputSchema, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => addAuditAsset(request.ctx, request.params.id, request.body.docId, request.body.tag),
  );

  app.delete(
    '/:id/audit/assets',
    { config: { access: signedIn }, schema: { params: jobParams, body: auditAssetInputSchema, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => removeAuditAsset(request.ctx, request.params.id, request.body.docId, request.body.tag),
  );
};
