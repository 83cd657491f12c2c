import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mailboxPageSchema, mailboxQuerySchema } from '#shared/mail.ts';
import { findMailboxMessages } from './mail.service.ts';

export const mailRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: { access: ['admin'] }, schema: { querystring: mailboxQuerySchema, response: { 200: mailboxPageSchema } } }, async (request) =>
    findMailboxMessages(request.ctx, request.query),
  );
};
