import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createWebhookEndpointInputSchema,
  updateWebhookEndpointInputSchema,
  webhookDeliveryPageSchema,
  webhookDeliveryQuerySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhookReplaySchema,
} from '#shared/webhooks.ts';
import { companyParams, uuidParam } from '#server/lib/route-params.ts';
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  findWebhookDeliveries,
  findWebhookEndpoints,
  replayWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from './webhooks.service.ts';

/**
 * A company's webhooks (decision 055), under /api/title-companies. Only title staff call them; the
 * service checks it is their company. An API key's `webhooks` scope would be added to this access
 * and to the service's caller check, not to the routes' shapes.
 */
const staff = ['title'] as const;
const endpointParams = companyParams.extend({ endpointId: uuidParam('Endpoint') });
const deliveriesParams = z.object({ endpointId: uuidParam('Endpoint') });
const replayParams = deliveriesParams.extend({ deliveryId: uuidParam('Delivery') });
const disabledSchema = z.object({ endpoint: webhookEndpointSchema, message: z.string() });

export const webhooksRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id/webhooks',
    { config: { access: staff, apiKeyScope: 'webhooks' }, schema: { params: companyParams, response: { 200: webhookEndpointListSchema } } },
    async (request) => findWebhookEndpoints(request.ctx, request.params.id),
  );
  app.post(
    '/:id/webhooks',
    {
      config: { access: staff, apiKeyScope: 'webhooks' },
      schema: { params: companyParams, body: createWebhookEndpointInputSchema, response: { 201: webhookEndpointWithSecretSchema } },
    },
    async (request, reply) => reply.code(201).send(await createWebhookEndpoint(request.ctx, request.params.id, request.body)),
  );
  app.patch(
    '/:id/webhooks/:endpointId',
    {
      config: { access: staff, apiKeyScope: 'webhooks' },
      schema: { params: endpointParams, body: updateWebhookEndpointInputSchema, response: { 200: webhookEndpointSchema } },
    },
    async (request) => updateWebhookEndpoint(request.ctx, request.params.id, request.params.endpointId, request.body),
  );
  app.post(
    '/:id/webhooks/:endpointId/disable',
    { config: { access: staff, apiKeyScope: 'webhooks' }, schema: { params: endpointParams, response: { 200: disabledSchema } } },
    async (request) => disableWebhookEndpoint(request.ctx, request.params.id, request.params.endpointId),
  );
  app.post(
    '/:id/webhooks/:endpointId/rotate-secret',
    { config: { access: staff, apiKeyScope: 'webhooks' }, schema: { params: endpointParams, response: { 200: webhookEndpointWithSecretSchema } } },
    async (request) => rotateWebhookSecret(request.ctx, request.params.id, request.params.endpointId),
  );
  app.get(
    '/webhooks/:endpointId/deliveries',
    {
      config: { access: staff, apiKeyScope: 'webhooks' },
      schema: { params: deliveriesParams, querystring: webhookDeliveryQuerySchema, response: { 200: webhookDeliveryPageSchema } },
    },
    async (request) => findWebhookDeliveries(request.ctx, request.params.endpointId, request.query),
  );
  app.post(
    '/webhooks/:endpointId/deliveries/:deliveryId/replay',
    { config: { access: staff, apiKeyScope: 'webhooks' }, schema: { params: replayParams, response: { 201: webhookReplaySchema } } },
    async (request, reply) => reply.code(201).send(await replayWebhookDelivery(request.ctx, request.params.endpointId, request.params.deliveryId)),
  );
};
