import { and, asc, eq, gt, lt, notInArray, or, sql } from 'drizzle-orm';
import { toLocalDateTime } from '#shared/availability.ts';
import {
  eventInstants,
  type Calendar,
  type CalendarEvent,
  type CalendarItem,
  type CalendarQuery,
  type CreateCalendarEventInput,
  type UpdateCalendarEventInput,
} from '#shared/calendar.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { availabilitySlots, calendarEvents, jobAccess, jobs, notaryProfiles, sessionBookings } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { badRequest, notFound, unauthorized } from '#server/lib/errors.ts';

type EventRow = typeof calendarEvents.$inferSelect;

const eventNotFound = () => notFound('That event was not found in your calendar.');

function signedInUserId(ctx: Ctx): string {
  if (!ctx.user) throw unauthorized();
  return ctx.user.id;
}

export function toCalendarEvent(row: EventRow): CalendarEvent {
  return {
    id: row.id,
    title: row.title,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    timeZone: row.timeZone,
    notes: row.notes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The zone a person's calendar is shown in when they name none: a notary's profile zone, else UTC. */
async function defaultZoneOf(db: DbOrTx, userId: string): Promise<string> {
  const [profile] = await db.select({ timeZone: notaryProfiles.timeZone }).from(notaryProfiles).where(eq(notaryProfiles.userId, userId)).limit(1);
  return profile?.timeZone ?? 'UTC';
}

/** Every part of a person's calendar that overlaps [from, to), oldest first; the feed and the page read the same. */
export async function findCalendarParts(db: DbOrTx, userId: string, from: Date, to: Date) {
  // Sessions: scheduled jobs the person may open (job_access is every job they see), out of draft and
  // not cancelled (the ones whose time was announced, decision 052), with the booked end when a
  // booking records one.
  const sessions = await db
    .select({
      jobId: jobs.id,
      title: jobs.title,
      status: jobs.status,
      scheduledAt: jobs.scheduledAt,
      bookingId: sessionBookings.id,
      bookedEnd: sessionBookings.endsAt,
      bookedZone: sessionBookings.timeZone,
      sequence: sessionBookings.sequence,
      updatedAt: jobs.updatedAt,
    })
    .from(jobAccess)
    .innerJoin(jobs, eq(jobs.id, jobAccess.jobId))
    .leftJoin(sessionBookings, and(eq(sessionBookings.jobId, jobs.id), eq(sessionBookings.status, 'booked')))
    .where(
      and(
        eq(jobAccess.userId, userId),
        notInArray(jobs.status, ['draft', 'cancelled']),
        sql`${jobs.scheduledAt} is not null`,
        lt(jobs.scheduledAt, to),
        or(gt(sql`coalesce(${sessionBookings.endsAt}, ${jobs.scheduledAt})`, from), eq(jobs.scheduledAt, from)),
      ),
    )
    .orderBy(asc(jobs.scheduledAt));
  const slots = await db
    .select()
    .from(availabilitySlots)
    .where(and(eq(availabilitySlots.notaryId, userId), lt(availabilitySlots.startsAt, to), gt(availabilitySlots.endsAt, from)))
    .orderBy(asc(availabilitySlots.startsAt));
  const events = await db
    .select()
    .from(calendarEvents)
    .where(and(eq(calendarEvents.userId, userId), lt(calendarEvents.startsAt, to), gt(calendarEvents.endsAt, from)))
    .orderBy(asc(calendarEvents.startsAt));
  return { sessions, slots, events };
}

export type CalendarParts = Awaited<ReturnType<typeof findCalendarParts>>;

/** GET /api/calendar: the merged calendar of the signed-in person, in the zone they ask for. */
export async function getCalendar(ctx: Ctx, query: CalendarQuery): Promise<Calendar> {
  const userId = signedInUserId(ctx);
  const timeZone = query.timeZone ?? (await defaultZoneOf(ctx.db, userId));
  const from = new Date(query.from);
  const to = new Date(query.to);
  const parts = await findCalendarParts(ctx.db, userId, from, to);
  const local = (date: Date | null) => (date ? toLocalDateTime(date, timeZone) : null);
  const items: CalendarItem[] = [
    ...parts.sessions.map((session) => {
      const startsAt = session.scheduledAt as Date;
      return {
        id: `session-${session.jobId}`,
        kind: 'session' as const,
        title: session.title,
        startsAt: startsAt.toISOString(),
        endsAt: session.bookedEnd?.toISOString() ?? null,
        localStart: toLocalDateTime(startsAt, timeZone),
        localEnd: local(session.bookedEnd),
        timeZone: session.bookedZone,
        link: `/jobs/detail?jobId=${session.jobId}`,
        notes: null,
      };
    }),
    ...parts.slots.map((slot) => ({
      id: `availability-${slot.id}`,
      kind: 'availability' as const,
      title: 'Available for notarizations',
      startsAt: slot.startsAt.toISOString(),
      endsAt: slot.endsAt.toISOString(),
      localStart: toLocalDateTime(slot.startsAt, timeZone),
      localEnd: toLocalDateTime(slot.endsAt, timeZone),
      timeZone: slot.timeZone,
      link: '/dashboard?tab=availability',
      notes: null,
    })),
    ...parts.events.map((event) => ({
      id: event.id,
      kind: 'event' as const,
      title: event.title,
      startsAt: event.startsAt.toISOString(),
      endsAt: event.endsAt.toISOString(),
      localStart: toLocalDateTime(event.startsAt, timeZone),
      localEnd: toLocalDateTime(event.endsAt, timeZone),
      timeZone: event.timeZone,
      link: null,
      notes: event.notes,
    })),
  ].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt) || a.id.localeCompare(b.id));
  return { timeZone, from: from.toISOString(), to: to.toISOString(), items };
}

