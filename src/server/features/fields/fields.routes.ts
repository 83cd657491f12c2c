import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createFieldInputSchema, fieldListSchema, fieldSchema, fillFieldInputSchema, updateFieldInputSchema } from '#shared/fields.ts';
import { createField, deleteField, fillField, findFields, openFieldImage, updateField } from './fields.service.ts';
import { documentParams, uuidParam } from '#server/lib/route-params.ts';

const fieldParams = documentParams.extend({ fieldId: uuidParam('Field') });
const signedIn = 'signed-in' as const;

export const fieldsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id/documents/:docId/fields',
    { config: { access: signedIn }, schema: { params: documentParams, response: { 200: fieldListSchema } } },
    async (request) => ({
      items: await findFields(request.ctx, request.params.id, request.params.docId),
    }),
  );

  app.post(
    '/:id/documents/:docId/fields',
    { config: { access: signedIn }, schema: { params: documentParams, body: createFieldInputSchema, response: { 201: fieldSchema } } },
    async (request, reply) => reply.code(201).send(await createField(request.ctx, request.params.id, request.params.docId, request.body)),
  );

  app.patch(
    '/:id/documents/:docId/fields/:fieldId',
    { config: { access: signedIn }, schema: { params: fieldParams, body: updateFieldInputSchema, response: { 200: fieldSchema } } },
    async (request) => updateField(request.ctx, request.params.id, request.params.docId, request.params.fieldId, request.body),
  );

  app.delete(
    '/:id/documents/:docId/fields/:fieldId',
    { config: { access: signedIn }, schema: { params: fieldParams, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => {
      await deleteField(request.ctx, request.params.id, request.params.docId, request.params.fieldId);
      return { ok: true as const };
    },
  );

  app.post(
    '/:id/documents/:docId/fields/:fieldId/fill',
    { config: { access: signedIn }, schema: { params: fieldParams, body: fillFieldInputSchema, response: { 200: fieldSchema } } },
    async (request) => fillField(request.ctx, request.params.id, request.params.docId, request.params.fieldId, request.body),
  );

  app.get('/:id/documents/:docId/fields/:fieldId/image', { config: { access: signedIn }, schema: { params: fieldParams } }, async (request, reply) =>
    reply
      .type('image/png')
      .header('cache-control', 'private, max-age=300')
      .send(await openFieldImage(request.ctx, request.params.id, request.params.docId, request.params.fieldId)),
  );
};
