import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  gnwJobInputSchema,
  gnwJobSchema,
  gnwLoopQuerySchema,
  gnwLoopSchema,
  gnwOfferAnswerSchema,
  gnwOffersSchema,
  gnwTestOfferInputSchema,
} from '#shared/gnw.ts';
import { idParams } from '#server/lib/route-params.ts';
import { acceptOffer, declineOffer, findOwnOffers, startInstantSearch } from './gnw-offers.service.ts';
import { getMatchingLoop, sendTestOffer } from './gnw-loop.service.ts';

/** Those an offer can ring at: notaries, and the witnesses the platform provides (decision 051). */
const offerRoles = ['notary', 'witness'] as const;
const admins = ['admin'] as const;
const offerParams = idParams('The offer');

/**
 * Notarize Now's instant lane, under /api/gnw (decision 051): the requester starts the search; notaries
 * and platform witnesses read and answer the offers ringing at them; administrators watch the loop
 * and send test offers. Ownership (the requester's own request, the caller's own offer) is checked
 * in the services.
 */
export const gnwMatchingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/instant', { config: { access: 'signed-in' }, schema: { body: gnwJobInputSchema, response: { 200: gnwJobSchema } } }, async (request) =>
    startInstantSearch(request.ctx, request.body.jobId),
  );

  app.get('/offers', { config: { access: offerRoles }, schema: { response: { 200: gnwOffersSchema } } }, async (request) => ({
    items: await findOwnOffers(request.ctx),
  }));

  app.post(
    '/offers/:id/accept',
    { config: { access: offerRoles }, schema: { params: offerParams, response: { 200: gnwOfferAnswerSchema } } },
    async (request) => acceptOffer(request.ctx, request.params.id),
  );

  app.post(
    '/offers/:id/decline',
    { config: { access: offerRoles }, schema: { params: offerParams, response: { 200: gnwOfferAnswerSchema } } },
    async (request) => declineOffer(request.ctx, request.params.id),
  );

  app.get('/loop', { config: { access: admins }, schema: { querystring: gnwLoopQuerySchema, response: { 200: gnwLoopSchema } } }, async (request) =>
    getMatchingLoop(request.ctx, request.query),
  );

  app.post(
    '/loop/test-offer',
    { config: { access: admins }, schema: { body: gnwTestOfferInputSchema, response: { 200: z.object({ message: z.string() }) } } },
    async (request) => sendTestOffer(request.ctx, request.body.notaryId),
  );
};
