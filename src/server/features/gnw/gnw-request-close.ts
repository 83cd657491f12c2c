import { and, eq, inArray } from 'drizzle-orm';
import { activeGnwStatuses } from '#shared/gnw.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { instantOffers, instantRequests, sessionBookings } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { findBookingFacts, formatSessionLabel, queueBookingCancelMail } from './gnw-booking-mail.ts';

/** Takes back every offer of a request still ringing; the people they rang at. */
export async function withdrawOpenOffers(db: DbOrTx, requestId: string, now: Date): Promise<string[]> {
  const withdrawn = await db
    .update(instantOffers)
    .set({ status: 'withdrawn', answeredAt: now })
    .where(and(eq(instantOffers.requestId, requestId), eq(instantOffers.status, 'open')))
    .returning({ userId: instantOffers.userId });
  return withdrawn.map((offer) => offer.userId);
}

/** Tells these people's open tabs to fetch again, after commit; a realtime failure is logged, never the call's. */
export async function announceSafely(ctx: Pick<Ctx, 'realtime' | 'log'>, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  try {
    await announceToUsers(ctx, userIds, { type: 'access-changed' });
  } catch (error) {
    ctx.log.warn({ err: error }, 'the people concerned could not be told to fetch again');
  }
}

/**
 * Locks the Notarize Now request of a job, if it has one, before anything locks the job: the order
 * accept, book and /api/gnw/cancel take (request, then job), so a change through the job's own
 * routes racing one of them waits instead of deadlocking on PostgreSQL.
 */
export async function lockRequestOfJob(db: DbOrTx, jobId: string): Promise<void> {
  await db.select({ id: instantRequests.id }).from(instantRequests).where(eq(instantRequests.jobId, jobId)).for('update');
}

export interface ClosedRequest {
  /** Whoever must be told after commit: the people offers rang at, and the booked notary. */
  told: string[];
}

/**
 * A job that is cancelled ends its Notarize Now request with it, whichever way it was cancelled
 * (POST /api/gnw/cancel, or PATCH /api/jobs/{id} by its owner or an administrator): offers still
 * ringing are taken back, a live booking is cancelled (trail, and the calendar's CANCEL mailed to both
 * sides) and the request is cancelled, in the caller's transaction, after the job's own move. A job
 * with no active request is left as it is. The caller releases the hold after commit.
 */
export async function closeRequestOfCancelledJob(
  txCtx: Ctx & { db: DbOrTx },
  jobId: string,
  cancel: { cancelledBy: string; feeCents: number; isLate: boolean },
  now: Date,
): Promise<ClosedRequest> {
  const tx = txCtx.db;
  const [request] = await tx
    .select()
    .from(instantRequests)
    .where(and(eq(instantRequests.jobId, jobId), inArray(instantRequests.status, [...activeGnwStatuses])))
    .for('update');
  if (!request) return { told: [] };
  const withdrawn = await withdrawOpenOffers(tx, request.id, now);
  const [booking] = await tx
    .select()
    .from(sessionBookings)
    .where(and(eq(sessionBookings.jobId, jobId), eq(sessionBookings.status, 'booked')))
    .for('update');
  let facts = null;
  if (booking) {
    const [cancelled] = await tx
      .update(sessionBookings)
      .set({ status: 'cancelled', sequence: booking.sequence + 1, updatedAt: now })
      .where(eq(sessionBookings.id, booking.id))
      .returning();
    facts = cancelled ? await findBookingFacts(tx, cancelled.id) : null;
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'booking.cancelled',
      data: {
        bookingId: booking.id,
        notaryId: booking.notaryId,
        notaryName: facts?.notary.name ?? null,
        startsAt: booking.startsAt.toISOString(),
        label: formatSessionLabel(booking.startsAt, booking.timeZone),
        feeCents: cancel.feeCents,
      },
    });
  }
  await tx.update(instantRequests).set({ status: 'cancelled', updatedAt: now }).where(eq(instantRequests.id, request.id));
  await appendAuditEvent(txCtx, {
    jobId,
    action: 'gnw.cancelled',
    data: { from: request.status, feeCents: cancel.feeCents, isLate: cancel.isLate, offersWithdrawn: withdrawn.length },
  });
  if (facts) await queueBookingCancelMail(txCtx, facts, { cancelledBy: cancel.cancelledBy, feeCents: cancel.feeCents }, now);
  return { told: [...withdrawn, ...(booking ? [booking.notaryId] : [])] };
}
