import { and, asc, eq, gt, gte, inArray, lt, ne, notInArray, sql } from 'drizzle-orm';
import { toInstant } from '#shared/availability.ts';
import { getCalendarDay } from '#shared/dates.ts';
import { bookingMinutes, type GnwSlot } from '#shared/gnw.ts';
import { identityPolicies, type IdentityPolicy } from '#shared/identity-policies.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { availabilitySlots, jobParticipants, jobs, notaryProfiles, sessionBookings, users } from '#server/db/schema/index.ts';
import { findActBlocker } from './gnw-act-rules.ts';
import { formatSessionLabel } from './gnw-booking-mail.ts';

/**
 * Bookable times (decision 051): the availability slots of notaries who may take work now, cut into
 * 30-minute pieces from each slot's start, less what is taken (a live booking, a job already set for
 * that time) and what starts too soon (within 15 minutes, or past).
 */

/** A piece starting sooner than this is not offered, nor booked: nobody could be ready in time. */
export const bookingLeadMinutes = 15;
/** At most this many times in one answer. */
export const maxSlotsShown = 200;

const minuteMs = 60_000;
const pieceMs = bookingMinutes * minuteMs;

export interface SlotPiece {
  notaryId: string;
  notaryName: string;
  commissionState: string;
  slotId: string;
  startsAt: Date;
  endsAt: Date;
}

/** The instant a calendar day (YYYY-MM-DD) begins in a zone; 01:00 where midnight does not exist (a spring-forward at midnight). */
export function startOfDay(day: string, timeZone: string): Date {
  return toInstant(`${day}T00:00`, timeZone) ?? toInstant(`${day}T01:00`, timeZone) ?? new Date(`${day}T00:00:00Z`);
}

/** The calendar day `days` after another. */
export function addDays(day: string, days: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date + days)).toISOString().slice(0, 10);
}

/**
 * Pieces starting in [from, to), at least 15 minutes from now, of notaries eligible now, less taken
 * ones; never a notary who is the requester or one of the job's people, nor (given the act) one whose
 * commissioning state's row keeps the act off online notarization (gnw-act-rules.ts, read from
 * `policies`). Sorted by time, then notary name; at most `limit`.
 */
