import { and, count, desc, eq, gt, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { NextAction } from '#shared/auth.ts';
import { activeGnwStatuses, type GnwBooking, type GnwJob, type GnwStatus, type GnwStep } from '#shared/gnw.ts';
import type { NotarizationType } from '#shared/jobs.ts';
import { hasElevatedRole, type RoleBearer } from '#shared/roles.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, instantOffers, instantRequests, jobs, notaryProfiles, sessionBookings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound, unauthorized } from '#server/lib/errors.ts';
import { findOnlineNotaryIds } from '#server/features/availability/availability.service.ts';
import { findParticipants } from '#server/features/jobs/participants.service.ts';
import { getJobPayment } from '#server/features/payments/payments.service.ts';
import { defaultRows, noShowPriceKey } from '#server/features/pricing/pricing.service.ts';
import { findActBlocker } from './gnw-act-rules.ts';
import { estimateGnwRequest } from './gnw-estimate.ts';

/**
 * The person's instant job as the wizard reads it (GnwJob, decision 051), and the lookups of a
 * person's request every Notarize Now call starts from. Only the person who asked reads or changes
 * their request: to anyone else it does not exist (404).
 */

export type GnwRequestRow = typeof instantRequests.$inferSelect;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A search without its end recorded ends this long after it started (GNW_SEARCH_SECONDS' default). */
const defaultSearchSeconds = 300;
/** How many recent matches the typical wait is the median of, and how few are too few to say. */
const typicalWaitSample = 50;
const typicalWaitMinimum = 3;
/** A cancel this close to a booked time (or after it) costs the no-show price. */
export const lateCancelMs = 15 * 60_000;

export const gnwRequestNotFound = () => notFound('No Notarize Now request of yours has that job id.');

/** The person's active request (setup, searching, unmatched, matched or booked), if any: at most one. */
export async function findActiveGnwRequest(db: DbOrTx, userId: string): Promise<GnwRequestRow | null> {
  const [row] = await db
    .select()
    .from(instantRequests)
    .where(and(eq(instantRequests.requestedBy, userId), inArray(instantRequests.status, [...activeGnwStatuses])))
    .limit(1);
  return row ?? null;
}

/**
 * The login answer's nextAction: a person without an elevated role whose active
 * request is still in setup goes back to it; anyone else gets none.
 */
export async function findGnwNextAction(db: DbOrTx, user: RoleBearer & { id: string }): Promise<NextAction | null> {
  if (hasElevatedRole(user)) return null;
  const request = await findActiveGnwRequest(db, user.id);
  if (request?.status !== 'setup') return null;
  return { nextAction: 'gnw-setup', jobId: request.jobId, pendingSetup: null, startWith: null, route: null };
}

/** The signed-in person's own request of this job, locked for update when asked; 404 for anyone else's or none. */
export async function getOwnGnwRequest(ctx: Pick<Ctx, 'db' | 'user'>, jobId: string, options: { forUpdate?: boolean } = {}): Promise<GnwRequestRow> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!uuidPattern.test(jobId)) throw gnwRequestNotFound();
  const query = ctx.db
    .select()
    .from(instantRequests)
    .where(and(eq(instantRequests.jobId, jobId), eq(instantRequests.requestedBy, user.id)))
    .limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw gnwRequestNotFound();
  return row;
}

const bookingLabelFormats = new Map<string, Intl.DateTimeFormat>();

/** "Tuesday, December 1, 9:30 AM CST": a booked time as the person reads it, in their zone (UTC for a zone the runtime does not know). */
export function formatBookingLabel(startsAt: Date, timeZone: string): string {
  let format = bookingLabelFormats.get(timeZone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = { weekday: 'long', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };
    try {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone });
    } catch {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    }
    bookingLabelFormats.set(timeZone, format);
  }
  return format
    .format(startsAt)
    .replace(/[\u00a0\u202f]/g, ' ')
    .replace(' at ', ', ');
}

/** The median seconds from the start of a search to a notary's acceptance over the latest matches; null with too few to say. */
async function findTypicalWaitSeconds(db: DbOrTx): Promise<number | null> {
  const rows = await db
    .select({ seconds: sql<number>`extract(epoch from (${instantRequests.matchedAt} - ${instantRequests.searchStartedAt}))::float8` })
    .from(instantRequests)
    .where(and(isNotNull(instantRequests.matchedAt), isNotNull(instantRequests.searchStartedAt)))
    .orderBy(desc(instantRequests.matchedAt))
    .limit(typicalWaitSample);
  const waits = rows.map((row) => Math.max(Number(row.seconds), 0)).sort((a, b) => a - b);
  if (waits.length < typicalWaitMinimum) return null;
  const middle = Math.floor(waits.length / 2);
  const median = waits.length % 2 === 1 ? (waits[middle] ?? 0) : ((waits[middle - 1] ?? 0) + (waits[middle] ?? 0)) / 2;
  return Math.round(median);
}

