import { and, asc, count, desc, eq, gt, lte, sql } from 'drizzle-orm';
import {
  findSlotProblems,
  isKnownTimeZone,
  isInstant,
  slotLimits,
  toLocalDateTime,
  toSlotInstant,
  type AvailabilitySlot,
  type CreateAvailabilityInput,
} from '#shared/availability.ts';
import { getUserRoles } from '#shared/roles.ts';
import { availabilitySlots, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '#server/lib/errors.ts';

/**
 * Scheduled availability: slots of time a notary says they can take notarizations. Input
 * is local date-times in a named zone or the profile's, or ISO instants (src/shared/availability.ts);
 * rows hold instants and the zone.
 */

type SlotRow = typeof availabilitySlots.$inferSelect;
const pastShown = 20;

function toSlot(row: SlotRow, now: Date): AvailabilitySlot {
  return {
    id: row.id,
    notaryId: row.notaryId,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    timeZone: row.timeZone,
    localStart: toLocalDateTime(row.startsAt, row.timeZone),
    localEnd: toLocalDateTime(row.endsAt, row.timeZone),
    isPast: row.endsAt <= now,
  };
}

function describeRange(start: Date, end: Date, timeZone: string): string {
  const from = toLocalDateTime(start, timeZone).replace('T', ' ');
  const to = toLocalDateTime(end, timeZone);
  const sameDay = from.slice(0, 10) === to.slice(0, 10);
  return `${from}–${sameDay ? to.slice(11) : to.replace('T', ' ')} (${timeZone})`;
}

function requireUser(ctx: Ctx) {
  if (!ctx.user) throw new Error('availability slots need a signed-in caller');
  return ctx.user;
}

/**
 * Whose slots a caller reads: a notary their own; an administrator any notary's (`notaryId`). A
 * notary naming someone else is refused; an id that is not a notary's is 404.
 */
async function resolveReadableNotary(ctx: Ctx, notaryId: string | undefined): Promise<string> {
  const user = requireUser(ctx);
  const roles = getUserRoles(user);
  const isAdmin = roles.includes('admin');
  if (!notaryId || notaryId === user.id) {
    if (roles.includes('notary')) return user.id;
    throw badRequest('Name the notary whose availability you want to see with ?notaryId=.');
  }
  if (!isAdmin) throw forbidden('You can see only your own availability.');
  const [row] = await ctx.db.select({ roles: users.roles }).from(users).where(eq(users.id, notaryId));
  if (!row || !row.roles.includes('notary')) throw notFound('No notary with that id.');
  return notaryId;
}

/** GET /api/availability: upcoming slots (soonest first), then the latest past ones. */
export async function findAvailabilitySlots(ctx: Ctx, query: { notaryId?: string | undefined }): Promise<AvailabilitySlot[]> {
  const notaryId = await resolveReadableNotary(ctx, query.notaryId);
  const now = new Date();
  const upcoming = await ctx.db
    .select()
    .from(availabilitySlots)
    .where(and(eq(availabilitySlots.notaryId, notaryId), gt(availabilitySlots.endsAt, now)))
    .orderBy(asc(availabilitySlots.startsAt));
  const past = await ctx.db
    .select()
    .from(availabilitySlots)
    .where(and(eq(availabilitySlots.notaryId, notaryId), lte(availabilitySlots.endsAt, now)))
    .orderBy(desc(availabilitySlots.startsAt))
    .limit(pastShown);
  return [...upcoming, ...past].map((row) => toSlot(row, now));
}

/**
 * POST /api/availability: adds the notary's slots, all or none. The request's own rules (order, length,
 * overlap among themselves, real local times) are in the shared schema; here: none in the past or
 * more than a year ahead, none overlapping a slot already held, and not more upcoming slots than the limit.
 */
export async function createAvailabilitySlots(ctx: Ctx, input: CreateAvailabilityInput): Promise<AvailabilitySlot[]> {
  const notaryId = requireUser(ctx).id;
  const timeZone = input.timeZone ?? (await findProfileTimeZone(ctx, notaryId));
  const hasLocalTimes = input.slots.some((slot) => !isInstant(slot.start) || !isInstant(slot.end));
  if (hasLocalTimes && !timeZone) {
    throw new AppError(
      400,
      'validation_failed',
      'Local times need a time zone: send timeZone (such as America/Chicago), set your time zone in your profile, or send instants such as 2026-12-01T15:00:00Z.',
    );
  }
  // Without a zone in the request, the shared schema could not check local times: it is done here.
  const [problem] = input.timeZone ? [] : findSlotProblems(input.slots, timeZone);
  if (problem) throw new AppError(400, 'validation_failed', problem.message, { path: problem.path });
  const shownIn = timeZone ?? 'UTC';
  const now = new Date();
  const latestStart = new Date(now.getTime() + slotLimits.daysAhead * 24 * 3600 * 1000);
  const ranges = input.slots.map((slot, index) => {
    const startsAt = toSlotInstant(slot.start, timeZone);
    const endsAt = toSlotInstant(slot.end, timeZone);
    // The checks above already refused times that do not exist in the zone.
    if (!startsAt || !endsAt) throw badRequest('A slot’s time does not exist in that time zone.');
    const name = input.slots.length > 1 ? `Slot ${index + 1}` : 'The slot';
    if (startsAt < now) throw badRequest(`${name} starts in the past (${describeRange(startsAt, endsAt, shownIn)}); choose a time from now on.`);
    if (startsAt > latestStart) throw badRequest(`${name} starts more than ${slotLimits.daysAhead} days from now; add slots up to a year ahead.`);
    return { name, startsAt, endsAt };
  });
  return ctx.db.transaction(async (tx) => {
    // One writer per notary at a time, so two requests cannot both pass the overlap check.
    await tx.execute(sql`select id from ${users} where ${users.id} = ${notaryId} for update`);
    const held = await tx
      .select()
      .from(availabilitySlots)
      .where(and(eq(availabilitySlots.notaryId, notaryId), gt(availabilitySlots.endsAt, now)))
      .orderBy(asc(availabilitySlots.startsAt));
    for (const range of ranges) {
      const clash = held.find((row) => row.startsAt < range.endsAt && range.startsAt < row.endsAt);
      if (clash) {
        throw conflict(`${range.name} overlaps your slot ${describeRange(clash.startsAt, clash.endsAt, clash.timeZone)}.`, {
          code: 'slot_overlap',
          slotId: clash.id,
        });
      }
    }
    const [{ upcoming } = { upcoming: 0 }] = await tx
      .select({ upcoming: count() })
      .from(availabilitySlots)
      .where(and(eq(availabilitySlots.notaryId, notaryId), gt(availabilitySlots.endsAt, now)));
    if (upcoming + ranges.length > slotLimits.upcoming) {
      throw new AppError(
        409,
        'too_many_slots',
        `You may hold at most ${slotLimits.upcoming} upcoming slots; you have ${upcoming}. Remove some before adding more.`,
      );
    }
    const rows = await tx
      .insert(availabilitySlots)
      .values(ranges.map((range) => ({ notaryId, startsAt: range.startsAt, endsAt: range.endsAt, timeZone: shownIn })))
      .returning();
    return rows.sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime()).map((row) => toSlot(row, now));
  });
}

/** The zone the notary's profile names, if it names a known one. */
async function findProfileTimeZone(ctx: Ctx, notaryId: string): Promise<string | null> {
  const [row] = await ctx.db.select({ timeZone: notaryProfiles.timeZone }).from(notaryProfiles).where(eq(notaryProfiles.userId, notaryId)).limit(1);
  return row?.timeZone && isKnownTimeZone(row.timeZone) ? row.timeZone : null;
}

/** DELETE /api/availability/{id}: the notary's own slot; anyone else's is not found. */
export async function deleteAvailabilitySlot(ctx: Ctx, slotId: string): Promise<void> {
  const notaryId = requireUser(ctx).id;
  const deleted = await ctx.db
    .delete(availabilitySlots)
    .where(and(eq(availabilitySlots.id, slotId), eq(availabilitySlots.notaryId, notaryId)))
    .returning({ id: availabilitySlots.id });
  if (deleted.length === 0) throw notFound('No availability slot of yours with that id.');
}
