import { and, asc, count, eq, gt, inArray, isNotNull, lte, max, sql } from 'drizzle-orm';
import { offerSeconds } from '#shared/gnw.ts';
import { identityPolicies, type IdentityPolicy } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { instantOffers, instantRequests, jobParticipants, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findOnlineNotaryIds, findOnlineWitnessIds } from '#server/features/availability/availability.service.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { findActBlocker } from './gnw-act-rules.ts';

/**
 * The Notarize Now matcher (decision 051): offers each searching request to one eligible notary at a
 * time, and a matched request that asked for witnesses to one online witness at a time. It runs on
 * every instant start, answer and expiry, and a sweep runs it every second (tasks/gnw-matcher.ts).
 *
 * A pass first tidies up in one transaction: searching requests past their search time become
 * unmatched, offers past their 30 s expire, and open offers of requests that no longer want them
 * (matched, cancelled, unmatched) are withdrawn. Then each waiting request gets its offer in a short
 * transaction of its own that holds the request (FOR SHARE, so an accept or cancel of it waits, and a
 * request that stopped searching meanwhile gets nothing). The partial unique indexes of
 * instant_offers are what make it safe: one open offer per request and kind, one per person, never
 * the same request twice to one person. An insert they refuse (ON CONFLICT DO NOTHING: a second
 * instance or sweep got there first) is skipped and the pass goes on. Every transaction takes
 * requests before offers, as an accept does, so two of them never wait on each other in a circle.
 * A notary is offered only a request whose act their commissioning state's policy row allows online
 * (gnw-act-rules.ts); witnesses hold no commission, so the act does not limit them.
 *
 * One instance runs one pass at a time (requestMatchingPass): starts, answers and the sweep that ask
 * while a pass runs share the single pass after it, so a burst of answers costs two passes, not one
 * each racing the others for the same rows. The clock is read as each transaction begins, so a pass
 * that waited for the database does not offer or expire by a stale time. Tests pass `now` instead
 * and move the clock rather than sleep.
 */

export type MatcherCtx = Pick<Ctx, 'db' | 'realtime' | 'log'>;
export type OfferKind = 'notary' | 'witness';

export interface MatchingPass {
  expired: number;
  unmatched: number;
  withdrawn: number;
  offered: number;
}

/** Who acts in the trail when the matcher changes something: the system. */
const systemActor = { user: null, ipAddress: 'gnw-matcher', userAgent: null } as const;

export interface Candidate {
  id: string;
  name: string;
  email: string;
  /** The state of their notary commission; null for a witness, who holds none. */
  commissionState: string | null;
  /** The last real offer made to them (test offers do not count); null: never offered a job. */
  lastOfferedAt: Date | null;
  /** An offer rings at them now. */
  isRinging: boolean;
}

