import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  calendarEventListSchema,
  calendarEventSchema,
  calendarFeedSchema,
  calendarQuerySchema,
  calendarSchema,
  createCalendarEventInputSchema,
  updateCalendarEventInputSchema,
} from '#shared/calendar.ts';
import { isInstant } from '#shared/availability.ts';
import { idParams } from '#server/lib/route-params.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { createEvent, deleteEvent, getCalendar, listEvents, updateEvent } from './calendar.service.ts';
import { createFeed, getFeed, readFeed, revokeFeed } from './calendar-feed.ts';

const signedIn = 'signed-in' as const;
const eventParams = idParams('The event');
/** Calendar apps poll a feed every few minutes at most; more from one network is not a calendar app. */
const feedReadsPerMinute = 60;

const rangeMessage = (name: string) => `${name} must be an instant such as 2026-12-01T00:00:00Z.`;
const optionalInstant = (name: string) =>
  z
    .string({ error: rangeMessage(name) })
    .refine(isInstant, { message: rangeMessage(name) })
    .optional();

/** Under /api/calendar: the merged calendar and the person's feed address (decision 052). */
export const calendarRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/', { config: { access: signedIn }, schema: { querystring: calendarQuerySchema, response: { 200: calendarSchema } } }, async (request) =>
    getCalendar(request.ctx, request.query),
  );

  app.get('/feed', { config: { access: signedIn }, schema: { response: { 200: calendarFeedSchema } } }, async (request) => getFeed(request.ctx));

  app.post('/feed', { config: { access: signedIn }, schema: { response: { 201: calendarFeedSchema } } }, async (request, reply) =>
    reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(await createFeed(request.ctx)),
  );

  app.delete('/feed', { config: { access: signedIn }, schema: { response: { 200: calendarFeedSchema } } }, async (request) => revokeFeed(request.ctx));

  // The feed itself: no cookie, the secret address is the key (calendar apps cannot sign in).
  app.get(
    '/feed/:file',
    { config: { access: 'public' }, schema: { params: z.object({ file: z.string().max(100, { message: 'This is not a calendar feed address.' }) }) } },
    async (request, reply) => {
      const hits = await hitRateLimit(request.ctx.db, `calendar-feed:address:${request.ctx.ipAddress}`, 60_000);
      if (hits.count > feedReadsPerMinute) throwRateLimited('calendar feed reads from this network', hits.resetAt);
      const body = await readFeed(request.ctx.db, request.ctx.config, request.params.file);
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('content-disposition', 'inline; filename="open-ron.ics"')
        .header('cache-control', 'private, no-cache')
        .header('referrer-policy', 'no-referrer')
        .send(body);
    },
  );
};

/** Under /api/google/events (SPEC's name): the person's own events; only the owner sees or changes one. */
export const calendarEventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    {
      config: { access: signedIn },
      schema: { querystring: z.object({ from: optionalInstant('from'), to: optionalInstant('to') }), response: { 200: calendarEventListSchema } },
    },
    async (request) => ({ items: await listEvents(request.ctx, request.query) }),
  );

  app.post(
    '/',
    { config: { access: signedIn }, schema: { body: createCalendarEventInputSchema, response: { 201: calendarEventSchema } } },
    async (request, reply) => reply.code(201).send(await createEvent(request.ctx, request.body)),
  );

  app.patch(
    '/:id',
    { config: { access: signedIn }, schema: { params: eventParams, body: updateCalendarEventInputSchema, response: { 200: calendarEventSchema } } },
    async (request) => updateEvent(request.ctx, request.params.id, request.body),
  );

  app.delete('/:id', { config: { access: signedIn }, schema: { params: eventParams, response: { 204: z.null() } } }, async (request, reply) => {
    await deleteEvent(request.ctx, request.params.id);
    return reply.code(204).send(null);
  });
};
