import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mailboxAttachmentParamsSchema, mailboxPageSchema, mailboxQuerySchema, mailTemplatePreviewsSchema } from '#shared/mail.ts';
import { contentDisposition } from '#server/lib/content-disposition.ts';
import { findMailboxMessages, readMailboxAttachment } from './mail.service.ts';
import { renderTemplatePreviews } from './templates.ts';

export const mailRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: { access: ['admin'] }, schema: { querystring: mailboxQuerySchema, response: { 200: mailboxPageSchema } } }, async (request) =>
    findMailboxMessages(request.ctx, request.query),
  );

  app.get('/:id/attachments/:index', { config: { access: ['admin'] }, schema: { params: mailboxAttachmentParamsSchema } }, async (request, reply) => {
    const file = await readMailboxAttachment(request.ctx, request.params.id, request.params.index);
    return reply.header('content-type', file.contentType).header('content-disposition', contentDisposition(file.filename)).send(file.content);
  });

  // Sample facts only: no stored mail is read, so nothing is added to the audit trail.
  app.get('/templates', { config: { access: ['admin'] }, schema: { response: { 200: mailTemplatePreviewsSchema } } }, async (request) => ({
    templates: renderTemplatePreviews(request.ctx.config.publicUrl),
  }));
};
