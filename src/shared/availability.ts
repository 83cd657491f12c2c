import { z } from 'zod';

/**
 * A notary's availability: live (online or offline, kept alive by
 * a heartbeat) and scheduled (slots of time).
 *
 * Live: `session_id` names the browser that went online, a random id the browser keeps in local
 * storage (so all its tabs share it). Only heartbeats carrying that id keep the notary online; going
 * online from another browser takes over, going offline is honoured from any. A notary is online
 * while the switch is on and the last heartbeat is at most `presenceTimeoutSeconds` old, so one whose
 * browser closes counts as offline within 90 s without anything running.
 *
 * Scheduled: slots are sent as local date-times (`2026-12-01T09:00`, no offset) with the IANA zone
 * they are meant in (`timeZone`, else the zone of the notary's profile), the way the notary reads
 * their calendar, or as ISO instants (`2026-12-01T15:00:00Z`); the server stores instants and the
 * zone (the request's, else the profile's, else UTC), and answers with ISO instants. A local time that does not exist in the zone (the hour
 * skipped when clocks move forward) is refused; one that happens twice means the first.
 */

export const heartbeatIntervalSeconds = 30;
export const presenceTimeoutSeconds = 90;
export const slotLimits = {
  minMinutes: 15,
  maxHours: 12,
  perRequest: 20,
  /** Upcoming slots a notary may hold at once. */
  upcoming: 200,
  /** How far ahead a slot may start. */
  daysAhead: 366,
} as const;

/** The messages the toggle shows when the status fails to load or a change fails. */
export const availabilityMessages = {
  loadFailed: 'Failed to load availability status',
  updateFailed: 'Failed to update availability',
} as const;

const sessionIdMessage = 'The session_id must be 8 to 100 letters, digits, dashes or underscores.';
const sessionIdSchema = (requiredMessage: string) =>
  z
    .string({ error: requiredMessage })
    .min(8, { message: sessionIdMessage })
    .max(100, { message: sessionIdMessage })
    .regex(/^[\w-]+$/, { message: sessionIdMessage });

export const toggleAvailabilityInputSchema = z
  .object(
    {
      is_available: z.boolean({ error: 'Send is_available as true (online) or false (offline).' }),
      session_id: sessionIdSchema('Send the session_id of the browser going online.').optional(),
    },
    { error: 'Send a JSON object with is_available and session_id.' },
  )
  .refine((input) => !input.is_available || input.session_id !== undefined, {
    message: 'Send the session_id of the browser going online.',
    path: ['session_id'],
  });
export type ToggleAvailabilityInput = z.infer<typeof toggleAvailabilityInputSchema>;

export const heartbeatInputSchema = z.object(
  { session_id: sessionIdSchema('Send the session_id of the browser that went online.') },
  { error: 'Send a JSON object with the session_id of the browser that went online.' },
);
export type HeartbeatInput = z.infer<typeof heartbeatInputSchema>;

export const availabilityStatusSchema = z.object({
  /** Online now: switched on, and heard from within the last 90 s. */
  is_available: z.boolean(),
  /** The browser that went online (while online). */
  session_id: z.string().nullable(),
  last_heartbeat_at: z.string().nullable(),
  /** When the notary counts as offline unless a heartbeat comes first (while online). */
  expires_at: z.string().nullable(),
  heartbeat_interval_seconds: z.number(),
  /** Whether going online would be accepted now, and if not, why in a sentence. */
  can_go_online: z.boolean(),
  reason: z.string().nullable(),
  /**
   * Whether the notary agreed to test offers from administrators (notary_presence.accepts_test_offers,
   * decision 051; set with PUT /api/availability/test-offers). Optional: a server that does not send it
   * leaves the dashboard's test-offers switch hidden.
   */
  accepts_test_offers: z.boolean().optional(),
});
export type AvailabilityStatus = z.infer<typeof availabilityStatusSchema>;

