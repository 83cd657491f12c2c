import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { formatCalendarDay, getCalendarDay, isCalendarDay } from '#shared/dates.ts';
import { bookingMinutes, type GnwJob, type GnwSlots, type gnwBookInputSchema, type gnwSlotsInputSchema } from '#shared/gnw.ts';
import { identityPolicies, type IdentityPolicy } from '#shared/identity-policies.ts';
import { instantRequests, jobs, sessionBookings } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { moveJobStatus } from '#server/features/jobs/jobs.service.ts';
import { assertNotaryNotOnJob } from '#server/features/jobs/notary-conflict.ts';
import { assertNotaryCanTakeWork } from '#server/features/notaries/notary-eligibility.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { findLivePayment } from '#server/features/payments/payment-rows.ts';
import { findBookingFacts, formatSessionLabel, queueBookingMail } from './gnw-booking-mail.ts';
import { getOwnRequest } from './gnw-schedule-reader.ts';
import { announceSafely, withdrawOpenOffers } from './gnw-request-close.ts';
import { describeGnwJob } from './gnw-describe.ts';
import { addDays, findOpenPieces, startOfDay, toGnwSlot } from './gnw-slots.ts';

/**
 * The scheduled lane of Notarize Now (decision 051): the open times, booking one (the database
 * decides a race), and leaving the instant search for it with the card hold kept.
 */

type SlotsInput = z.output<typeof gnwSlotsInputSchema>;
type BookInput = z.output<typeof gnwBookInputSchema>;

/**
 * POST /api/gnw/schedule/slots: the open times of [from, from + days) in the person's zone, with
 * notaries whose commission allows the act (the request's; else the one asked about; `policies` is
 * the table of state rows that decides, the platform's own unless a test hands it another).
 */
export async function findGnwSlots(
  ctx: Pick<Ctx, 'db' | 'user'>,
  input: SlotsInput,
  now = new Date(),
  policies: readonly IdentityPolicy[] = identityPolicies,
): Promise<GnwSlots> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const act = input.jobId ? (await getOwnRequest(ctx, input.jobId)).request.act : input.act;
  if (input.from !== undefined && !isCalendarDay(input.from)) throw badRequest(`from must be a date that exists (YYYY-MM-DD): ${input.from} does not.`);
  const firstDay = input.from ?? getCalendarDay(now, input.timeZone);
  const endDay = addDays(firstDay, input.days);
  const pieces = await findOpenPieces(ctx.db, {
    from: startOfDay(firstDay, input.timeZone),
    to: startOfDay(endDay, input.timeZone),
    now,
    requesterId: user.id,
    jobId: input.jobId ?? null,
    act,
    policies,
  });
  const lastDay = formatCalendarDay(addDays(endDay, -1), { locale: 'en-US' });
  const firstShown = formatCalendarDay(firstDay, { locale: 'en-US' });
  const span = input.days === 1 ? `on ${firstShown}` : `from ${firstShown} to ${lastDay}`;
  return {
    timeZone: input.timeZone,
    slots: pieces.map((piece) => toGnwSlot(piece, input.timeZone)),
    message:
      pieces.length === 0
        ? `No notary has a time open ${span}. Try later days.`
        : `${pieces.length === 1 ? 'One time is' : `${pieces.length} times are`} open ${span}, shown in ${input.timeZone} time.`,
  };
}

/** The open times around a refused one, for the answer that refuses it: the same days in the person's zone. */
async function freshSlotsAround(ctx: Ctx, startsAt: Date, timeZone: string, jobId: string, now: Date, policies: readonly IdentityPolicy[]): Promise<GnwSlots> {
  return findGnwSlots(ctx, { jobId, timeZone, from: getCalendarDay(startsAt, timeZone), days: 7 }, now, policies);
}

/** The unique index a database error broke, if any (a unique violation names its index). */
function violatedIndex(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown };
    if (code === '23505') return typeof constraint === 'string' ? constraint : '';
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

const slotTakenMessage = 'That time was just taken by someone else. Choose another from the open times.';

/**
 * POST /api/gnw/schedule/book: the piece booked for the person's job, mailed to both sides with an
 * invitation; only an open time of a notary whose commission allows the request's act.
 */
