import { and, asc, count, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import { notarizationTypes } from '#shared/jobs.ts';
import type { GnwJob, GnwOffer } from '#shared/gnw.ts';
import { findUsState } from '#shared/us-states.ts';
import { documents, instantOffers, instantRequests, jobParticipants, jobs, payments, users } from '#server/db/schema/index.ts';
import type { Tx } from '#server/db/client.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, unauthorized } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { announceAccessChange, announceToUsers } from '#server/features/jobs/access-change.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { jobPageLink, queueNotaryAssignedMail } from '#server/features/jobs/job-mail.ts';
import { moveJobStatus } from '#server/features/jobs/jobs.service.ts';
import { assertNotaryNotAmong, assertNotaryNotOnJob } from '#server/features/jobs/notary-conflict.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { kickMatcher, requestMatchingPass } from './gnw-matching.ts';
import { describeGnwJob } from './gnw-describe.ts';

/**
 * Notarize Now's instant lane (decision 051): the person starts the search, the offers ring at
 * notaries (and platform witnesses) one at a time, and they accept or decline. Matching itself is
 * gnw-matching.ts; the administrators' loop page is gnw-loop.service.ts.
 */

function requireUserId(ctx: Ctx): string {
  if (!ctx.user) throw unauthorized();
  return ctx.user.id;
}

const requestNotFound = () => new AppError(404, 'not_found', 'No Notarize Now request for that job, or it is not yours.');

/**
 * POST /api/gnw/instant: the requester asks for a notary now. Needs the card hold (409
 * payment_required), and a request still being set up or unmatched; then it searches for
 * GNW_SEARCH_SECONDS and the matcher makes its first offer before the answer.
 */
export async function startInstantSearch(ctx: Ctx, jobId: string, now: Date = new Date()): Promise<GnwJob> {
  const userId = requireUserId(ctx);
  const searchSeconds = ctx.config.gnw.searchSeconds;
  await ctx.db.transaction(async (tx) => {
    const [request] = await tx.select().from(instantRequests).where(eq(instantRequests.jobId, jobId)).for('update');
    if (!request || request.requestedBy !== userId) throw requestNotFound();
    const [held] = await tx
      .select({ id: payments.id })
      .from(payments)
      .where(and(eq(payments.jobId, jobId), eq(payments.status, 'held')))
      .limit(1);
    if (!held) {
      throw new AppError(409, 'payment_required', 'Authorise the payment first: the estimated amount is held on your card before a notary is asked.');
    }
    if (request.status === 'searching') throw conflict('We are already looking for a notary for this job.');
    if (request.status !== 'setup' && request.status !== 'unmatched') {
      throw conflict(
        request.status === 'matched'
          ? 'A notary already accepted this job.'
          : request.status === 'booked'
            ? 'This job is booked for a time; cancel the booking before asking for a notary now.'
            : `This request is ${request.status} and can no longer look for a notary.`,
      );
    }
    await tx
      .update(instantRequests)
      .set({
        status: 'searching',
        lane: 'instant',
        step: 'notary',
        searchStartedAt: now,
        searchEndsAt: new Date(now.getTime() + searchSeconds * 1000),
        updatedAt: now,
      })
      .where(eq(instantRequests.id, request.id));
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'gnw.search_started', data: { searchSeconds, from: request.status } });
  });
  await kickMatcher(ctx);
  return describeGnwJob(ctx, jobId);
}

type OfferRow = typeof instantOffers.$inferSelect;
type RequestRow = typeof instantRequests.$inferSelect;

const actLabels: Record<string, string> = Object.fromEntries(notarizationTypes.map((type) => [type.key, type.label]));