async function describeSearch(ctx: Ctx, request: GnwRequestRow, now: Date): Promise<GnwJob['search']> {
  const startedAt = request.searchStartedAt;
  if (!startedAt || !['searching', 'unmatched', 'matched'].includes(request.status)) return null;
  const endsAt = request.searchEndsAt ?? new Date(startedAt.getTime() + defaultSearchSeconds * 1000);
  const [ahead] = await ctx.db
    .select({ requests: count() })
    .from(instantRequests)
    .where(and(eq(instantRequests.status, 'searching'), lt(instantRequests.searchStartedAt, startedAt)));
  const [offers] = await ctx.db
    .select({ made: count() })
    .from(instantOffers)
    .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.kind, 'notary'), eq(instantOffers.isTest, false)));
  const [ringing] = await ctx.db
    .select({ open: count() })
    .from(instantOffers)
    .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.status, 'open'), gt(instantOffers.expiresAt, now)));
  // Online notaries may take work already (approved, active, commission in force); the person is never
  // their own notary; and only those whose commission allows the act are counted (gnw-act-rules.ts).
  const onlineIds = (await findOnlineNotaryIds(ctx, undefined, now)).filter((notaryId) => notaryId !== request.requestedBy);
  const online =
    onlineIds.length === 0
      ? []
      : (
          await ctx.db
            .select({ id: notaryProfiles.userId, commissionState: notaryProfiles.commissionState })
            .from(notaryProfiles)
            .where(inArray(notaryProfiles.userId, onlineIds))
        ).filter((notary) => !findActBlocker(notary.commissionState, request.act));
  return {
    startedAt: startedAt.toISOString(),
    endsAt: endsAt.toISOString(),
    place: (ahead?.requests ?? 0) + 1,
    notariesOnline: online.length,
    offersMade: offers?.made ?? 0,
    typicalWaitSeconds: await findTypicalWaitSeconds(ctx.db),
    ringing: request.status === 'searching' && (ringing?.open ?? 0) > 0,
  };
}

async function findLiveBooking(db: DbOrTx, jobId: string, timeZone: string): Promise<GnwBooking | null> {
  const [row] = await db
    .select({ booking: sessionBookings, notaryName: users.name })
    .from(sessionBookings)
    .innerJoin(users, eq(users.id, sessionBookings.notaryId))
    .where(and(eq(sessionBookings.jobId, jobId), eq(sessionBookings.status, 'booked')))
    .limit(1);
  if (!row) return null;
  // The zone the person reads their request in now; the booking keeps the one it was made in for its invitations.
  const zone = timeZone || row.booking.timeZone;
  return {
    id: row.booking.id,
    startsAt: row.booking.startsAt.toISOString(),
    endsAt: row.booking.endsAt.toISOString(),
    timeZone: zone,
    notaryName: toSingleLine(row.notaryName),
    label: formatBookingLabel(row.booking.startsAt, zone),
  };
}

/** The no-show price of the default list (an instant job has no company), or 0 when none is set. */
export async function findNoShowPriceCents(db: DbOrTx): Promise<number> {
  return (await defaultRows(db)).find((price) => price.key === noShowPriceKey)?.amountCents ?? 0;
}

/**
 * What cancelling would cost now: null when the request can no longer be cancelled (finished, or
 * its session under way), the no-show price when a booked time is within 15 minutes or past, else 0.
 */
async function findCancelFeeCents(db: DbOrTx, request: GnwRequestRow, jobStatus: string, booking: GnwBooking | null, now: Date): Promise<number | null> {
  if (request.status === 'completed' || request.status === 'cancelled') return null;
  if (jobStatus === 'in_session' || jobStatus === 'completed' || jobStatus === 'cancelled') return null;
  if (request.status === 'booked' && booking && new Date(booking.startsAt).getTime() - now.getTime() <= lateCancelMs) return findNoShowPriceCents(db);
  return 0;
}

const setupSentences: Record<GnwStep, string> = {
  documents: 'Upload the document you need notarized.',
  needs: 'Tell us what you need: the kind of notarization, who signs, whether you need witnesses, and the state you are in.',
  payment: 'Authorise the estimate on your card. Nothing is taken until your notarization is complete.',
  notary: 'Authorise the estimate on your card. Nothing is taken until your notarization is complete.',
  session: 'Authorise the estimate on your card. Nothing is taken until your notarization is complete.',
  done: 'Authorise the estimate on your card. Nothing is taken until your notarization is complete.',
};