/** Whether this runtime knows the IANA zone ("America/Chicago"). */
export function isKnownTimeZone(timeZone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(timeZone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();
function getZoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** The local date-time ("2026-12-01T09:00") an instant shows in a zone. */
export function toLocalDateTime(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    getZoneFormat(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

function offsetMsAt(instantMs: number, timeZone: string): number {
  const wholeSeconds = Math.floor(instantMs / 1000) * 1000;
  const parts = Object.fromEntries(
    getZoneFormat(timeZone)
      .formatToParts(new Date(wholeSeconds))
      .map((part) => [part.type, Number(part.value)]),
  );
  const asUtc = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return asUtc - wholeSeconds;
}

const localDateTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/**
 * The instant a local date-time means in a zone, or null when that time does not exist there (the
 * skipped hour of a spring-forward). A time that happens twice (fall-back) is its first occurrence.
 */
export function toInstant(localDateTime: string, timeZone: string): Date | null {
  const match = localDateTimePattern.exec(localDateTime);
  if (!match) return null;
  const [, year, month, day, hour, minute] = match.map(Number) as [number, number, number, number, number, number];
  const naive = Date.UTC(year, month - 1, day, hour, minute);
  const guess = naive - offsetMsAt(naive, timeZone);
  const instant = naive - offsetMsAt(guess, timeZone);
  return toLocalDateTime(new Date(instant), timeZone) === localDateTime ? new Date(instant) : null;
}

function isCalendarDateTime(value: string): boolean {
  const match = localDateTimePattern.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute] = match.map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60;
}

/** An ISO 8601 instant with its offset: `2026-12-01T15:00:00Z`, `2026-12-01T09:00:00.000-06:00`. */
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

export function isInstant(value: string): boolean {
  return instantPattern.test(value) && isCalendarDateTime(value.slice(0, 16)) && !Number.isNaN(Date.parse(value));
}

const slotTimeMessage = (label: string) =>
  `Send the slot’s ${label} as a local date and time such as 2026-12-01T09:00, or an instant such as 2026-12-01T15:00:00Z.`;
const slotTimeSchema = (label: string) =>
  z
    .string({ error: slotTimeMessage(label) })
    .refine((value) => localDateTimePattern.test(value) || instantPattern.test(value), { message: slotTimeMessage(label), abort: true })
    .refine((value) => (instantPattern.test(value) ? isInstant(value) : isCalendarDateTime(value)), {
      message: `The slot’s ${label} is not a real date and time.`,
    });

export const timeZoneSchema = z
  .string({ error: 'Send the time zone the times are in, such as America/Chicago.' })
  .refine(isKnownTimeZone, { message: 'Send a time zone such as America/Chicago; that one is not known.' });

export const availabilitySlotInputSchema = z.object(
  { start: slotTimeSchema('start'), end: slotTimeSchema('end') },
  { error: 'Each slot needs a start and an end.' },
);
export type AvailabilitySlotInput = z.infer<typeof availabilitySlotInputSchema>;

function formatMinutes(minutes: number): string {
  return minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}

/** The instant a slot's time means: an ISO instant as it says, a local date-time in the zone (null if none or skipped). */
export function toSlotInstant(value: string, timeZone: string | null): Date | null {
  if (instantPattern.test(value)) return isInstant(value) ? new Date(value) : null;
  return timeZone ? toInstant(value, timeZone) : null;
}

export interface SlotProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * What is wrong with a request's slots on their own: a local time the zone skips, an end not after
 * the start, a length out of bounds, two slots overlapping. `timeZone` is the zone local times are
 * read in (the request's, else the notary's profile's); local times without one are left to the
 * caller, which knows whether the profile names a zone.
 */
export function findSlotProblems(slots: AvailabilitySlotInput[], timeZone: string | null): SlotProblem[] {
  const problems: SlotProblem[] = [];
  const ranges: Array<{ index: number; start: number; end: number }> = [];
  slots.forEach((slot, index) => {
    const name = slots.length > 1 ? `Slot ${index + 1}` : 'The slot';
    const isStartLocal = !instantPattern.test(slot.start);
    const isEndLocal = !instantPattern.test(slot.end);
    if ((isStartLocal || isEndLocal) && !timeZone) return;
    const start = toSlotInstant(slot.start, timeZone);
    const end = toSlotInstant(slot.end, timeZone);
    if (!start || !end) {
      const which = !start ? slot.start : slot.end;
      problems.push({
        path: ['slots', index, !start ? 'start' : 'end'],
        message: `${name}: ${which.replace('T', ' ')} does not exist in ${timeZone} (the clocks skip that hour).`,
      });
      return;
    }
    const minutes = (end.getTime() - start.getTime()) / 60_000;
    if (minutes <= 0) {
      problems.push({ path: ['slots', index, 'end'], message: `${name} must end after it starts.` });
      return;
    }
    if (minutes < slotLimits.minMinutes) {
      problems.push({ path: ['slots', index, 'end'], message: `${name} must last at least ${slotLimits.minMinutes} minutes.` });
      return;
    }
    if (minutes > slotLimits.maxHours * 60) {
      problems.push({ path: ['slots', index, 'end'], message: `${name} may last at most ${formatMinutes(slotLimits.maxHours * 60)}.` });
      return;
    }
    const overlapping = ranges.find((other) => other.start < end.getTime() && start.getTime() < other.end);
    if (overlapping) {
      problems.push({ path: ['slots', index], message: `Slots ${overlapping.index + 1} and ${index + 1} overlap.` });
      return;
    }
    ranges.push({ index, start: start.getTime(), end: end.getTime() });
  });
  return problems;
}

/**
 * The rules one request can be checked against on its own; the server adds the past and existing
 * slots. A body of just `{ slots }` is valid: `timeZone` is optional, and without it local times are read in
 * the zone of the notary's profile (the server checks those once it has read the profile).
 */
export const createAvailabilityInputSchema = z
  .object(
    {
      timeZone: timeZoneSchema.optional(),
      slots: z
        .array(availabilitySlotInputSchema, { error: 'Send slots as a list of { start, end }.' })
        .min(1, { message: 'Add at least one slot.' })
        .max(slotLimits.perRequest, { message: `Add at most ${slotLimits.perRequest} slots at a time.` }),
    },
    { error: 'Send a JSON object with slots, and timeZone for local times.' },
  )
  .superRefine((input, context) => {
    // The fields' own checks run first; a zone or time they refused is not looked at again.
    if (input.timeZone !== undefined && !isKnownTimeZone(input.timeZone)) return;
    const isEveryTimeReal = input.slots.every((slot) =>
      [slot.start, slot.end].every((value) => (instantPattern.test(value) ? isInstant(value) : isCalendarDateTime(value))),
    );
    if (!isEveryTimeReal) return;
    for (const problem of findSlotProblems(input.slots, input.timeZone ?? null)) context.addIssue({ code: 'custom', ...problem });
  });
export type CreateAvailabilityInput = z.infer<typeof createAvailabilityInputSchema>;

export const availabilitySlotSchema = z.object({
  id: z.string(),
  notaryId: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  timeZone: z.string(),
  /** The slot's local start and end in its zone, as entered. */
  localStart: z.string(),
  localEnd: z.string(),
  isPast: z.boolean(),
});
export type AvailabilitySlot = z.infer<typeof availabilitySlotSchema>;

/** Upcoming slots first (soonest first), then up to 20 recent past ones (latest first). */
export const availabilitySlotListSchema = z.object({ items: z.array(availabilitySlotSchema) });
export type AvailabilitySlotList = z.infer<typeof availabilitySlotListSchema>;

export const availabilityQuerySchema = z.object({
  notaryId: z.uuid({ message: 'notaryId must be a UUID.' }).optional(),
});

/** PUT /api/availability/test-offers: the notary agrees to test offers from the administrators' loop test page (decision 051). */
export const testOfferConsentInputSchema = z
  .object(
    { accepts: z.boolean({ error: 'Send accepts as true (send me test offers) or false (do not).' }) },
    { error: 'Send a JSON object with accepts: true or false.' },
  )
  .strict();
export type TestOfferConsentInput = z.infer<typeof testOfferConsentInputSchema>;
export const testOfferConsentSchema = z.object({ acceptsTestOffers: z.boolean(), message: z.string() });
