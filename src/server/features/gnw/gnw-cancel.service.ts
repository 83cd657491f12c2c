import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { activeGnwStatuses, type GnwJob, type gnwCancelInputSchema } from '#shared/gnw.ts';
import { formatCents } from '#shared/pricing.ts';
import { sessionBookings } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, unauthorized } from '#server/lib/errors.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { moveJobStatus } from '#server/features/jobs/jobs.service.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { releasePaymentOfCancelledJob } from '#server/features/payments/payment-settlement.ts';
import { recordNoShowCharge } from '#server/features/pricing/job-charges.service.ts';
import { formatSessionLabel } from './gnw-booking-mail.ts';
import { findCancelFee } from './gnw-cancel-fee.ts';
import { announceSafely, closeRequestOfCancelledJob } from './gnw-request-close.ts';
import { getOwnRequest } from './gnw-schedule-reader.ts';
import { describeGnwJob } from './gnw-describe.ts';

/**
 * POST /api/gnw/cancel (decision 051): the person cancels their own request. Only the person who
 * made it may: the card held is theirs, and so is the choice to pay a late fee; a notary who cannot
 * come is not the one to cancel the person's job (the job's state machine lets only its owners
 * cancel before a session, jobs.ts). Offers still ringing are taken back, a live booking is cancelled
 * (both sides get the calendar's CANCEL), the job is cancelled through the jobs service, and after
 * commit the hold is released, or, for a late cancel, the no-show fee captured from it.
 */
export async function cancelGnwJob(ctx: Ctx, input: z.output<typeof gnwCancelInputSchema>, now = new Date()): Promise<GnwJob> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const jobId = input.jobId;
  await getOwnRequest(ctx, jobId);
  const { feeCents, offeredTo } = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { request, job } = await getOwnRequest(txCtx, jobId, { forUpdate: true });
    if (!activeGnwStatuses.includes(request.status)) {
      throw conflict(request.status === 'cancelled' ? 'This request is cancelled already.' : 'This request is completed; it can no longer be cancelled.');
    }
    if (job.status === 'in_session') throw conflict('Your session has started: the notary ends it, or cancels it from the session.');
    if (job.status === 'completed' || job.status === 'cancelled') throw conflict(`This job is ${job.status} already.`);
    const [booking] = await tx
      .select()
      .from(sessionBookings)
      .where(and(eq(sessionBookings.jobId, jobId), eq(sessionBookings.status, 'booked')))
      .for('update');
    const fee = await findCancelFee(tx, job, booking ?? null, now);
    if (fee.feeCents > 0 && input.acceptFee !== true) {
      const amount = formatCents(fee.feeCents);
      const when = booking ? formatSessionLabel(booking.startsAt, booking.timeZone) : 'your booked time';
      throw new AppError(
        409,
        'no_show_fee_applies',
        `Cancelling now costs ${amount}, the no-show fee: your session (${when}) ${booking && booking.startsAt <= now ? 'has started' : 'starts in less than 15 minutes'}. To cancel and pay it, confirm the fee.`,
        { feeCents: fee.feeCents },
      );
    }
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    await moveJobStatus(txCtx, access, 'cancelled', fee.feeCents > 0 ? 'Cancelled by the person late: the no-show fee applies.' : 'Cancelled by the person.');
    // A late cancel is charged as a no-show (decision 049's path): the charge is taken from the hold after commit.
    const charged = fee.feeCents > 0 ? await recordNoShowCharge(txCtx, { id: jobId, companyId: job.companyId }) : null;
    const feeCents = charged?.amountCents ?? 0;
    const closed = await closeRequestOfCancelledJob(txCtx, jobId, { cancelledBy: user.name, feeCents, isLate: fee.isLate }, now);
    return { feeCents, offeredTo: closed.told };
  });
  await publishJobChange(ctx, jobId, { type: 'job.changed' });
  await announceSafely(ctx, offeredTo);
  // The cancellation committed: the hold is let go, or the no-show fee captured from it (never fails the cancel).
  await releasePaymentOfCancelledJob(ctx, jobId);
  ctx.log.info({ event: 'gnw.cancelled', jobId, feeCents }, 'Notarize Now request cancelled');
  return describeGnwJob(ctx, jobId);
}