/** GET /api/gnw/offers: the offers ringing at the caller now, with what the job is and nothing of who asked. */
export async function findOwnOffers(ctx: Ctx, now: Date = new Date()): Promise<GnwOffer[]> {
  const userId = requireUserId(ctx);
  const rows = await ctx.db
    .select({ offer: instantOffers, request: instantRequests })
    .from(instantOffers)
    .leftJoin(instantRequests, eq(instantRequests.id, instantOffers.requestId))
    .where(and(eq(instantOffers.userId, userId), eq(instantOffers.status, 'open'), gt(instantOffers.expiresAt, now)))
    .orderBy(asc(instantOffers.offeredAt));
  const jobIds = rows.flatMap((row) => (row.request ? [row.request.jobId] : []));
  const documentCounts =
    jobIds.length === 0
      ? []
      : await ctx.db
          .select({ jobId: documents.jobId, total: count() })
          .from(documents)
          .where(and(inArray(documents.jobId, jobIds), eq(documents.tag, 'signing')))
          .groupBy(documents.jobId);
  const documentsOf = new Map(documentCounts.map((row) => [row.jobId, row.total]));
  return rows.map(({ offer, request }) => toOffer(offer, request, request ? (documentsOf.get(request.jobId) ?? 0) : 0));
}

function toOffer(offer: OfferRow, request: RequestRow | null, documentCount: number): GnwOffer {
  const state = request?.signerState ? findUsState(request.signerState) : null;
  return {
    id: offer.id,
    kind: offer.kind,
    isTest: offer.isTest,
    jobId: request?.jobId ?? null,
    // A test offer holds no job: it says so instead of naming an act.
    act: request?.act ?? 'test',
    actLabel: request ? (actLabels[request.act] ?? request.act) : 'Test offer (no job)',
    signerState: request?.signerState ?? null,
    stateName: state?.name ?? null,
    documentCount,
    signerCount: request?.signerCount ?? 0,
    witnessesRequested: request?.witnessesRequested ?? 0,
    offeredAt: offer.offeredAt.toISOString(),
    expiresAt: offer.expiresAt.toISOString(),
  };
}

const offerGone = (message: string) => new AppError(409, 'offer_gone', message);

/** Why an offer the caller may not answer is gone, in words (the same for another person's offer: nothing about it is told). */
function describeGoneOffer(offer: OfferRow | undefined, userId: string, now: Date): string {
  if (!offer || offer.userId !== userId) return 'This offer is not open to you. Offers you can answer are on your dashboard.';
  if (offer.status === 'accepted') return 'You already accepted this offer.';
  if (offer.status === 'declined') return 'You already declined this offer.';
  if (offer.status === 'withdrawn') return 'This offer was withdrawn: the job no longer needs you.';
  if (offer.status === 'expired' || offer.expiresAt <= now) return 'This offer expired after 30 seconds and went to someone else.';
  return 'This offer is no longer open.';
}

/** The caller's open offer, locked after its request (requests before offers, as the matcher takes them); 409 offer_gone otherwise. */
async function lockOwnOpenOffer(tx: Tx, offerId: string, userId: string, now: Date): Promise<{ offer: OfferRow; request: RequestRow | null }> {
  const [seen] = await tx.select().from(instantOffers).where(eq(instantOffers.id, offerId)).limit(1);
  if (!seen || seen.userId !== userId) throw offerGone(describeGoneOffer(seen, userId, now));
  const [request] = seen.requestId ? await tx.select().from(instantRequests).where(eq(instantRequests.id, seen.requestId)).for('update') : [];
  const [offer] = await tx.select().from(instantOffers).where(eq(instantOffers.id, offerId)).for('update');
  if (!offer || offer.status !== 'open' || offer.expiresAt <= now) throw offerGone(describeGoneOffer(offer, userId, now));
  return { offer, request: request ?? null };
}

export interface OfferAnswer {
  message: string;
  jobId: string | null;
  sessionPath: string | null;
}

interface AnswerOutcome extends OfferAnswer {
  /** People whose ringing offers changed, told after the commit. */
  told: string[];
  /** Whether who may see the job changed (a notary or witness joined it). */
  joinedJob: boolean;
}