/** The order offers go out in: longest since their last offer first (never offered before anyone), then by name. */
export function compareCandidates(a: Pick<Candidate, 'lastOfferedAt' | 'name' | 'id'>, b: Pick<Candidate, 'lastOfferedAt' | 'name' | 'id'>): number {
  const aTime = a.lastOfferedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const bTime = b.lastOfferedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (aTime !== bTime) return aTime < bTime ? -1 : 1;
  const byName = a.name.localeCompare(b.name, 'en');
  if (byName !== 0) return byName;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** These people as candidates: name, address, commission state, when they were last offered a job, and whether something rings at them now. */
export async function loadCandidates(db: DbOrTx, userIds: readonly string[]): Promise<Candidate[]> {
  if (userIds.length === 0) return [];
  const ids = [...userIds];
  const people = await db
    .select({ id: users.id, name: users.name, email: users.email, commissionState: notaryProfiles.commissionState })
    .from(users)
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(inArray(users.id, ids));
  const lastOffers = await db
    .select({ userId: instantOffers.userId, lastOfferedAt: max(instantOffers.offeredAt) })
    .from(instantOffers)
    .where(and(inArray(instantOffers.userId, ids), eq(instantOffers.isTest, false)))
    .groupBy(instantOffers.userId);
  const ringing = await db
    .select({ userId: instantOffers.userId })
    .from(instantOffers)
    .where(and(inArray(instantOffers.userId, ids), eq(instantOffers.status, 'open')));
  const lastOf = new Map(lastOffers.map((row) => [row.userId, row.lastOfferedAt ? new Date(row.lastOfferedAt) : null]));
  const ringingIds = new Set(ringing.map((row) => row.userId));
  return people.map((person) => ({ ...person, lastOfferedAt: lastOf.get(person.id) ?? null, isRinging: ringingIds.has(person.id) })).sort(compareCandidates);
}

/** Step one, in one transaction: unmatched requests, expired offers, withdrawn offers; who must be told. */
async function tidyUp(ctx: MatcherCtx, clock: () => Date): Promise<{ expired: number; unmatched: number; withdrawn: number; told: Set<string> }> {
  return ctx.db.transaction(async (tx) => {
    const now = clock();
    const told = new Set<string>();
    // Requests first (the order every transaction here and the accept take locks in).
    const unmatched = await tx
      .update(instantRequests)
      .set({ status: 'unmatched', updatedAt: now })
      .where(and(eq(instantRequests.status, 'searching'), isNotNull(instantRequests.searchEndsAt), lte(instantRequests.searchEndsAt, now)))
      .returning({ id: instantRequests.id, jobId: instantRequests.jobId, requestedBy: instantRequests.requestedBy });
    const expired = await tx
      .update(instantOffers)
      .set({ status: 'expired', answeredAt: now })
      .where(and(eq(instantOffers.status, 'open'), lte(instantOffers.expiresAt, now)))
      .returning({ userId: instantOffers.userId });
    // Open offers of requests that no longer want them: a notary offer needs a searching request, a
    // witness offer a matched one (unmatched above, accepted, cancelled or switched to a booking elsewhere).
    const withdrawn = await tx
      .update(instantOffers)
      .set({ status: 'withdrawn', answeredAt: now })
      .where(
        and(
          eq(instantOffers.status, 'open'),
          isNotNull(instantOffers.requestId),
          sql`not exists (select 1 from ${instantRequests} where ${instantRequests.id} = ${instantOffers.requestId} and ${instantRequests.status} = case ${instantOffers.kind} when 'notary' then 'searching' else 'matched' end)`,
        ),
      )
      .returning({ userId: instantOffers.userId });
    for (const row of [...expired, ...withdrawn]) told.add(row.userId);
    for (const request of unmatched) {
      const [offers] = await tx
        .select({ made: count() })
        .from(instantOffers)
        .where(and(eq(instantOffers.requestId, request.id), eq(instantOffers.kind, 'notary')));
      await appendAuditEvent({ ...systemActor, db: tx }, { jobId: request.jobId, action: 'gnw.search_unmatched', data: { offersMade: offers?.made ?? 0 } });
      told.add(request.requestedBy);
    }
    return { expired: expired.length, unmatched: unmatched.length, withdrawn: withdrawn.length, told };
  });
}

interface WaitingRequest {
  id: string;
  jobId: string;
  requestedBy: string;
  matchedNotaryId: string | null;
  act: string;
}

/** Requests waiting for an offer of this kind: searching (notary) or matched with witnesses still to find (witness), oldest first. */
async function findWaitingRequests(db: DbOrTx, kind: OfferKind, now: Date): Promise<WaitingRequest[]> {
  const noOpenOffer = sql`not exists (select 1 from ${instantOffers} where ${instantOffers.requestId} = ${instantRequests.id} and ${instantOffers.kind} = ${kind} and ${instantOffers.status} = 'open')`;
  const columns = {
    id: instantRequests.id,
    jobId: instantRequests.jobId,
    requestedBy: instantRequests.requestedBy,
    matchedNotaryId: instantRequests.matchedNotaryId,
    act: instantRequests.act,
  };
  if (kind === 'notary') {
    return db
      .select(columns)
      .from(instantRequests)
      .where(and(eq(instantRequests.status, 'searching'), eq(instantRequests.lane, 'instant'), gt(instantRequests.searchEndsAt, now), noOpenOffer))
      .orderBy(asc(instantRequests.searchStartedAt), asc(instantRequests.createdAt));
  }
  return db
    .select(columns)
    .from(instantRequests)
    .where(
      and(
        eq(instantRequests.status, 'matched'),
        gt(instantRequests.witnessesRequested, 0),
        sql`(select count(*) from ${instantOffers} where ${instantOffers.requestId} = ${instantRequests.id} and ${instantOffers.kind} = 'witness' and ${instantOffers.status} = 'accepted') < ${instantRequests.witnessesRequested}`,
        noOpenOffer,
      ),
    )
    .orderBy(asc(instantRequests.matchedAt), asc(instantRequests.createdAt));
}

/** Who may not be offered each of these requests: its requester, its people (by account or address), its notary, and whoever was offered it before. */
async function findExclusions(db: DbOrTx, requests: readonly WaitingRequest[]): Promise<Map<string, { userIds: Set<string>; emails: Set<string> }>> {
  const byRequest = new Map(requests.map((request) => [request.id, { userIds: new Set<string>([request.requestedBy]), emails: new Set<string>() }]));
  if (requests.length === 0) return byRequest;
  for (const request of requests) if (request.matchedNotaryId) byRequest.get(request.id)?.userIds.add(request.matchedNotaryId);
  const requestOfJob = new Map(requests.map((request) => [request.jobId, request.id]));
  const people = await db
    .select({ jobId: jobParticipants.jobId, userId: jobParticipants.userId, email: jobParticipants.email })
    .from(jobParticipants)
    .where(inArray(jobParticipants.jobId, [...requestOfJob.keys()]));
  for (const person of people) {
    const excluded = byRequest.get(requestOfJob.get(person.jobId) ?? '');
    if (person.userId) excluded?.userIds.add(person.userId);
    excluded?.emails.add(person.email.trim().toLowerCase());
  }
  const offered = await db
    .select({ requestId: instantOffers.requestId, userId: instantOffers.userId })
    .from(instantOffers)
    .where(inArray(instantOffers.requestId, [...byRequest.keys()]));
  for (const offer of offered) byRequest.get(offer.requestId ?? '')?.userIds.add(offer.userId);
  return byRequest;
}

/**
 * Offers one request to the first free candidate (a notary: one whose commission allows its act), in a
 * transaction that holds the request: nothing when it no longer waits for this kind. The indexes refuse what another instance did meanwhile: a
 * refused insert means the request has its offer already (done) or the person is taken (next one).
 */
async function offerRequest(
  ctx: MatcherCtx,
  request: WaitingRequest,
  kind: OfferKind,
  pool: Candidate[],
  excluded: { userIds: Set<string>; emails: Set<string> },
  clock: () => Date,
  policies: readonly IdentityPolicy[],
): Promise<string | null> {
  return ctx.db.transaction(async (tx) => {
    const now = clock();
    const [held] = await tx
      .select({ id: instantRequests.id })
      .from(instantRequests)
      .where(
        kind === 'notary'
          ? and(eq(instantRequests.id, request.id), eq(instantRequests.status, 'searching'), gt(instantRequests.searchEndsAt, now))
          : and(eq(instantRequests.id, request.id), eq(instantRequests.status, 'matched')),
      )
      .for('share');
    if (!held) return null;
    for (const candidate of pool) {
      if (candidate.isRinging || excluded.userIds.has(candidate.id) || excluded.emails.has(candidate.email.trim().toLowerCase())) continue;
      if (kind === 'notary' && findActBlocker(candidate.commissionState, request.act, policies)) continue;
      const [offer] = await tx
        .insert(instantOffers)
        .values({ requestId: request.id, kind, userId: candidate.id, offeredAt: now, expiresAt: new Date(now.getTime() + offerSeconds * 1000) })
        .onConflictDoNothing()
        .returning({ id: instantOffers.id });
      if (offer) {
        candidate.isRinging = true;
        candidate.lastOfferedAt = now;
        return candidate.id;
      }
      // Refused: another instance offered this request meanwhile (done), or this person something
      // else (taken), or this request before (never again).
      if (await hasOpenOffer(tx, request.id, kind)) return null;
      const [ringing] = await tx
        .select({ id: instantOffers.id })
        .from(instantOffers)
        .where(and(eq(instantOffers.userId, candidate.id), eq(instantOffers.status, 'open')))
        .limit(1);
      if (ringing) candidate.isRinging = true;
      else excluded.userIds.add(candidate.id);
    }
    return null;
  });
}

async function offerWaitingRequests(
  ctx: MatcherCtx,
  kind: OfferKind,
  clock: () => Date,
  told: Set<string>,
  policies: readonly IdentityPolicy[],
): Promise<number> {
  const now = clock();
  const waiting = await findWaitingRequests(ctx.db, kind, now);
  if (waiting.length === 0) return 0;
  const onlineIds = kind === 'notary' ? await findOnlineNotaryIds(ctx, undefined, now) : await findOnlineWitnessIds(ctx, undefined, now);
  const pool = await loadCandidates(ctx.db, onlineIds);
  if (pool.every((candidate) => candidate.isRinging)) return 0;
  const exclusions = await findExclusions(ctx.db, waiting);
  let offered = 0;
  for (const request of waiting) {
    if (pool.every((candidate) => candidate.isRinging)) break;
    const excluded = exclusions.get(request.id) ?? { userIds: new Set<string>(), emails: new Set<string>() };
    const offeredTo = await offerRequest(ctx, request, kind, pool, excluded, clock, policies);
    if (offeredTo) {
      offered += 1;
      told.add(offeredTo);
    }
  }
  return offered;
}

/**
 * One pass of the matcher: tidies up, then offers every waiting request to the next free candidate,
 * notaries first, then witnesses; tells the people whose offers changed (a hint on their own
 * channel: their tabs fetch GET /api/gnw/offers again). Without `now`, each transaction reads the
 * clock as it begins. `policies` is the table of state rows that says which acts a commission allows
 * (the platform's own unless a test hands it another).
 */
export async function runMatchingPass(ctx: MatcherCtx, now?: Date, policies: readonly IdentityPolicy[] = identityPolicies): Promise<MatchingPass> {
  const clock = () => now ?? new Date();
  const tidied = await tidyUp(ctx, clock);
  const told = tidied.told;
  const offered = (await offerWaitingRequests(ctx, 'notary', clock, told, policies)) + (await offerWaitingRequests(ctx, 'witness', clock, told, policies));
  if (told.size > 0) await announceToUsers(ctx, [...told], { type: 'offers-changed' });
  return { expired: tidied.expired, unmatched: tidied.unmatched, withdrawn: tidied.withdrawn, offered };
}

interface PassQueue {
  isRunning: boolean;
  /** The pass asked for while one runs: every ask meanwhile shares it. */
  next: { ctx: MatcherCtx; now: Date | undefined; settle: Array<() => void> } | null;
  idle: Array<() => void>;
}

/** One queue per database this process talks to: one instance's passes never overlap. */
const queues = new WeakMap<object, PassQueue>();

async function drain(queue: PassQueue): Promise<void> {
  queue.isRunning = true;
  while (queue.next) {
    const { ctx, now, settle } = queue.next;
    queue.next = null;
    try {
      await runMatchingPass(ctx, now);
    } catch (error) {
      ctx.log.warn({ err: error }, 'The Notarize Now matcher failed; the next sweep tries again.');
    }
    for (const resolve of settle) resolve();
  }
  queue.isRunning = false;
  for (const resolve of queue.idle.splice(0)) resolve();
}

/**
 * Asks for a pass after a start, an answer, an expiry or the sweep. It resolves once a pass that began
 * after the ask has ended; a failure is logged (the next sweep tries again), never the caller's.
 */
export function requestMatchingPass(ctx: MatcherCtx, now?: Date): Promise<void> {
  let queue = queues.get(ctx.db);
  if (!queue) {
    queue = { isRunning: false, next: null, idle: [] };
    queues.set(ctx.db, queue);
  }
  if (queue.next) {
    if (now) queue.next.now = now;
  } else {
    queue.next = { ctx, now, settle: [] };
  }
  const settled = new Promise<void>((resolve) => queue.next?.settle.push(resolve));
  if (!queue.isRunning) void drain(queue);
  return settled;
}

/** Whether a pass runs or waits on this database now. */
export function isMatcherBusy(ctx: Pick<MatcherCtx, 'db'>): boolean {
  return queues.get(ctx.db)?.isRunning ?? false;
}

/** Resolves when no pass runs or waits on this database (shutdown, tests). */
export function whenMatcherIdle(ctx: Pick<MatcherCtx, 'db'>): Promise<void> {
  const queue = queues.get(ctx.db);
  if (!queue?.isRunning) return Promise.resolve();
  return new Promise((resolve) => queue.idle.push(resolve));
}

/** A pass after a start, an answer or an expiry, waited for (see requestMatchingPass). */
export async function kickMatcher(ctx: MatcherCtx, now?: Date): Promise<void> {
  await requestMatchingPass(ctx, now);
}

/** The open offer of a request of this kind, if one rings now (for the person's page: whether one rings, never at whom). */
export async function hasOpenOffer(db: DbOrTx, requestId: string, kind: OfferKind = 'notary'): Promise<boolean> {
  const [row] = await db
    .select({ id: instantOffers.id })
    .from(instantOffers)
    .where(and(eq(instantOffers.requestId, requestId), eq(instantOffers.kind, kind), eq(instantOffers.status, 'open')))
    .limit(1);
  return Boolean(row);
}
