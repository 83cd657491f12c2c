import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  finalizeJournalInputSchema,
  journalAddendumInputSchema,
  journalEntryListSchema,
  journalEntrySchema,
  journalExportQuerySchema,
  journalQuerySchema,
} from '#shared/journal.ts';
import { exportJournalCsv, exportJournalJson, exportJournalPdf } from './journal-export.service.ts';
import {
  addJournalAddendum,
  deleteJournalEntry,
  finalizeJournal,
  findJournalDrafts,
  listJournal,
  markJournalTest,
  storeJournalDrafts,
} from './journal.service.ts';
import { jobIdParams as jobParams, uuidParam } from '#server/lib/route-params.ts';

const entryParams = z.object({ entryId: uuidParam('Entry') });
const listOf = z.object({ items: z.array(journalEntrySchema) });
const journalQuery = journalQuerySchema.extend({ notaryId: z.uuid({ message: 'notaryId must be a UUID.' }).optional() });
const exportQuery = journalExportQuerySchema.extend({ notaryId: z.uuid({ message: 'notaryId must be a UUID.' }).optional() });
const keepers = ['notary', 'admin'] as const;

/** Answers with a text stream whose first piece is read first, so a refusal is an error status, not a broken download. */
async function toStream(pieces: AsyncGenerator<string>): Promise<Readable> {
  const first = await pieces.next();
  return Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      yield* pieces;
    })(),
  );
}

/** The notary's electronic journal, under /api/notary-log. */
export const journalRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: { access: keepers }, schema: { querystring: journalQuery, response: { 200: journalEntryListSchema } } }, async (request) =>
    listJournal(request.ctx, request.query),
  );

  app.get('/export.csv', { config: { access: keepers }, schema: { querystring: exportQuery } }, async (request, reply) => {
    const stream = await toStream(exportJournalCsv(request.ctx, request.query));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="notary-journal.csv"')
      .header('cache-control', 'private, no-store')
      .send(stream);
  });

  app.get('/export.json', { config: { access: keepers }, schema: { querystring: exportQuery } }, async (request, reply) => {
    const stream = await toStream(exportJournalJson(request.ctx, request.query));
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', 'attachment; filename="notary-journal.json"')
      .header('cache-control', 'private, no-store')
      .send(stream);
  });

  app.get('/export.pdf', { config: { access: keepers }, schema: { querystring: exportQuery } }, async (request, reply) => {
    const pdf = await exportJournalPdf(request.ctx, request.query);
    return reply
      .type('application/pdf')
      .header('content-disposition', 'attachment; filename="notary-journal.pdf"')
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });

  app.get('/drafts/:jobId', { config: { access: keepers }, schema: { params: jobParams, response: { 200: listOf } } }, async (request) => ({
    items: await findJournalDrafts(request.ctx, request.params.jobId),
  }));

  app.post('/drafts/:jobId', { config: { access: keepers }, schema: { params: jobParams, response: { 200: listOf } } }, async (request) => ({
    items: await storeJournalDrafts(request.ctx, request.params.jobId),
  }));

  app.post(
    '/finalize/:jobId',
    { config: { access: ['notary'] }, schema: { params: jobParams, body: finalizeJournalInputSchema, response: { 200: listOf } } },
    async (request) => ({
      items: await finalizeJournal(request.ctx, request.params.jobId, request.body),
    }),
  );

  app.post(
    '/mark-test/:jobId',
    { config: { access: keepers }, schema: { params: jobParams, response: { 200: z.object({ marked: z.number() }) } } },
    async (request) => markJournalTest(request.ctx, request.params.jobId),
  );

  app.post(
    '/entries/:entryId/addenda',
    { config: { access: ['notary'] }, schema: { params: entryParams, body: journalAddendumInputSchema, response: { 201: journalEntrySchema } } },
    async (request, reply) => reply.code(201).send(await addJournalAddendum(request.ctx, request.params.entryId, request.body.text)),
  );

  app.delete(
    '/entries/:entryId',
    { config: { access: keepers }, schema: { params: entryParams, response: { 200: z.object({ deleted: z.literal(true), addenda: z.number() }) } } },
    async (request) => deleteJournalEntry(request.ctx, request.params.entryId),
  );
};
