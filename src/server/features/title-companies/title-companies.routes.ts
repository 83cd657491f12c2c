import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { titleCompanyListSchema } from '#shared/title-companies.ts';
import { approveTitleCompany, findTitleCompanies } from './title-companies.service.ts';

const admin = ['admin'] as const;

export const titleCompaniesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/pending', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'pending'),
  }));
  app.get('/approved', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'approved'),
  }));
  app.post(
    '/:id/approve',
    { config: { access: admin }, schema: { params: z.object({ id: z.uuid({ message: 'Title company id must be a UUID.' }) }) } },
    async (request) => {
      await approveTitleCompany(request.ctx, request.params.id);
      return { ok: true };
    },
  );
};
