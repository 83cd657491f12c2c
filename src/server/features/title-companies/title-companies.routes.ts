import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okMessageSchema, rejectApplicationInputSchema } from '#shared/auth.ts';
import { elevatedRoles } from '#shared/roles.ts';
import {
  companyAgentListSchema,
  createJobTypeInputSchema,
  createTitleCompanyInputSchema,
  defaultNotarySchema,
  inviteAgentInputSchema,
  inviteAgentResponseSchema,
  jobTypeListSchema,
  jobTypeSchema,
  myCompaniesSchema,
  publicTitleCompanySearchQuerySchema,
  publicTitleCompanySearchSchema,
  titleCompanyListSchema,
  titleCompanyPageSchema,
  titleCompanyQuerySchema,
  titleCompanySchema,
  titleCompanySearchPageSchema,
  titleCompanySearchQuerySchema,
  updateJobTypeInputSchema,
  updateTitleCompanyInputSchema,
} from '#shared/title-companies.ts';
import { approveTitleCompany, findTitleCompanies, rejectTitleCompany } from './title-companies.service.ts';
import { closeCompany, createCompany, getCompany, getDefaultNotary, updateCompany } from './company-admin.service.ts';
import { findCompanies, findMyCompanies, searchCompanies, searchCompaniesPublicly } from './company-search.service.ts';
import { findCompanyAgents, inviteAgent, removeAgent } from './company-agents.service.ts';
import { createJobType, deleteJobType, findJobTypes, updateJobType } from './job-types.service.ts';
import { companyParams, idParams } from '#server/lib/route-params.ts';

const admin = ['admin'] as const;
/** Who may manage a company: administrators, and its title staff (the service checks which company). */
const managers = ['admin', 'title'] as const;
/** Who may read a company: administrators, its title staff and its agents (the service checks which company). */
const members = ['admin', 'title', 'title_agent'] as const;

export const titleCompaniesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/pending', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'pending'),
  }));
  app.get('/approved', { config: { access: admin }, schema: { response: { 200: titleCompanyListSchema } } }, async (request) => ({
    items: await findTitleCompanies(request.ctx, 'approved'),
  }));
  app.post('/:id/approve', { config: { access: admin }, schema: { params: companyParams, response: { 200: okMessageSchema } } }, async (request) =>
    approveTitleCompany(request.ctx, request.params.id),
  );
  app.post(
    '/:id/reject',
    { config: { access: admin }, schema: { params: companyParams, body: rejectApplicationInputSchema, response: { 200: okMessageSchema } } },
    async (request) => rejectTitleCompany(request.ctx, request.params.id, request.body.reason),
  );

  app.get('/', { config: { access: admin }, schema: { querystring: titleCompanyQuerySchema, response: { 200: titleCompanyPageSchema } } }, async (request) =>
    findCompanies(request.ctx, request.query),
  );
  app.post('/', { config: { access: admin }, schema: { body: createTitleCompanyInputSchema, response: { 201: titleCompanySchema } } }, async (request, reply) =>
    reply.code(201).send(await createCompany(request.ctx, request.body)),
  );
  app.get('/mine', { config: { access: 'signed-in' }, schema: { response: { 200: myCompaniesSchema } } }, async (request) => findMyCompanies(request.ctx));
  app.get(
    '/search',
    { config: { access: elevatedRoles }, schema: { querystring: titleCompanySearchQuerySchema, response: { 200: titleCompanySearchPageSchema } } },
    async (request) => searchCompanies(request.ctx, request.query),
  );
  app.get(
    '/search/public',
    { config: { access: 'public' }, schema: { querystring: publicTitleCompanySearchQuerySchema, response: { 200: publicTitleCompanySearchSchema } } },
    async (request) => searchCompaniesPublicly(request.ctx, request.query.q),
  );
  app.get('/:id', { config: { access: members }, schema: { params: companyParams, response: { 200: titleCompanySchema } } }, async (request) =>
    getCompany(request.ctx, request.params.id),
  );
  app.put(
    '/:id',
    { config: { access: managers }, schema: { params: companyParams, body: updateTitleCompanyInputSchema, response: { 200: titleCompanySchema } } },
    async (request) => updateCompany(request.ctx, request.params.id, request.body),
  );
  app.delete('/:id', { config: { access: admin }, schema: { params: companyParams, response: { 200: okMessageSchema } } }, async (request) =>
    closeCompany(request.ctx, request.params.id),
  );
  app.get('/:id/default-notary', { config: { access: members }, schema: { params: companyParams, response: { 200: defaultNotarySchema } } }, async (request) =>
    getDefaultNotary(request.ctx, request.params.id),
  );

  app.get('/:id/agents', { config: { access: managers }, schema: { params: companyParams, response: { 200: companyAgentListSchema } } }, async (request) =>
    findCompanyAgents(request.ctx, request.params.id),
  );
  app.post(
    '/:id/agents',
    { config: { access: managers }, schema: { params: companyParams, body: inviteAgentInputSchema, response: { 201: inviteAgentResponseSchema } } },
    async (request, reply) => reply.code(201).send(await inviteAgent(request.ctx, request.params.id, request.body)),
  );
  app.delete('/agents/:id', { config: { access: managers }, schema: { params: idParams('Agent'), response: { 200: okMessageSchema } } }, async (request) =>
    removeAgent(request.ctx, request.params.id),
  );

  app.get('/:id/job-types', { config: { access: members }, schema: { params: companyParams, response: { 200: jobTypeListSchema } } }, async (request) =>
    findJobTypes(request.ctx, request.params.id),
  );
  app.post(
    '/:id/job-types',
    { config: { access: managers }, schema: { params: companyParams, body: createJobTypeInputSchema, response: { 201: jobTypeSchema } } },
    async (request, reply) => reply.code(201).send(await createJobType(request.ctx, request.params.id, request.body)),
  );
  const jobTypeParams = idParams('Job type');
  app.put(
    '/job-types/:id',
    { config: { access: managers }, schema: { params: jobTypeParams, body: updateJobTypeInputSchema, response: { 200: jobTypeSchema } } },
    async (request) => updateJobType(request.ctx, request.params.id, request.body),
  );
  app.delete('/job-types/:id', { config: { access: managers }, schema: { params: jobTypeParams, response: { 200: okMessageSchema } } }, async (request) =>
    deleteJobType(request.ctx, request.params.id),
  );
};
