import { and, count, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { formatDuration } from '#shared/dates.ts';
import { notarizationTypes } from '#shared/jobs.ts';
import { offerSeconds, type GnwLoop, type gnwLoopQuerySchema } from '#shared/gnw.ts';
import { identityPolicies, type IdentityPolicy } from '#shared/identity-policies.ts';
import { getUsStateName } from '#shared/us-states.ts';
import { instantOffers, instantRequests, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findOnlineNotaryIds, findPresence, isHeartbeatFresh } from '#server/features/availability/availability.service.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { findWorkBlocker } from '#server/features/notaries/notary-eligibility.ts';
import { toSingleLine } from '#shared/text.ts';
import { findActBlocker } from './gnw-act-rules.ts';
import { compareCandidates, loadCandidates } from './gnw-matching.ts';

/**
 * The administrators' view of the Notarize Now loop (decision 051, /admin/notaryloop-test): every
 * approved notary, whether the next offer could go to them, in what order and why, from the same
 * rules and order the matcher uses; and a test offer to a notary who opted in.
 */

type LoopQuery = z.output<typeof gnwLoopQuerySchema>;

const actLabels: Record<string, string> = Object.fromEntries(notarizationTypes.map((type) => [type.key, type.label.toLowerCase()]));

/**
 * GET /api/gnw/loop?state&act: the candidates in the order the next offer would take. The act leaves
 * out a notary whose commissioning state's row keeps it off online notarization, as the matcher does
 * (gnw-act-rules.ts, with the same `policies`); no rule recorded here limits a notary by the signer's
 * state, so `state` is named in the reasons and changes no order.
 */
export async function getMatchingLoop(
  ctx: Pick<Ctx, 'db'>,
  query: LoopQuery,
  now: Date = new Date(),
  policies: readonly IdentityPolicy[] = identityPolicies,
): Promise<GnwLoop> {
  const rows = await ctx.db
    .select({ user: { id: users.id, name: users.name, email: users.email, status: users.status, roles: users.roles }, profile: notaryProfiles })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.approvalStatus, 'approved'));
  const ids = rows.map((row) => row.user.id);
  const online = new Set(await findOnlineNotaryIds(ctx, ids, now));
  const presenceOf = new Map((await findPresence(ctx, ids)).map((row) => [row.notaryId, row]));
  const candidateOf = new Map((await loadCandidates(ctx.db, ids)).map((candidate) => [candidate.id, candidate]));
  const ringing =
    ids.length === 0
      ? []
      : await ctx.db
          .select({ userId: instantOffers.userId, isTest: instantOffers.isTest, expiresAt: instantOffers.expiresAt })
          .from(instantOffers)
          .where(and(inArray(instantOffers.userId, ids), eq(instantOffers.status, 'open')));
  const ringingOf = new Map(ringing.map((row) => [row.userId, row]));
  const what = `${actLabels[query.act] ?? query.act}${query.state ? ` for a signer in ${getUsStateName(query.state)}` : ''}`;

  const actBlockerOf = new Map(rows.map((row) => [row.user.id, findActBlocker(row.profile.commissionState, query.act, policies)]));
  const inLine = rows
    .filter((row) => online.has(row.user.id) && !ringingOf.has(row.user.id) && !actBlockerOf.get(row.user.id))
    .map((row) => ({ id: row.user.id, name: row.user.name, lastOfferedAt: candidateOf.get(row.user.id)?.lastOfferedAt ?? null }))
    .sort(compareCandidates);
  const orderOf = new Map(inLine.map((candidate, index) => [candidate.id, index + 1]));

  const candidates = rows.map((row) => {
    const id = row.user.id;
    const name = toSingleLine(row.user.name);
    const presence = presenceOf.get(id);
    const lastOfferedAt = candidateOf.get(id)?.lastOfferedAt ?? null;
    const order = orderOf.get(id) ?? null;
    const offer = ringingOf.get(id);
    const blocker = !row.user.roles.includes('notary') ? `${name} no longer has the notary role.` : findWorkBlocker(row.user, row.profile, now);
    let reason: string;
    const actBlocker = actBlockerOf.get(id);
    if (blocker) reason = `Left out: ${blocker}`;
    else if (actBlocker) reason = `Left out: ${actBlocker}`;
    else if (!presence?.lastHeartbeatAt) reason = 'Left out: offline, they have never gone online.';
    else if (!presence.isAvailable) reason = 'Left out: offline, their availability switch is off.';
    else if (!isHeartbeatFresh(presence.lastHeartbeatAt, now)) {
      reason = `Left out: offline, their browser was last heard from ${formatDuration(now.getTime() - presence.lastHeartbeatAt.getTime())} ago (more than 90 seconds).`;
    } else if (offer) {
      // Times here are in UTC, to the second, and say so: the server knows no reader's zone, and an offer rings 30 s.
      reason = `Left out for now: ringing with ${offer.isTest ? 'a test offer' : 'an offer for another job'} until ${offer.expiresAt.toISOString().slice(11, 19)} UTC; nothing else rings at them until they answer or it expires.`;
    } else if (order !== null) {
      const since = lastOfferedAt ? `last offered a job ${formatDuration(now.getTime() - lastOfferedAt.getTime())} ago` : 'never offered a job';
      reason =
        order === 1
          ? `Next in line for a ${what}: ${since}, longer than anyone else online (ties go by name).`
          : `Number ${order} for a ${what}: ${since}; those offered longer ago, or never, come first (ties go by name).`;
    } else reason = 'Left out: not online as a notary who may take work.';
    return {
      notaryId: id,
      name: row.user.name,
      commissionState: row.profile.commissionState,
      online: online.has(id),
      eligible: order !== null,
      acceptsTestOffers: presence?.acceptsTestOffers ?? false,
      order,
      reason,
      lastOfferedAt: lastOfferedAt?.toISOString() ?? null,
    };
  });
  candidates.sort((a, b) => (a.order ?? Number.MAX_SAFE_INTEGER) - (b.order ?? Number.MAX_SAFE_INTEGER) || a.name.localeCompare(b.name, 'en'));

  const [searching] = await ctx.db.select({ total: count() }).from(instantRequests).where(eq(instantRequests.status, 'searching'));
  const [open] = await ctx.db.select({ total: count() }).from(instantOffers).where(eq(instantOffers.status, 'open'));
  return { candidates, searching: searching?.total ?? 0, openOffers: open?.total ?? 0 };
}

