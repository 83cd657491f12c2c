import { z } from 'zod';
import { isInstant, isKnownTimeZone, timeZoneSchema, toSlotInstant } from './availability.ts';
import { plainTextSchema, singleLineTextSchema } from './text.ts';

/**
 * The calendar (SPEC: GET /api/calendar; /api/google/events; decision 052): a person's scheduled
 * sessions, their availability slots (notaries) and their own events, merged, plus a secret
 * iCalendar feed their own calendar app subscribes to.
 */
export const calendarLimits = {
  /** The widest range one GET /api/calendar reads: a little more than a month view of six weeks. */
  maxRangeDays: 62,
  /** An event of one's own lasts at most this long. */
  maxEventHours: 24 * 14,
  /** The feed reaches this far back and ahead. */
  feedPastDays: 60,
  feedFutureDays: 400,
} as const;

export const calendarItemKinds = ['session', 'availability', 'event'] as const;
export type CalendarItemKind = (typeof calendarItemKinds)[number];

export const calendarItemSchema = z.object({
  id: z.string(),
  kind: z.enum(calendarItemKinds),
  title: z.string(),
  startsAt: z.string(),
  /** Null for a session scheduled without a booked length: only its start was recorded. */
  endsAt: z.string().nullable(),
  /** The start and end as local date-times in the asked zone ("2026-12-01T09:00"). */
  localStart: z.string(),
  localEnd: z.string().nullable(),
  /** The zone the item was entered in (an event, a slot) or booked in (a session); null when not recorded. */
  timeZone: z.string().nullable(),
  /** Where the item is about: the job page for a session, the availability page for a slot, null for one's own event. */
  link: z.string().nullable(),
  notes: z.string().nullable(),
});
export type CalendarItem = z.infer<typeof calendarItemSchema>;

export const calendarSchema = z.object({
  timeZone: z.string(),
  from: z.string(),
  to: z.string(),
  items: z.array(calendarItemSchema),
});
export type Calendar = z.infer<typeof calendarSchema>;

const instantMessage = (name: string) => `${name} must be an instant such as 2026-12-01T00:00:00Z.`;
const instantSchema = (name: string) => z.string({ error: instantMessage(name) }).refine(isInstant, { message: instantMessage(name) });

export const calendarQuerySchema = z
  .object({
    from: instantSchema('from'),
    to: instantSchema('to'),
    timeZone: timeZoneSchema.optional(),
  })
  .refine((query) => !isInstant(query.from) || !isInstant(query.to) || Date.parse(query.to) > Date.parse(query.from), {
    message: 'to must be after from.',
    path: ['to'],
  })
  .refine(
    (query) => !isInstant(query.from) || !isInstant(query.to) || Date.parse(query.to) - Date.parse(query.from) <= calendarLimits.maxRangeDays * 86_400_000,
    { message: `Ask for at most ${calendarLimits.maxRangeDays} days at a time.`, path: ['to'] },
  );
export type CalendarQuery = z.infer<typeof calendarQuerySchema>;

/** One's own event, as the API answers it. */
export const calendarEventSchema = z.object({
  id: z.string(),
  title: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  timeZone: z.string(),
  notes: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CalendarEvent = z.infer<typeof calendarEventSchema>;
export const calendarEventListSchema = z.object({ items: z.array(calendarEventSchema) });

const eventTimeMessage = (label: string) =>
  `Send the event’s ${label} as a local date and time such as 2026-12-01T09:00, or an instant such as 2026-12-01T15:00:00Z.`;
const eventTimeSchema = (label: string) =>
  z
    .string({ error: eventTimeMessage(label) })
    .max(40, { message: eventTimeMessage(label) })
    .refine((value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) || isInstant(value), { message: eventTimeMessage(label) });

const eventTitleSchema = singleLineTextSchema({ label: 'The event’s title', max: 200, requiredMessage: 'Give the event a title.' });
const eventNotesSchema = plainTextSchema({ label: 'The notes', max: 2000 });

/**
 * The instants an event's times mean in its zone, or the sentence saying what is wrong: a local
 * time the zone skips, an end not after the start, a length past the limit.
 */
export function eventInstants(start: string, end: string, timeZone: string): { startsAt: Date; endsAt: Date } | { problem: string; path: string } {
  if (!isKnownTimeZone(timeZone)) return { problem: 'Send a time zone such as America/Chicago; that one is not known.', path: 'timeZone' };
  const startsAt = toSlotInstant(start, timeZone);
  if (!startsAt) return { problem: `${start.replace('T', ' ')} does not exist in ${timeZone} (the clocks skip that hour).`, path: 'start' };
  const endsAt = toSlotInstant(end, timeZone);
  if (!endsAt) return { problem: `${end.replace('T', ' ')} does not exist in ${timeZone} (the clocks skip that hour).`, path: 'end' };
  if (endsAt.getTime() <= startsAt.getTime()) return { problem: 'The event must end after it starts.', path: 'end' };
  if (endsAt.getTime() - startsAt.getTime() > calendarLimits.maxEventHours * 3_600_000) {
    return { problem: `An event may last at most ${calendarLimits.maxEventHours / 24} days.`, path: 'end' };
  }
  return { startsAt, endsAt };
}

export const createCalendarEventInputSchema = z.object(
  {
    title: eventTitleSchema,
    start: eventTimeSchema('start'),
    end: eventTimeSchema('end'),
    timeZone: timeZoneSchema,
    notes: eventNotesSchema.nullish(),
  },
  { error: 'Send a JSON object with title, start, end and timeZone.' },
);
export type CreateCalendarEventInput = z.infer<typeof createCalendarEventInputSchema>;

export const updateCalendarEventInputSchema = z
  .object(
    {
      title: eventTitleSchema.optional(),
      start: eventTimeSchema('start').optional(),
      end: eventTimeSchema('end').optional(),
      timeZone: timeZoneSchema.optional(),
      notes: eventNotesSchema.nullish(),
    },
    { error: 'Send a JSON object with what changes: title, start, end, timeZone or notes.' },
  )
  .refine((input) => Object.values(input).some((value) => value !== undefined), { message: 'Nothing to change.' });
export type UpdateCalendarEventInput = z.infer<typeof updateCalendarEventInputSchema>;

/** The person's feed: whether one is live, and when it was made and last read; its address is shown only when made. */
export const calendarFeedSchema = z.object({
  isActive: z.boolean(),
  createdAt: z.string().nullable(),
  lastReadAt: z.string().nullable(),
  /** Only in the answer to POST, once. */
  url: z.string().optional(),
});
export type CalendarFeed = z.infer<typeof calendarFeedSchema>;
