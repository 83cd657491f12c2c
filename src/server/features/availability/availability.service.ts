import { and, eq, gt, gte, inArray, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import {
  heartbeatIntervalSeconds,
  presenceTimeoutSeconds,
  type AvailabilityStatus,
  type HeartbeatInput,
  type ToggleAvailabilityInput,
} from '#shared/availability.ts';
import { notaryPresence, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { findOwnWorkBlocker } from '#server/features/notaries/notary-eligibility.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

/**
 * Live availability: a notary is online while their switch is on and their browser's last
 * heartbeat is at most 90 s old, and while they may take work (approved, active, commission current).
 * The rule is evaluated when asked, from the stored heartbeat and the clock: nothing has to run for a
 * notary whose browser went quiet to count as offline. Everything that lists online notaries goes
 * through `onlineCondition`. People with the witness role go online the same way, in the same table,
 * to be offered Notarize Now jobs as the witnesses the platform provides (decision 051); for them
 * taking work means an active account with the witness role.
 */

type PresenceRow = typeof notaryPresence.$inferSelect;

function getCutoff(now: Date): Date {
  return new Date(now.getTime() - presenceTimeoutSeconds * 1000);
}

/** The calendar day (UTC) a commission must not have expired before. */
function getToday(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** May take work: an active account with the notary role, an approved application and a commission in force (begun, not expired). */
function eligibleCondition(now: Date): SQL {
  return and(
    eq(users.status, 'active'),
    sql`'notary' = any(${users.roles})`,
    eq(notaryProfiles.approvalStatus, 'approved'),
    eq(notaryProfiles.isActive, true),
    gte(notaryProfiles.commissionExpiresOn, getToday(now)),
    or(isNull(notaryProfiles.commissionStartsOn), lte(notaryProfiles.commissionStartsOn, getToday(now))),
  ) as SQL;
}

/** The one online rule (the switch, a fresh heartbeat, eligible to work), for queries joining presence, users and profiles. */
function onlineCondition(now: Date): SQL {
  return and(eq(notaryPresence.isAvailable, true), gt(notaryPresence.lastHeartbeatAt, getCutoff(now)), eligibleCondition(now)) as SQL;
}

/**
 * The notaries (of `notaryIds`, or all) online at `now`: for job assignment, lists and the status
 * route alike. Other features call this or `isNotaryOnline`, never the table.
 */
export async function findOnlineNotaryIds(ctx: Pick<Ctx, 'db'>, notaryIds?: readonly string[], now: Date = new Date()): Promise<string[]> {
  if (notaryIds && notaryIds.length === 0) return [];
  const rows = await ctx.db
    .select({ notaryId: notaryPresence.notaryId })
    .from(notaryPresence)
    .innerJoin(users, eq(users.id, notaryPresence.notaryId))
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, notaryPresence.notaryId))
    .where(and(onlineCondition(now), notaryIds ? inArray(notaryPresence.notaryId, [...notaryIds]) : undefined));
  return rows.map((row) => row.notaryId);
}

export async function isNotaryOnline(ctx: Pick<Ctx, 'db'>, notaryId: string, now: Date = new Date()): Promise<boolean> {
  return (await findOnlineNotaryIds(ctx, [notaryId], now)).length > 0;
}

/** A witness may take work: an active account with the witness role. */
function witnessEligibleCondition(): SQL {
  return and(eq(users.status, 'active'), sql`'witness' = any(${users.roles})`) as SQL;
}

/**
 * The people with the witness role (of `userIds`, or all) online at `now`: the switch on and a fresh
 * heartbeat, as for notaries (decision 051).
 */
export async function findOnlineWitnessIds(ctx: Pick<Ctx, 'db'>, userIds?: readonly string[], now: Date = new Date()): Promise<string[]> {
  if (userIds && userIds.length === 0) return [];
  const rows = await ctx.db
    .select({ userId: notaryPresence.notaryId })
    .from(notaryPresence)
    .innerJoin(users, eq(users.id, notaryPresence.notaryId))
    .where(
      and(
        eq(notaryPresence.isAvailable, true),
        gt(notaryPresence.lastHeartbeatAt, getCutoff(now)),
        witnessEligibleCondition(),
        userIds ? inArray(notaryPresence.notaryId, [...userIds]) : undefined,
      ),
    );
  return rows.map((row) => row.userId);
}

/** The presence rows of these people (for the loop page: online or not, when last heard from, test offers). */
export async function findPresence(ctx: Pick<Ctx, 'db'>, userIds: readonly string[]): Promise<PresenceRow[]> {
  if (userIds.length === 0) return [];
  return ctx.db
    .select()
    .from(notaryPresence)
    .where(inArray(notaryPresence.notaryId, [...userIds]));
}

/** Whether the heartbeat at `lastHeartbeatAt` still counts at `now` (at most 90 s old). */
export function isHeartbeatFresh(lastHeartbeatAt: Date | null, now: Date): boolean {
  return Boolean(lastHeartbeatAt && lastHeartbeatAt > getCutoff(now));
}

/** Why the notary may not go online now, in a sentence; null when they may (the same rule as taking work, decision 027). */
async function findOnlineRefusal(ctx: Pick<Ctx, 'db'>, notaryId: string, now: Date): Promise<string | null> {
  const [row] = await ctx.db
    .select({ user: { id: users.id, name: users.name, email: users.email, status: users.status, roles: users.roles }, profile: notaryProfiles })
    .from(users)
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, notaryId));
  if (row && !row.user.roles.includes('notary') && row.user.roles.includes('witness')) {
    return row.user.status === 'active' ? null : 'Only an active witness account can go online.';
  }
  if (!row || row.user.status !== 'active' || !row.user.roles.includes('notary')) return 'Only an active notary account can go online.';
  if (!row.profile) return 'Your notary commission is not on file yet, so you cannot go online. Complete your notary profile first.';
  const blocker = findOwnWorkBlocker(row.user, row.profile, now);
  return blocker ? `${blocker} Until that changes, you cannot go online.` : null;
}