/** The matched notary takes the job: its notary, ready for its session, the other offers withdrawn. */
async function acceptAsNotary(txCtx: Ctx & { db: Tx }, offer: OfferRow, request: RequestRow, now: Date): Promise<AnswerOutcome> {
  const tx = txCtx.db;
  const notaryId = offer.userId;
  if (request.status !== 'searching') {
    throw offerGone(request.status === 'matched' ? 'Another notary accepted this job first.' : 'The person stopped looking for a notary for this job.');
  }
  const [job] = await tx.select().from(jobs).where(eq(jobs.id, request.jobId)).for('update');
  if (!job || (job.notaryId && job.notaryId !== notaryId) || (job.status !== 'draft' && job.status !== 'ready')) {
    throw offerGone('This job can no longer take a notary from an offer.');
  }
  await assertNotaryNotOnJob(tx, job.id, notaryId);
  await tx.update(instantOffers).set({ status: 'accepted', answeredAt: now }).where(eq(instantOffers.id, offer.id));
  const withdrawn = await tx
    .update(instantOffers)
    .set({ status: 'withdrawn', answeredAt: now })
    .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.status, 'open'), ne(instantOffers.id, offer.id)))
    .returning({ userId: instantOffers.userId });
  await tx
    .update(instantRequests)
    .set({ status: 'matched', matchedNotaryId: notaryId, matchedAt: now, updatedAt: now })
    .where(eq(instantRequests.id, request.id));
  await tx
    .update(jobs)
    .set({ notaryId, version: job.version + 1, updatedAt: now })
    .where(eq(jobs.id, job.id));
  const [notary] = await tx.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, notaryId)).limit(1);
  const waitedSeconds = request.searchStartedAt ? Math.max(0, Math.round((now.getTime() - request.searchStartedAt.getTime()) / 1000)) : null;
  await appendAuditEvent(txCtx, { jobId: job.id, action: 'gnw.notary_matched', data: { notaryId, notaryName: notary?.name ?? null, waitedSeconds } });
  // The notary is now the job's: its status moves by the jobs service's rules, with their audit.
  const access = await getJobAccess(txCtx, job.id, { forUpdate: true });
  if (access.job.status === 'draft') await moveJobStatus(txCtx, access, 'ready', 'A notary accepted the Notarize Now request.');
  if (notary) await queueNotaryAssignedMail(txCtx, job, notary);
  return {
    message: `You are the notary for “${job.title}”. Open the session to meet the signer.`,
    jobId: job.id,
    sessionPath: `/session/${job.id}`,
    told: [notaryId, ...withdrawn.map((row) => row.userId)],
    joinedJob: true,
  };
}

/** A platform witness takes a place on the matched job: a witness participant of it, told by mail. */
async function acceptAsWitness(txCtx: Ctx & { db: Tx }, offer: OfferRow, request: RequestRow, now: Date): Promise<AnswerOutcome> {
  const tx = txCtx.db;
  if (request.status !== 'matched') throw offerGone('This job no longer needs a witness.');
  const [accepted] = await tx
    .select({ total: count() })
    .from(instantOffers)
    .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.kind, 'witness'), eq(instantOffers.status, 'accepted')));
  if ((accepted?.total ?? 0) >= request.witnessesRequested) throw offerGone('This job has all the witnesses it asked for.');
  const [job] = await tx.select().from(jobs).where(eq(jobs.id, request.jobId)).for('update');
  if (!job || (job.status !== 'draft' && job.status !== 'ready' && job.status !== 'scheduled')) throw offerGone('This job can no longer take a witness.');
  const [witness] = await tx.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, offer.userId)).limit(1);
  if (!witness) throw offerGone('This offer is not open to you.');
  await assertNotaryNotAmong(tx, job.notaryId, [{ userId: offer.userId, email: witness.email }]);
  const [{ people = 0, next = 0 } = {}] = await tx
    .select({ people: sql<number>`count(*)::int`, next: sql<number>`coalesce(max(${jobParticipants.position}) + 1, 0)::int` })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, job.id));
  if (people >= 10) throw offerGone('This job has as many people as it can take.');
  const [participant] = await tx
    .insert(jobParticipants)
    .values({ jobId: job.id, userId: offer.userId, name: witness.name, email: witness.email, role: 'witness', position: next, invitedAt: now })
    .onConflictDoNothing()
    .returning({ id: jobParticipants.id });
  if (!participant) throw offerGone('You are already one of the people of this job.');
  await tx.update(instantOffers).set({ status: 'accepted', answeredAt: now }).where(eq(instantOffers.id, offer.id));
  await appendAuditEvent(txCtx, { jobId: job.id, action: 'gnw.witness_matched', data: { participantId: participant.id, name: witness.name } });
  await queueEmail(tx, {
    to: witness.email,
    kind: 'gnw_witness_assigned',
    ...mailTemplates.witnessAssigned.render({ name: witness.name, title: job.title, link: jobPageLink(txCtx, job.id) }),
  });
  return {
    message: `You are a witness for “${job.title}”. Open the session when the notary starts it.`,
    jobId: job.id,
    sessionPath: `/session/${job.id}`,
    told: [offer.userId],
    joinedJob: true,
  };
}

