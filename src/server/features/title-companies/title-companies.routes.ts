import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okMessageSchema, rejectApplicationInputSchema } from '#shared/auth.ts';
import { titleCompanyListSchema } from '#shared/title-companies.ts';
import { approveTitleCompany, findTitleCompanies, rejectTitleCompany } from './title-companies.service.ts';

const admin = ['admin'] as const;

export const titleCompaniesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/pending', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'pending'),
  }));
  app.get('/approved', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'approved'),
  }));
  const idParams = z.object({ id: z.uuid({ message: 'Title company id must be a UUID.' }) });
  app.post('/:id/approve', { config: { access: admin }, schema: { params: idParams, response: { 200: okMessageSchema } } }, async (request) =>
    approveTitleCompany(request.ctx, request.params.id),
  );
  app.post(
    '/:id/reject',
    { config: { access: admin }, schema: { params: idParams, body: rejectApplicationInputSchema, response: { 200: okMessageSchema } } },
    async (request) => rejectTitleCompany(request.ctx, request.params.id, request.body.reason),
  );
};