export async function bookGnwSession(ctx: Ctx, input: BookInput, now = new Date(), policies: readonly IdentityPolicy[] = identityPolicies): Promise<GnwJob> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const { request, job } = await getOwnRequest(ctx, input.jobId);
  assertBookable(request.status);
  const payment = await findLivePayment(ctx.db, input.jobId);
  if (payment?.status !== 'held') {
    throw new AppError(409, 'payment_required', 'Authorise the payment first: the estimate is held on your card before a time is booked.');
  }
  const startsAt = new Date(input.startsAt);
  const endsAt = new Date(startsAt.getTime() + bookingMinutes * 60_000);
  const [piece] = await findOpenPieces(ctx.db, {
    from: startsAt,
    to: new Date(startsAt.getTime() + 1),
    now,
    requesterId: user.id,
    jobId: job.id,
    notaryId: input.notaryId,
    limit: 1,
    act: request.act,
    policies,
  });
  if (!piece || piece.startsAt.getTime() !== startsAt.getTime()) {
    const [taken] = await ctx.db
      .select({ id: sessionBookings.id })
      .from(sessionBookings)
      .where(and(eq(sessionBookings.notaryId, input.notaryId), eq(sessionBookings.startsAt, startsAt), eq(sessionBookings.status, 'booked')))
      .limit(1);
    throw new AppError(409, 'slot_taken', taken ? slotTakenMessage : 'That time is not open with this notary. Choose one from the open times.', {
      slots: await freshSlotsAround(ctx, startsAt, input.timeZone, job.id, now, policies),
    });
  }
  const label = formatSessionLabel(startsAt, input.timeZone);
  let notaryIds: string[];
  try {
    notaryIds = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const locked = await getOwnRequest(txCtx, input.jobId, { forUpdate: true });
      assertBookable(locked.request.status);
      const notary = await assertNotaryCanTakeWork(tx, input.notaryId, now);
      await assertNotaryNotOnJob(tx, job.id, notary.id);
      const [booking] = await tx
        .insert(sessionBookings)
        .values({
          jobId: job.id,
          notaryId: notary.id,
          slotId: piece.slotId,
          startsAt,
          endsAt,
          timeZone: input.timeZone,
          createdBy: user.id,
        })
        .returning();
      if (!booking) throw new Error('the booking insert returned no row');
      await tx
        .update(jobs)
        .set({ notaryId: notary.id, scheduledAt: startsAt, version: locked.job.version + 1, updatedAt: now })
        .where(eq(jobs.id, job.id));
      // The job follows its state machine (jobs.service): a draft is made ready, then scheduled.
      let access = await getJobAccess(txCtx, job.id, { forUpdate: true });
      if (access.job.status === 'draft') {
        await moveJobStatus(txCtx, access, 'ready', 'Booked through Notarize Now.');
        access = await getJobAccess(txCtx, job.id, { forUpdate: true });
      }
      await moveJobStatus(txCtx, access, 'scheduled', `Booked through Notarize Now for ${label}.`);
      await tx
        .update(instantRequests)
        .set({ lane: 'scheduled', status: 'booked', step: 'session', updatedAt: now })
        .where(eq(instantRequests.id, locked.request.id));
      const offeredTo = await withdrawOpenOffers(tx, locked.request.id, now);
      await appendAuditEvent(txCtx, {
        jobId: job.id,
        action: 'booking.booked',
        data: {
          bookingId: booking.id,
          notaryId: notary.id,
          notaryName: notary.name,
          startsAt: startsAt.toISOString(),
          timeZone: input.timeZone,
          label,
          offersWithdrawn: offeredTo.length,
        },
      });
      const facts = await findBookingFacts(tx, booking.id);
      if (facts) await queueBookingMail(txCtx, facts, now);
      return [notary.id, ...offeredTo];
    });
  } catch (error) {
    const index = violatedIndex(error);
    if (index === 'session_bookings_notary_time_idx' || index === '') {
      throw new AppError(409, 'slot_taken', slotTakenMessage, { slots: await freshSlotsAround(ctx, startsAt, input.timeZone, job.id, now, policies) });
    }
    if (index === 'session_bookings_job_idx') throw conflict('This request already has a booked time; cancel it first to choose another.');
    throw error;
  }
  // The notary's tabs (and any notary whose offer was taken back) fetch their work again.
  await announceSafely(ctx, notaryIds);
  await publishJobChange(ctx, job.id, { type: 'job.changed' });
  return describeGnwJob(ctx, job.id);
}

function assertBookable(status: string): void {
  if (status === 'setup' || status === 'unmatched') return;
  const reasons: Record<string, string> = {
    searching: 'A notary is being looked for right now. Switch to a scheduled time first, then book.',
    matched: 'A notary already accepted your request; there is no time to book.',
    booked: 'This request already has a booked time; cancel it first to choose another.',
    completed: 'This request is completed; there is nothing to book.',
    cancelled: 'This request was cancelled. Start a new one to book a time.',
  };
  throw conflict(reasons[status] ?? 'This request cannot be booked now.');
}

/** POST /api/gnw/switch-to-scheduled: from the instant search (running or run out) to booking a time; the card hold stays. */
export async function switchGnwToScheduled(ctx: Ctx, jobId: string, now = new Date()): Promise<GnwJob> {
  await getOwnRequest(ctx, jobId);
  const offeredTo = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { request } = await getOwnRequest(txCtx, jobId, { forUpdate: true });
    if (request.status !== 'searching' && request.status !== 'unmatched') {
      const reasons: Record<string, string> = {
        setup:
          request.lane === 'scheduled'
            ? 'This request is already set to book a time.'
            : 'The search for a notary has not started; choose a time instead in the wizard.',
        matched: 'A notary already accepted your request; there is no need to book a time.',
        booked: 'This request already has a booked time.',
        completed: 'This request is completed.',
        cancelled: 'This request was cancelled.',
      };
      throw conflict(reasons[request.status] ?? 'This request cannot switch to a scheduled time now.');
    }
    await tx.update(instantRequests).set({ lane: 'scheduled', status: 'setup', step: 'notary', updatedAt: now }).where(eq(instantRequests.id, request.id));
    const withdrawn = await withdrawOpenOffers(tx, request.id, now);
    await appendAuditEvent(txCtx, { jobId, action: 'gnw.switched', data: { from: request.status, offersWithdrawn: withdrawn.length } });
    return withdrawn;
  });
  await announceSafely(ctx, offeredTo);
  return describeGnwJob(ctx, jobId);
}
