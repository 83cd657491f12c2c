import { contentDisposition } from '#server/lib/content-disposition.ts';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { okMessageSchema } from '#shared/auth.ts';
import {
  maxNotaryFileBytes,
  notaryFileKindSchema,
  notaryProfileFileSchema,
  notaryProfileSchema,
  notarySearchQuerySchema,
  notarySearchResultSchema,
  notaryTitleCompanyListSchema,
  updateNotaryProfileInputSchema,
  type NotaryFileKind,
} from '#shared/notary-profile.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, forbidden } from '#server/lib/errors.ts';
import { notaryParams, uuidParam } from '#server/lib/route-params.ts';
import {
  addNotaryProfileFile,
  clearNotarySignature,
  deleteNotaryProfileFile,
  findNotaryTitleCompanies,
  getNotaryProfile,
  notaryFileMessages,
  openNotaryProfileFile,
  searchNotaries,
  setNotaryActive,
  updateNotaryProfile,
} from './notary-profile.service.ts';

// A notary fills in their profile while their application waits, so their own routes admit a
// pending account ('signed-in') and check the notary role here; files are checked in the service.
const ownProfile = 'signed-in' as const;
const admin = ['admin'] as const;
const fileParams = notaryParams.extend({ fileId: uuidParam('File') });

/** The caller's id when they are a notary (pending or approved); 403 otherwise. */
function getNotaryCallerId(ctx: Ctx): string {
  if (!ctx.user) throw new Error('notary profile routes need a signed-in caller');
  if (!ctx.user.roles.includes('notary')) throw forbidden('Only a notary has a notary profile.');
  return ctx.user.id;
}

/** Reads the multipart body: a `kind` field and one `file` part, at most 10 MB (the rest is drained). */
async function readProfileUpload(request: FastifyRequest): Promise<{ kind: NotaryFileKind; fileName: string; content: Buffer }> {
  if (!request.isMultipart()) throw new AppError(400, 'no_file', notaryFileMessages.noFile);
  let kindText: string | null = null;
  let file: { fileName: string; content: Buffer } | null = null;
  let isTooLarge = false;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as Readable as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size <= maxNotaryFileBytes) chunks.push(chunk);
      }
      if (part.fieldname !== 'file' || file) continue;
      if (size > maxNotaryFileBytes || part.file.truncated) isTooLarge = true;
      file = { fileName: part.filename, content: Buffer.concat(chunks) };
    } else if (part.fieldname === 'kind' && typeof part.value === 'string') {
      kindText = part.value;
    }
  }
  if (isTooLarge) throw new AppError(413, 'file_too_large', notaryFileMessages.tooLarge, { maxBytes: maxNotaryFileBytes });
  const kind = notaryFileKindSchema.safeParse(kindText);
  if (!kind.success) throw new AppError(400, 'validation_failed', notaryFileMessages.noKind);
  if (!file || file.content.length === 0) throw new AppError(400, 'no_file', notaryFileMessages.noFile);
  return { kind: kind.data, ...file };
}

/**
 * The notary's commission profile (their own) and the administrators' tools over every notary's.
 * Registered under /api/notary. Files are shown only to their notary and administrators.
 */
export const notaryProfileRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/profile', { config: { access: ownProfile }, schema: { response: { 200: notaryProfileSchema } } }, async (request) =>
    getNotaryProfile(request.ctx, getNotaryCallerId(request.ctx)),
  );
  app.put(
    '/profile',
    { config: { access: ownProfile }, schema: { body: updateNotaryProfileInputSchema, response: { 200: notaryProfileSchema } } },
    async (request) => updateNotaryProfile(request.ctx, getNotaryCallerId(request.ctx), request.body),
  );
  app.post('/profile/upload', { config: { access: ownProfile }, schema: { response: { 201: notaryProfileFileSchema } } }, async (request, reply) => {
    // who may upload is settled before the body is read
    const notaryId = getNotaryCallerId(request.ctx);
    const upload = await readProfileUpload(request);
    return reply.code(201).send(await addNotaryProfileFile(request.ctx, notaryId, upload));
  });

  app.get(
    '/search',
    { config: { access: admin }, schema: { querystring: notarySearchQuerySchema, response: { 200: notarySearchResultSchema } } },
    async (request) => searchNotaries(request.ctx, request.query),
  );
  app.get('/profile/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: notaryProfileSchema } } }, async (request) =>
    getNotaryProfile(request.ctx, request.params.id),
  );
  app.put(
    '/profile/:id',
    { config: { access: admin }, schema: { params: notaryParams, body: updateNotaryProfileInputSchema, response: { 200: notaryProfileSchema } } },
    async (request) => updateNotaryProfile(request.ctx, request.params.id, request.body),
  );
  app.post(
    '/profile/:id/upload',
    { config: { access: admin }, schema: { params: notaryParams, response: { 201: notaryProfileFileSchema } } },
    async (request, reply) => {
      const upload = await readProfileUpload(request);
      return reply.code(201).send(await addNotaryProfileFile(request.ctx, request.params.id, upload));
    },
  );
  // The notary's own files too: the service answers 404 to anyone but the notary and administrators.
  app.get('/profile/:id/file/:fileId', { config: { access: ownProfile }, schema: { params: fileParams } }, async (request, reply) => {
    const { stream, file } = await openNotaryProfileFile(request.ctx, request.params.id, request.params.fileId);
    return reply
      .type(file.contentType)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', contentDisposition(file.fileName))
      .send(stream);
  });
  app.delete(
    '/profile/:id/file/:fileId',
    { config: { access: ownProfile }, schema: { params: fileParams, response: { 200: okMessageSchema } } },
    async (request) => deleteNotaryProfileFile(request.ctx, request.params.id, request.params.fileId),
  );
  app.post('/activate/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: okMessageSchema } } }, async (request) =>
    setNotaryActive(request.ctx, request.params.id, true),
  );
  app.post('/deactivate/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: okMessageSchema } } }, async (request) =>
    setNotaryActive(request.ctx, request.params.id, false),
  );
  app.delete('/signature/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: okMessageSchema } } }, async (request) =>
    clearNotarySignature(request.ctx, request.params.id, 'signature'),
  );
  app.delete('/initials/:id', { config: { access: admin }, schema: { params: notaryParams, response: { 200: okMessageSchema } } }, async (request) =>
    clearNotarySignature(request.ctx, request.params.id, 'initials'),
  );
  app.get(
    '/:id/title-companies',
    { config: { access: admin }, schema: { params: notaryParams, response: { 200: notaryTitleCompanyListSchema } } },
    async (request) => findNotaryTitleCompanies(request.ctx, request.params.id),
  );
};