/**
 * After an answer commits: the people told, the job's channels checked again, a matcher pass asked
 * for. An accept does not wait for that pass (the notary's way into the lobby does not queue behind
 * other people's offers); a decline does, so the next person rings before the answer returns.
 */
async function afterAnswer(ctx: Ctx, outcome: AnswerOutcome, waitsForPass: boolean): Promise<OfferAnswer> {
  if (outcome.jobId && outcome.joinedJob) {
    await announceAccessChange(ctx, outcome.jobId);
    await publishJobChange(ctx, outcome.jobId, { type: 'job.changed' });
  }
  await announceToUsers(ctx, outcome.told, { type: 'offers-changed' });
  const pass = requestMatchingPass(ctx);
  if (waitsForPass) await pass;
  return { message: outcome.message, jobId: outcome.jobId, sessionPath: outcome.sessionPath };
}

/** Runs an answer; an offer found gone still asks for a pass (it may have just expired: the next person hears of it at once). */
async function answerOffer(ctx: Ctx, waitsForPass: boolean, work: () => Promise<AnswerOutcome>): Promise<OfferAnswer> {
  let outcome: AnswerOutcome;
  try {
    outcome = await work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'offer_gone') await kickMatcher(ctx);
    throw error;
  }
  return afterAnswer(ctx, outcome, waitsForPass);
}

/**
 * POST /api/gnw/offers/{id}/accept: in one transaction, the caller's open offer becomes accepted and
 * the job theirs (a notary: its notary, the job ready; a witness: a witness of it). A test offer only
 * records the answer. 409 offer_gone when the offer is not open to them any more.
 */
export async function acceptOffer(ctx: Ctx, offerId: string, now: Date = new Date()): Promise<OfferAnswer> {
  const userId = requireUserId(ctx);
  return answerOffer(ctx, false, () =>
    ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const { offer, request } = await lockOwnOpenOffer(tx, offerId, userId, now);
      if (!request) {
        await tx.update(instantOffers).set({ status: 'accepted', answeredAt: now }).where(eq(instantOffers.id, offer.id));
        return { message: 'Test offer accepted. It held no job, so nothing else happens.', jobId: null, sessionPath: null, told: [userId], joinedJob: false };
      }
      return offer.kind === 'notary' ? acceptAsNotary(txCtx, offer, request, now) : acceptAsWitness(txCtx, offer, request, now);
    }),
  );
}

/** POST /api/gnw/offers/{id}/decline: the offer is declined and the matcher moves on to the next person at once. */
export async function declineOffer(ctx: Ctx, offerId: string, now: Date = new Date()): Promise<OfferAnswer> {
  const userId = requireUserId(ctx);
  return answerOffer(ctx, true, () =>
    ctx.db.transaction(async (tx) => {
      const { offer, request } = await lockOwnOpenOffer(tx, offerId, userId, now);
      await tx.update(instantOffers).set({ status: 'declined', answeredAt: now }).where(eq(instantOffers.id, offer.id));
      return {
        message: request ? 'Offer declined. It goes to someone else.' : 'Test offer declined. It held no job, so nothing else happens.',
        jobId: null,
        sessionPath: null,
        told: [userId],
        joinedJob: false,
      };
    }),
  );
}
