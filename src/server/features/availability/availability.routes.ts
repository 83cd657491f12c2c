import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  availabilityQuerySchema,
  availabilitySlotListSchema,
  availabilityStatusSchema,
  createAvailabilityInputSchema,
  heartbeatInputSchema,
  testOfferConsentInputSchema,
  testOfferConsentSchema,
  toggleAvailabilityInputSchema,
} from '#shared/availability.ts';
import { getAvailabilityStatus, recordHeartbeat, setTestOfferConsent, toggleAvailability } from './availability.service.ts';
import { createAvailabilitySlots, deleteAvailabilitySlot, findAvailabilitySlots } from './availability-slots.service.ts';
import { idParams } from '#server/lib/route-params.ts';

const notaries = ['notary'] as const;
/** Witnesses go online too, to be offered Notarize Now jobs as the platform's witnesses (decision 051). */
const liveRoles = ['notary', 'witness'] as const;
const slotParams = idParams('The slot');

/** Live availability, under /api/notary-availability: notaries and witnesses, others get 403. */
export const notaryAvailabilityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/status', { config: { access: liveRoles }, schema: { response: { 200: availabilityStatusSchema } } }, async (request) =>
    getAvailabilityStatus(request.ctx),
  );

  app.post(
    '/toggle',
    { config: { access: liveRoles }, schema: { body: toggleAvailabilityInputSchema, response: { 200: availabilityStatusSchema } } },
    async (request) => toggleAvailability(request.ctx, request.body),
  );

  app.post(
    '/heartbeat',
    { config: { access: liveRoles }, schema: { body: heartbeatInputSchema, response: { 200: availabilityStatusSchema } } },
    async (request) => recordHeartbeat(request.ctx, request.body),
  );
};

/** Scheduled availability, under /api/availability: a notary's own slots; administrators may read any notary's. */
export const availabilityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    { config: { access: ['notary', 'admin'] }, schema: { querystring: availabilityQuerySchema, response: { 200: availabilitySlotListSchema } } },
    async (request) => ({
      items: await findAvailabilitySlots(request.ctx, request.query),
    }),
  );

  app.post(
    '/',
    { config: { access: notaries }, schema: { body: createAvailabilityInputSchema, response: { 201: availabilitySlotListSchema } } },
    async (request, reply) => reply.code(201).send({ items: await createAvailabilitySlots(request.ctx, request.body) }),
  );

  // The notary's consent to test offers from the loop test page (decision 051).
  app.put(
    '/test-offers',
    { config: { access: notaries }, schema: { body: testOfferConsentInputSchema, response: { 200: testOfferConsentSchema } } },
    async (request) => setTestOfferConsent(request.ctx, request.body.accepts),
  );

  app.delete(
    '/:id',
    { config: { access: notaries }, schema: { params: slotParams, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => {
      await deleteAvailabilitySlot(request.ctx, request.params.id);
      return { ok: true as const };
    },
  );
};
