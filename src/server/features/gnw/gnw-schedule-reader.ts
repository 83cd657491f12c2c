import { and, desc, eq, sql } from 'drizzle-orm';
import { activeGnwStatuses, type GnwJob } from '#shared/gnw.ts';
import { notarizationTypeSchema } from '#shared/jobs.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, instantRequests, jobParticipants, jobs, payments, sessionBookings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound, unauthorized } from '#server/lib/errors.ts';
import { formatSessionLabel } from './gnw-booking-mail.ts';
import { findCancelFee } from './gnw-cancel-fee.ts';

/**
 * TEMPORARY (branch g3): the scheduling calls' own reader of a GnwJob, until describeGnwJob
 * (gnw-describe.ts, branch g1) is merged and replaces it. It reads only what is recorded; the
 * estimate (g1's arithmetic) and the live search figures (g1's loop) are left null here.
 */

export type RequestRow = typeof instantRequests.$inferSelect;
export type JobRow = typeof jobs.$inferSelect;

/** The person's own request and its job: 404 for anyone else, never a hint that it exists. */
export async function getOwnRequest(
  ctx: Pick<Ctx, 'db' | 'user'>,
  jobId: string,
  options: { forUpdate?: boolean } = {},
): Promise<{ request: RequestRow; job: JobRow }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const hidden = () => notFound('No Notarize Now request with that job id is yours.');
  const query = ctx.db
    .select({ request: instantRequests, job: jobs })
    .from(instantRequests)
    .innerJoin(jobs, eq(jobs.id, instantRequests.jobId))
    .where(eq(instantRequests.jobId, jobId))
    .limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row || row.request.requestedBy !== user.id) throw hidden();
  return row;
}

function describeNextStep(request: RequestRow, bookingLabel: string | null): string {
  switch (request.status) {
    case 'setup':
      return request.lane === 'scheduled' ? 'Choose a time that suits you from the open times.' : 'Finish setting up your request.';
    case 'searching':
      return 'We are asking notaries one at a time; stay on this page.';
    case 'unmatched':
      return 'No notary was free just now: book a time instead, and your card hold is kept.';
    case 'matched':
      return 'A notary accepted: confirm your identity and join the session.';
    case 'booked':
      return bookingLabel
        ? `Your session is booked for ${bookingLabel}. Come back a few minutes before to confirm your identity and join.`
        : 'Your session is booked. Come back a few minutes before to confirm your identity and join.';
    case 'completed':
      return 'Your documents are notarized: download them from the job page.';
    case 'cancelled':
      return 'This request was cancelled. Start a new one whenever you are ready.';
  }
}

/** The request as the wizard reads it, from the database as it is now. */
export async function readGnwJobForSchedule(db: DbOrTx, jobId: string, now = new Date()): Promise<GnwJob> {
  const [row] = await db
    .select({ request: instantRequests, job: jobs, personEmail: users.email })
    .from(instantRequests)
    .innerJoin(jobs, eq(jobs.id, instantRequests.jobId))
    .innerJoin(users, eq(users.id, instantRequests.requestedBy))
    .where(eq(instantRequests.jobId, jobId))
    .limit(1);
  if (!row) throw notFound('No Notarize Now request with that job id is yours.');
  const { request, job } = row;
  const [signers, [documentCount], [payment], [booking], notary] = await Promise.all([
    db
      .select({ name: jobParticipants.name, email: jobParticipants.email })
      .from(jobParticipants)
      .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.role, 'signer')))
      .orderBy(jobParticipants.position),
    db
      .select({ count: sql<number>`count(*)::int` })
      .from(documents)
      .where(eq(documents.jobId, jobId)),
    db.select().from(payments).where(eq(payments.jobId, jobId)).orderBy(desc(payments.createdAt)).limit(1),
    db
      .select({ booking: sessionBookings, notaryName: users.name })
      .from(sessionBookings)
      .innerJoin(users, eq(users.id, sessionBookings.notaryId))
      .where(and(eq(sessionBookings.jobId, jobId), eq(sessionBookings.status, 'booked')))
      .limit(1),
    job.notaryId ? db.select({ name: users.name }).from(users).where(eq(users.id, job.notaryId)).limit(1) : Promise.resolve([]),
  ]);
  const personEmail = row.personEmail.trim().toLowerCase();
  const label = booking ? formatSessionLabel(booking.booking.startsAt, booking.booking.timeZone) : null;
  const isActive = activeGnwStatuses.includes(request.status);
  const act = notarizationTypeSchema.safeParse(request.act);
  return {
    jobId,
    title: job.title,
    lane: request.lane,
    status: request.status,
    step: request.step,
    act: act.success ? act.data : 'acknowledgment',
    signerState: request.signerState,
    timeZone: request.timeZone,
    signerCount: request.signerCount,
    otherSigners: signers.filter((signer) => signer.email.trim().toLowerCase() !== personEmail).map((signer) => ({ name: signer.name, email: signer.email })),
    witnessesRequested: request.witnessesRequested,
    documentCount: documentCount?.count ?? 0,
    jobStatus: job.status,
    estimate: null,
    payment: payment ? { status: payment.status, amountCents: payment.amountCents, capturedCents: payment.capturedCents } : null,
    search: null,
    notaryName: notary[0] ? toSingleLine(notary[0].name) : null,
    matchedAt: request.matchedAt?.toISOString() ?? null,
    booking: booking
      ? {
          id: booking.booking.id,
          startsAt: booking.booking.startsAt.toISOString(),
          endsAt: booking.booking.endsAt.toISOString(),
          timeZone: booking.booking.timeZone,
          notaryName: toSingleLine(booking.notaryName),
          label: label ?? '',
        }
      : null,
    nextStep: describeNextStep(request, label),
    cancelFeeCents: isActive ? (await findCancelFee(db, { companyId: job.companyId }, booking?.booking ?? null, now)).feeCents : null,
  };
}
