import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  accountAuditSchema,
  addRoleInputSchema,
  adminUserPageSchema,
  adminUserQuerySchema,
  adminUserResponseSchema,
  adminUserSchema,
  createAdminUserInputSchema,
  roleParamSchema,
  updateAdminUserInputSchema,
  userRolesResponseSchema,
  userRolesSchema,
} from '#shared/admin-users.ts';
import { okMessageSchema } from '#shared/auth.ts';
import { userParams } from '#server/lib/route-params.ts';
import { addRole, getRolesOf, removeRole, resetSavedSignature } from './admin-roles.service.ts';
import { createAdminUser, deactivateAdminUser, findAccountAudit, findAdminUsers, getAdminUser, updateAdminUser } from './admin-users.service.ts';

const admin = { access: ['admin'] } as const;
const roleParams = userParams.extend({ role: roleParamSchema });

/** The administrators' Users page, under /api/admin/users: accounts, their roles, and what was changed on them. */
export const adminUsersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: admin, schema: { querystring: adminUserQuerySchema, response: { 200: adminUserPageSchema } } }, async (request) =>
    findAdminUsers(request.ctx, request.query),
  );
  app.post('/', { config: admin, schema: { body: createAdminUserInputSchema, response: { 201: adminUserResponseSchema } } }, async (request, reply) =>
    reply.code(201).send(await createAdminUser(request.ctx, request.body)),
  );
  app.get('/:id', { config: admin, schema: { params: userParams, response: { 200: adminUserSchema } } }, async (request) =>
    getAdminUser(request.ctx, request.params.id),
  );
  app.put(
    '/:id',
    { config: admin, schema: { params: userParams, body: updateAdminUserInputSchema, response: { 200: adminUserResponseSchema } } },
    async (request) => updateAdminUser(request.ctx, request.params.id, request.body),
  );
  app.delete('/:id', { config: admin, schema: { params: userParams, response: { 200: adminUserResponseSchema } } }, async (request) =>
    deactivateAdminUser(request.ctx, request.params.id),
  );
  app.get('/:id/roles', { config: admin, schema: { params: userParams, response: { 200: userRolesSchema } } }, async (request) =>
    getRolesOf(request.ctx, request.params.id),
  );
  app.post(
    '/:id/roles',
    { config: admin, schema: { params: userParams, body: addRoleInputSchema, response: { 200: userRolesResponseSchema } } },
    async (request) => addRole(request.ctx, request.params.id, request.body.role),
  );
  app.delete('/:id/roles/:role', { config: admin, schema: { params: roleParams, response: { 200: userRolesResponseSchema } } }, async (request) =>
    removeRole(request.ctx, request.params.id, request.params.role),
  );
  app.post('/:id/reset-signature', { config: admin, schema: { params: userParams, response: { 200: okMessageSchema } } }, async (request) =>
    resetSavedSignature(request.ctx, request.params.id),
  );
  app.get('/:id/audit', { config: admin, schema: { params: userParams, response: { 200: accountAuditSchema } } }, async (request) =>
    findAccountAudit(request.ctx, request.params.id),
  );
};