/** What the person should do next, as a sentence, for each status and step. */
function describeNextStep(facts: {
  status: GnwStatus;
  step: GnwStep;
  lane: GnwRequestRow['lane'];
  jobStatus: string;
  isPaymentHeld: boolean;
  isFinalized: boolean;
  notaryName: string | null;
  booking: GnwBooking | null;
}): string {
  const notary = facts.notaryName ? toSingleLine(facts.notaryName) : 'Your notary';
  if (facts.status === 'cancelled') return 'This request was cancelled. Start a new one whenever you are ready.';
  if (facts.status === 'completed' || facts.jobStatus === 'completed') {
    return facts.isFinalized
      ? 'Your notarization is complete. Download your notarized documents below.'
      : 'Your documents are notarized. Finish to see what you were charged and download them.';
  }
  if (facts.jobStatus === 'in_session') return `Your session with ${notary} is under way.`;
  switch (facts.status) {
    case 'setup':
      if (facts.step === 'documents' || facts.step === 'needs' || !facts.isPaymentHeld) return setupSentences[facts.step];
      return facts.lane === 'scheduled'
        ? 'Your card is authorised. Choose a time for your session.'
        : 'Your card is authorised. Start looking for a notary who is online now.';
    case 'searching':
      return 'We are offering your job to notaries who are online, one at a time. Keep this page open; it updates by itself.';
    case 'unmatched':
      return 'No notary accepted in time. Choose a time for your session instead; the amount held on your card stays held.';
    case 'matched':
      return `${notary} accepted your job. Confirm your identity, then join the session.`;
    case 'booked':
      return facts.booking
        ? `Your session with ${facts.booking.notaryName} is booked for ${facts.booking.label}. We will email you a reminder 24 hours and 15 minutes before.`
        : 'Your session is booked. We will email you a reminder 24 hours and 15 minutes before.';
  }
}

/**
 * GET /api/gnw/jobs/{jobId}, and the answer of every Notarize Now call about one job: the signed-in
 * person's own request only (404 to anyone else), with its estimate, payment, search, notary,
 * booking, next step and what cancelling would cost.
 */
export async function describeGnwJob(ctx: Ctx, jobId: string): Promise<GnwJob> {
  return describeGnwRequest(ctx, await getOwnGnwRequest(ctx, jobId));
}

/** The GnwJob of a request already read (and checked to be the caller's). */
export async function describeGnwRequest(ctx: Ctx, request: GnwRequestRow, now = new Date()): Promise<GnwJob> {
  const [job] = await ctx.db.select({ title: jobs.title, status: jobs.status, notaryId: jobs.notaryId }).from(jobs).where(eq(jobs.id, request.jobId));
  if (!job) throw gnwRequestNotFound();
  const participants = await findParticipants(ctx.db, request.jobId);
  const signers = participants.filter((participant) => participant.role === 'signer');
  const [signing] = await ctx.db
    .select({ documents: count() })
    .from(documents)
    .where(and(eq(documents.jobId, request.jobId), eq(documents.tag, 'signing')));
  const notaryId = job.notaryId ?? request.matchedNotaryId;
  const [notary] = notaryId ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, notaryId)) : [];
  const { current, attempts } = await getJobPayment(ctx, request.jobId);
  const payment = current ?? attempts[0] ?? null;
  const booking = await findLiveBooking(ctx.db, request.jobId, request.timeZone);
  const notaryName = notary ? toSingleLine(notary.name) : null;
  return {
    jobId: request.jobId,
    title: job.title,
    lane: request.lane,
    status: request.status,
    step: request.step,
    act: request.act as NotarizationType,
    signerState: request.signerState,
    timeZone: request.timeZone,
    signerCount: signers.length,
    otherSigners: signers.filter((signer) => signer.userId !== request.requestedBy).map((signer) => ({ name: signer.name, email: signer.email })),
    witnessesRequested: request.witnessesRequested,
    documentCount: signing?.documents ?? 0,
    jobStatus: job.status,
    estimate: await estimateGnwRequest(ctx.db, request),
    payment: payment ? { status: payment.status, amountCents: payment.amountCents, capturedCents: payment.capturedCents } : null,
    search: await describeSearch(ctx, request, now),
    notaryName,
    matchedAt: request.matchedAt?.toISOString() ?? null,
    booking,
    nextStep: describeNextStep({
      status: request.status,
      step: request.step,
      lane: request.lane,
      jobStatus: job.status,
      isPaymentHeld: current?.status === 'held',
      isFinalized: request.finalizedAt !== null,
      notaryName,
      booking,
    }),
    cancelFeeCents: await findCancelFeeCents(ctx.db, request, job.status, booking, now),
  };
}