export async function findOpenPieces(
  db: DbOrTx,
  window: {
    from: Date;
    to: Date;
    now: Date;
    requesterId: string;
    jobId: string | null;
    notaryId?: string;
    limit?: number;
    /** The act to be performed; without one (times browsed before an act is chosen) every act's notaries show. */
    act?: string;
    policies?: readonly IdentityPolicy[];
  },
): Promise<SlotPiece[]> {
  const earliest = new Date(Math.max(window.from.getTime(), window.now.getTime() + bookingLeadMinutes * minuteMs));
  if (earliest >= window.to) return [];
  const excluded = [window.requesterId];
  if (window.jobId) {
    const people = await db
      .select({ userId: jobParticipants.userId, email: jobParticipants.email })
      .from(jobParticipants)
      .where(eq(jobParticipants.jobId, window.jobId));
    for (const person of people) if (person.userId) excluded.push(person.userId);
    const emails = people.map((person) => person.email.trim().toLowerCase());
    if (emails.length > 0) {
      const sameEmail = await db
        .select({ id: users.id })
        .from(users)
        .where(inArray(sql`lower(${users.email})`, emails));
      for (const user of sameEmail) excluded.push(user.id);
    }
  }
  // The notary's eligibility now (notary-eligibility.ts findWorkBlocker): approved, active account and
  // profile, commission not expired; and still holding the notary role.
  const allSlotRows = await db
    .select({
      slotId: availabilitySlots.id,
      notaryId: availabilitySlots.notaryId,
      startsAt: availabilitySlots.startsAt,
      endsAt: availabilitySlots.endsAt,
      notaryName: users.name,
      commissionState: notaryProfiles.commissionState,
    })
    .from(availabilitySlots)
    .innerJoin(users, eq(users.id, availabilitySlots.notaryId))
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, availabilitySlots.notaryId))
    .where(
      and(
        window.notaryId ? eq(availabilitySlots.notaryId, window.notaryId) : undefined,
        notInArray(availabilitySlots.notaryId, excluded),
        lt(availabilitySlots.startsAt, window.to),
        gte(availabilitySlots.endsAt, new Date(earliest.getTime() + pieceMs)),
        eq(users.status, 'active'),
        sql`'notary' = any(${users.roles})`,
        eq(notaryProfiles.approvalStatus, 'approved'),
        eq(notaryProfiles.isActive, true),
        gte(notaryProfiles.commissionExpiresOn, getCalendarDay(window.now)),
      ),
    )
    .orderBy(asc(availabilitySlots.startsAt));
  const act = window.act;
  const slotRows = act ? allSlotRows.filter((row) => !findActBlocker(row.commissionState, act, window.policies ?? identityPolicies)) : allSlotRows;
  if (slotRows.length === 0) return [];

  const notaryIds = [...new Set(slotRows.map((row) => row.notaryId))];
  const taken = new Map<string, Array<{ from: number; to: number }>>();
  const take = (notaryId: string, from: Date, to: Date) => {
    const list = taken.get(notaryId) ?? [];
    list.push({ from: from.getTime(), to: to.getTime() });
    taken.set(notaryId, list);
  };
  const bookings = await db
    .select({ notaryId: sessionBookings.notaryId, startsAt: sessionBookings.startsAt, endsAt: sessionBookings.endsAt })
    .from(sessionBookings)
    .where(
      and(
        inArray(sessionBookings.notaryId, notaryIds),
        eq(sessionBookings.status, 'booked'),
        lt(sessionBookings.startsAt, window.to),
        gt(sessionBookings.endsAt, earliest),
      ),
    );
  for (const booking of bookings) take(booking.notaryId, booking.startsAt, booking.endsAt);
  // A job already set for a time with that notary (booked here or by a title company) holds a piece's length from it.
  const scheduled = await db
    .select({ notaryId: jobs.notaryId, scheduledAt: jobs.scheduledAt })
    .from(jobs)
    .where(
      and(
        inArray(jobs.notaryId, notaryIds),
        ne(jobs.status, 'cancelled'),
        ne(jobs.status, 'completed'),
        lt(jobs.scheduledAt, window.to),
        gt(jobs.scheduledAt, new Date(earliest.getTime() - pieceMs)),
      ),
    );
  for (const job of scheduled) {
    if (job.notaryId && job.scheduledAt) take(job.notaryId, job.scheduledAt, new Date(job.scheduledAt.getTime() + pieceMs));
  }

  const pieces: SlotPiece[] = [];
  const seen = new Set<string>();
  for (const slot of slotRows) {
    for (let start = slot.startsAt.getTime(); start + pieceMs <= slot.endsAt.getTime(); start += pieceMs) {
      if (start < earliest.getTime() || start >= window.to.getTime()) continue;
      const end = start + pieceMs;
      if ((taken.get(slot.notaryId) ?? []).some((busy) => busy.from < end && busy.to > start)) continue;
      // Two slots of one notary never overlap (availability refuses it); a piece is still listed once.
      const key = `${slot.notaryId}|${start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pieces.push({
        notaryId: slot.notaryId,
        notaryName: toSingleLine(slot.notaryName),
        commissionState: slot.commissionState,
        slotId: slot.slotId,
        startsAt: new Date(start),
        endsAt: new Date(end),
      });
    }
  }
  pieces.sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime() || a.notaryName.localeCompare(b.notaryName) || a.notaryId.localeCompare(b.notaryId));
  return pieces.slice(0, window.limit ?? maxSlotsShown);
}

export function toGnwSlot(piece: SlotPiece, timeZone: string): GnwSlot {
  return {
    notaryId: piece.notaryId,
    notaryName: piece.notaryName,
    commissionState: piece.commissionState,
    startsAt: piece.startsAt.toISOString(),
    endsAt: piece.endsAt.toISOString(),
    label: formatSessionLabel(piece.startsAt, timeZone),
  };
}
