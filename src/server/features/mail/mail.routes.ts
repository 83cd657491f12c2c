import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mailboxPageSchema, mailboxQuerySchema, mailTemplatePreviewsSchema } from '#shared/mail.ts';
import { findMailboxMessages } from './mail.service.ts';
import { renderTemplatePreviews } from './templates.ts';

export const mailRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: { access: ['admin'] }, schema: { querystring: mailboxQuerySchema, response: { 200: mailboxPageSchema } } }, async (request) =>
    findMailboxMessages(request.ctx, request.query),
  );

  // Sample facts only: no stored mail is read, so nothing is added to the audit trail.
  app.get('/templates', { config: { access: ['admin'] }, schema: { response: { 200: mailTemplatePreviewsSchema } } }, async (request) => ({
    templates: renderTemplatePreviews(request.ctx.config.publicUrl),
  }));
};