/** GET /api/google/events: the person's own events, soonest first; with from/to only those overlapping. */
export async function listEvents(ctx: Ctx, range: { from?: string; to?: string }): Promise<CalendarEvent[]> {
  const userId = signedInUserId(ctx);
  const conditions = [eq(calendarEvents.userId, userId)];
  if (range.to) conditions.push(lt(calendarEvents.startsAt, new Date(range.to)));
  if (range.from) conditions.push(gt(calendarEvents.endsAt, new Date(range.from)));
  const rows = await ctx.db
    .select()
    .from(calendarEvents)
    .where(and(...conditions))
    .orderBy(asc(calendarEvents.startsAt))
    .limit(500);
  return rows.map(toCalendarEvent);
}

function instantsOrRefuse(start: string, end: string, timeZone: string) {
  const result = eventInstants(start, end, timeZone);
  if ('problem' in result) throw badRequest(result.problem, { field: result.path });
  return result;
}

export async function createEvent(ctx: Ctx, input: CreateCalendarEventInput): Promise<CalendarEvent> {
  const userId = signedInUserId(ctx);
  const { startsAt, endsAt } = instantsOrRefuse(input.start, input.end, input.timeZone);
  const [row] = await ctx.db
    .insert(calendarEvents)
    .values({ userId, title: input.title, startsAt, endsAt, timeZone: input.timeZone, notes: input.notes ? input.notes : null })
    .returning();
  if (!row) throw new Error('calendar event insert returned no row');
  return toCalendarEvent(row);
}

/** Only the owner's own event: anyone else's id is "not found", whoever asks. */
async function ownEventForUpdate(db: DbOrTx, userId: string, eventId: string): Promise<EventRow> {
  const [row] = await db
    .select()
    .from(calendarEvents)
    .where(and(eq(calendarEvents.id, eventId), eq(calendarEvents.userId, userId)))
    .for('update')
    .limit(1);
  if (!row) throw eventNotFound();
  return row;
}

export async function updateEvent(ctx: Ctx, eventId: string, input: UpdateCalendarEventInput): Promise<CalendarEvent> {
  const userId = signedInUserId(ctx);
  return ctx.db.transaction(async (tx) => {
    const row = await ownEventForUpdate(tx, userId, eventId);
    const timeZone = input.timeZone ?? row.timeZone;
    // A time left out keeps its instant; one sent is read in the (new or kept) zone.
    const start = input.start ?? row.startsAt.toISOString();
    const end = input.end ?? row.endsAt.toISOString();
    const { startsAt, endsAt } = instantsOrRefuse(start, end, timeZone);
    const [updated] = await tx
      .update(calendarEvents)
      .set({
        title: input.title ?? row.title,
        startsAt,
        endsAt,
        timeZone,
        notes: input.notes === undefined ? row.notes : input.notes ? input.notes : null,
        sequence: row.sequence + 1,
        updatedAt: new Date(),
      })
      .where(eq(calendarEvents.id, row.id))
      .returning();
    if (!updated) throw eventNotFound();
    return toCalendarEvent(updated);
  });
}

export async function deleteEvent(ctx: Ctx, eventId: string): Promise<void> {
  const userId = signedInUserId(ctx);
  const deleted = await ctx.db
    .delete(calendarEvents)
    .where(and(eq(calendarEvents.id, eventId), eq(calendarEvents.userId, userId)))
    .returning({ id: calendarEvents.id });
  if (deleted.length === 0) throw eventNotFound();
}
