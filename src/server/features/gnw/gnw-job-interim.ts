import { and, count, desc, eq, inArray, isNotNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { GnwJob } from '#shared/gnw.ts';
import { formatDateTime } from '#shared/dates.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, instantOffers, instantRequests, jobParticipants, jobs, payments, sessionBookings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { findOnlineNotaryIds } from '#server/features/availability/availability.service.ts';
import { hasOpenOffer } from './gnw-matching.ts';

/**
 * INTERIM (branch g2): the person's instant job as GnwJob, for the answer of POST /api/gnw/instant
 * until `describeGnwJob` of gnw-describe.ts (branch g1) is merged; at the merge this file goes and
 * the route calls describeGnwJob. Everything here is read from the rows; what it cannot read
 * honestly it leaves empty: `estimate` is null (the estimate is computed by g1's pricing code), and
 * `cancelFeeCents` is 0 only for an active request with no booking (cancelling one costs nothing;
 * the no-show rule of a booking is g1's), null otherwise.
 */

/** How many recent matches the typical wait is the median of, and how few are too few to say. */
const typicalWaitSample = 20;
const typicalWaitMinimum = 5;

/** The median wait, in seconds, from search to acceptance over the latest matches; null with too few. */
export async function findTypicalWaitSeconds(db: DbOrTx): Promise<number | null> {
  const rows = await db
    .select({ waited: sql<number>`extract(epoch from (${instantRequests.matchedAt} - ${instantRequests.searchStartedAt}))::float8` })
    .from(instantRequests)
    .where(and(isNotNull(instantRequests.matchedAt), isNotNull(instantRequests.searchStartedAt)))
    .orderBy(desc(instantRequests.matchedAt))
    .limit(typicalWaitSample);
  if (rows.length < typicalWaitMinimum) return null;
  const sorted = rows.map((row) => Number(row.waited)).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(median);
}

function describeNextStep(status: GnwJob['status']): string {
  switch (status) {
    case 'setup':
      return 'Finish your documents, needs and payment, then ask for a notary now or book a time.';
    case 'searching':
      return 'We are offering your job to online notaries one at a time; keep this page open.';
    case 'unmatched':
      return 'No notary accepted in time. Book a time with a notary instead; your card hold is kept.';
    case 'matched':
      return 'A notary accepted your job. Join the session when you are ready.';
    case 'booked':
      return 'Your session is booked. Join it at the booked time.';
    case 'completed':
      return 'Your documents are notarized. Download them from the job page.';
    case 'cancelled':
      return 'This request was cancelled.';
  }
}

/** INTERIM until describeGnwJob (g1) is merged: the request of `jobId` as the wizard reads it. */
export async function readGnwJobUntilDescribeMerges(ctx: Pick<Ctx, 'db'>, jobId: string, now: Date = new Date()): Promise<GnwJob> {
  const [row] = await ctx.db
    .select({ request: instantRequests, job: jobs, requester: { email: users.email } })
    .from(instantRequests)
    .innerJoin(jobs, eq(jobs.id, instantRequests.jobId))
    .innerJoin(users, eq(users.id, instantRequests.requestedBy))
    .where(eq(instantRequests.jobId, jobId))
    .limit(1);
  if (!row) throw new Error(`no instant request for job ${jobId}`);
  const { request, job } = row;
  const requesterEmail = row.requester.email.toLowerCase();
  const others = await ctx.db
    .select({ name: jobParticipants.name, email: jobParticipants.email, userId: jobParticipants.userId })
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.role, 'signer')))
    .orderBy(jobParticipants.position);
  const [documentRow] = await ctx.db
    .select({ total: count() })
    .from(documents)
    .where(and(eq(documents.jobId, jobId), eq(documents.tag, 'signing')));
  const [payment] = await ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.jobId, jobId), inArray(payments.status, ['held', 'captured', 'invoiced'])))
    .limit(1);
  const notaryId = request.matchedNotaryId ?? job.notaryId;
  const [notary] = notaryId ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, notaryId)).limit(1) : [];
  const [booking] = await ctx.db
    .select({ booking: sessionBookings, notaryName: users.name })
    .from(sessionBookings)
    .innerJoin(users, eq(users.id, sessionBookings.notaryId))
    .where(and(eq(sessionBookings.jobId, jobId), eq(sessionBookings.status, 'booked')))
    .limit(1);

  let search: GnwJob['search'] = null;
  if (request.searchStartedAt && request.searchEndsAt) {
    const isSearching = request.status === 'searching';
    const [ahead] = isSearching
      ? await ctx.db
          .select({ total: count() })
          .from(instantRequests)
          .where(
            and(
              eq(instantRequests.status, 'searching'),
              ne(instantRequests.id, request.id),
              or(
                lt(instantRequests.searchStartedAt, request.searchStartedAt),
                and(eq(instantRequests.searchStartedAt, request.searchStartedAt), lte(instantRequests.createdAt, request.createdAt)),
              ),
            ),
          )
      : [];
    const [offers] = await ctx.db
      .select({ total: count() })
      .from(instantOffers)
      .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.kind, 'notary')));
    search = {
      startedAt: request.searchStartedAt.toISOString(),
      endsAt: request.searchEndsAt.toISOString(),
      // 0 once the request no longer waits in line (matched, unmatched, cancelled).
      place: isSearching ? (ahead?.total ?? 0) + 1 : 0,
      notariesOnline: (await findOnlineNotaryIds(ctx, undefined, now)).length,
      offersMade: offers?.total ?? 0,
      typicalWaitSeconds: await findTypicalWaitSeconds(ctx.db),
      ringing: isSearching && (await hasOpenOffer(ctx.db, request.id, 'notary')),
    };
  }

  const isActive = ['setup', 'searching', 'unmatched', 'matched'].includes(request.status);
  return {
    jobId,
    title: job.title,
    lane: request.lane,
    status: request.status,
    step: request.step,
    act: request.act as GnwJob['act'],
    signerState: request.signerState,
    timeZone: request.timeZone,
    signerCount: request.signerCount,
    otherSigners: others
      .filter((person) => person.userId !== request.requestedBy && person.email.toLowerCase() !== requesterEmail)
      .map((person) => ({ name: person.name, email: person.email })),
    witnessesRequested: request.witnessesRequested,
    documentCount: documentRow?.total ?? 0,
    jobStatus: job.status,
    estimate: null,
    payment: payment ? { status: payment.status, amountCents: payment.amountCents, capturedCents: payment.capturedCents } : null,
    search,
    notaryName: notary?.name ?? null,
    matchedAt: request.matchedAt?.toISOString() ?? null,
    booking: booking
      ? {
          id: booking.booking.id,
          startsAt: booking.booking.startsAt.toISOString(),
          endsAt: booking.booking.endsAt.toISOString(),
          timeZone: booking.booking.timeZone,
          notaryName: booking.notaryName,
          label: formatDateTime(booking.booking.startsAt, { locale: 'en-US', timeZone: booking.booking.timeZone }),
        }
      : null,
    nextStep: describeNextStep(request.status),
    cancelFeeCents: isActive && !booking ? 0 : null,
  };
}