function toStatus(row: PresenceRow | undefined, refusal: string | null, now: Date): AvailabilityStatus {
  const isFresh = Boolean(row?.lastHeartbeatAt && row.lastHeartbeatAt > getCutoff(now));
  const isAvailable = Boolean(row?.isAvailable && isFresh && refusal === null);
  return {
    is_available: isAvailable,
    session_id: isAvailable ? (row?.sessionId ?? null) : null,
    last_heartbeat_at: row?.lastHeartbeatAt?.toISOString() ?? null,
    expires_at: isAvailable && row?.lastHeartbeatAt ? new Date(row.lastHeartbeatAt.getTime() + presenceTimeoutSeconds * 1000).toISOString() : null,
    heartbeat_interval_seconds: heartbeatIntervalSeconds,
    can_go_online: refusal === null,
    reason: refusal,
  };
}

function requireNotaryId(ctx: Ctx): string {
  if (!ctx.user) throw new Error('availability needs a signed-in notary or witness');
  return ctx.user.id;
}

async function readStatus(ctx: Ctx, notaryId: string, now: Date): Promise<AvailabilityStatus> {
  const [row] = await ctx.db.select().from(notaryPresence).where(eq(notaryPresence.notaryId, notaryId));
  return toStatus(row, await findOnlineRefusal(ctx, notaryId, now), now);
}

/** GET /api/notary-availability/status: the caller's own live availability. */
export async function getAvailabilityStatus(ctx: Ctx): Promise<AvailabilityStatus> {
  return readStatus(ctx, requireNotaryId(ctx), new Date());
}

/**
 * POST /api/notary-availability/toggle: going online (refused with 409 for a notary who may not take
 * work) records the browser and counts as its first heartbeat; going offline is honoured from any browser.
 */
export async function toggleAvailability(ctx: Ctx, input: ToggleAvailabilityInput): Promise<AvailabilityStatus> {
  const notaryId = requireNotaryId(ctx);
  const now = new Date();
  if (input.is_available) {
    const refusal = await findOnlineRefusal(ctx, notaryId, now);
    if (refusal) throw new AppError(409, 'cannot_go_online', refusal);
    const values = { isAvailable: true, sessionId: input.session_id ?? null, wentOnlineAt: now, lastHeartbeatAt: now, updatedAt: now };
    await ctx.db
      .insert(notaryPresence)
      .values({ notaryId, ...values })
      .onConflictDoUpdate({ target: notaryPresence.notaryId, set: values });
  } else {
    const values = { isAvailable: false, sessionId: null, updatedAt: now };
    await ctx.db
      .insert(notaryPresence)
      .values({ notaryId, ...values })
      .onConflictDoUpdate({ target: notaryPresence.notaryId, set: values });
  }
  ctx.log.info({ event: 'availability.toggled', userId: notaryId, isAvailable: input.is_available }, 'notary availability changed');
  return readStatus(ctx, notaryId, now);
}

/**
 * POST /api/notary-availability/heartbeat: keeps the notary online when it comes from the browser
 * that went online before the 90 s ran out. A late heartbeat does not bring them back (they went
 * offline; the switch must be turned on again), and another browser's does not count. Either way the
 * answer is the current status, so a stale tab learns it is offline.
 */
export async function recordHeartbeat(ctx: Ctx, input: HeartbeatInput): Promise<AvailabilityStatus> {
  const notaryId = requireNotaryId(ctx);
  const now = new Date();
  await ctx.db
    .update(notaryPresence)
    .set({ lastHeartbeatAt: now })
    .where(
      and(
        eq(notaryPresence.notaryId, notaryId),
        eq(notaryPresence.isAvailable, true),
        eq(notaryPresence.sessionId, input.session_id),
        gt(notaryPresence.lastHeartbeatAt, getCutoff(now)),
      ),
    );
  return readStatus(ctx, notaryId, now);
}

/**
 * PUT /api/availability/test-offers: the notary agrees (or no longer agrees) to be sent test offers
 * from the administrators' loop test page (decision 051). Kept on their presence row, audited.
 */
export async function setTestOfferConsent(ctx: Ctx, accepts: boolean): Promise<{ acceptsTestOffers: boolean; message: string }> {
  const notaryId = requireNotaryId(ctx);
  const now = new Date();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(notaryPresence)
      .values({ notaryId, acceptsTestOffers: accepts, updatedAt: now })
      .onConflictDoUpdate({ target: notaryPresence.notaryId, set: { acceptsTestOffers: accepts, updatedAt: now } });
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'notary.test_offers_changed', data: { acceptsTestOffers: accepts } });
  });
  return {
    acceptsTestOffers: accepts,
    message: accepts
      ? 'Administrators may now send you test offers from the loop test page while you are online; a test offer rings like a real one but holds no job.'
      : 'Administrators can no longer send you test offers.',
  };
}
