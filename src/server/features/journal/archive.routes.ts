import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notaryArchiveListSchema, notaryArchiveQuerySchema, notaryArchiveSchema, requestNotaryArchiveInputSchema } from '#shared/journal-archives.ts';
import { idParams } from '#server/lib/route-params.ts';
import { contentDisposition } from '#server/lib/content-disposition.ts';
import { archiveEtag, deleteNotaryArchive, getNotaryArchive, listNotaryArchives, openNotaryArchive, requestNotaryArchive } from './archive.service.ts';

const archiveParams = idParams('Archive');
/** The notary for their own records; an administrator on a notary's behalf. Anyone else is refused in the service, another notary too. */
const keepers = ['notary', 'admin'] as const;

/** The notary's own archive of one commission (decision 059), under /api/notary-log/archives. */
export const archiveRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    { config: { access: keepers }, schema: { querystring: notaryArchiveQuerySchema, response: { 200: notaryArchiveListSchema } } },
    async (request) => listNotaryArchives(request.ctx, request.query),
  );

  app.post(
    '/',
    { config: { access: keepers }, schema: { body: requestNotaryArchiveInputSchema, response: { 201: notaryArchiveSchema } } },
    async (request, reply) => {
      const archive = await requestNotaryArchive(request.ctx, request.body);
      app.archiveBuilder.wake();
      return reply.code(201).send(archive);
    },
  );

  app.get('/:id', { config: { access: keepers }, schema: { params: archiveParams, response: { 200: notaryArchiveSchema } } }, async (request) =>
    getNotaryArchive(request.ctx, request.params.id),
  );

  app.delete(
    '/:id',
    { config: { access: keepers }, schema: { params: archiveParams, response: { 200: z.object({ deleted: z.literal(true) }) } } },
    async (request) => deleteNotaryArchive(request.ctx, request.params.id),
  );

  /**
   * The finished ZIP, streamed from its file: byte ranges (206) so a broken download resumes, with
   * If-Range against the ETag (the file's SHA-256) so a resumed download never mixes two files.
   */
  app.get('/:id/download', { config: { access: keepers }, schema: { params: archiveParams } }, async (request, reply) => {
    const download = await openNotaryArchive(request.ctx, request.params.id, {
      method: request.method,
      range: request.headers.range,
      // A repeated If-Range is no single validator of this file: the whole file.
      ifRange: typeof request.headers['if-range'] === 'string' || request.headers['if-range'] === undefined ? request.headers['if-range'] : '',
    });
    const { range, sizeBytes: size } = download;
    reply
      .header('accept-ranges', 'bytes')
      .header('etag', archiveEtag(download.sha256))
      .header('cache-control', 'private, no-store')
      .header('content-disposition', contentDisposition(download.fileName));
    if (range === 'unsatisfiable') {
      await download.file.close();
      return reply
        .code(416)
        .type('application/json; charset=utf-8')
        .removeHeader('content-disposition')
        .header('content-range', `bytes */${size}`)
        .send({ error: 'range_not_satisfiable', message: `That byte range is outside the archive, which is ${size} bytes long.` });
    }
    reply.type('application/zip');
    if (!range) return reply.header('content-length', String(size)).send(download.file.createReadStream());
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', String(range.end - range.start + 1))
      .send(download.file.createReadStream({ start: range.start, end: range.end }));
  });
};