/**
 * POST /api/gnw/loop/test-offer: a test offer (no job) rings at a notary who opted in and is online,
 * for the usual 30 s; 409 with the reason otherwise. Audited.
 */
export async function sendTestOffer(ctx: Ctx, notaryId: string, now: Date = new Date()): Promise<{ message: string }> {
  if (!ctx.user) throw unauthorized();
  const adminId = ctx.user.id;
  const [row] = await ctx.db
    .select({ name: users.name })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.userId, notaryId))
    .limit(1);
  if (!row) throw notFound('No notary with that id.');
  const name = toSingleLine(row.name);
  const [presence] = await findPresence(ctx, [notaryId]);
  if (!presence?.acceptsTestOffers) {
    throw conflict(`${name} has not agreed to test offers. They can turn them on next to their availability switch.`);
  }
  if ((await findOnlineNotaryIds(ctx, [notaryId], now)).length === 0) {
    throw conflict(`${name} is not online as a notary who may take work; a test offer goes only to a notary who is.`);
  }
  const sent = await ctx.db.transaction(async (tx) => {
    const [offer] = await tx
      .insert(instantOffers)
      .values({ kind: 'notary', userId: notaryId, isTest: true, createdBy: adminId, offeredAt: now, expiresAt: new Date(now.getTime() + offerSeconds * 1000) })
      .onConflictDoNothing()
      .returning({ id: instantOffers.id });
    if (!offer) return false;
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'gnw.test_offer_sent', data: { notaryId, notaryName: row.name, offerId: offer.id } });
    return true;
  });
  if (!sent) throw conflict(`An offer is ringing at ${name} already; send the test offer when it is answered or expires.`);
  await announceToUsers(ctx, [notaryId], { type: 'offers-changed' });
  return { message: `A test offer rings at ${name} for ${offerSeconds} seconds.` };
}
