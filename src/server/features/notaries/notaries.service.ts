import { and, desc, eq, gte, ilike, inArray, or, type SQL } from 'drizzle-orm';
import { getCalendarDay } from '#shared/dates.ts';
import type { PendingNotary } from '#shared/notaries.ts';
import { incompleteProfileMessage } from '#shared/notary-profile.ts';
import { toSingleLine } from '#shared/text.ts';
import { findUsStateCodesByNameWord } from '#shared/us-states.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { containsPattern, escapeLike } from '#server/db/like.ts';
import { notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, notFound } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { revokeUserSessions } from '#server/features/auth/sessions.service.ts';
import { findMissingProfileItems } from './notary-profile-checks.ts';
import { findOnlineNotaryIds } from '#server/features/availability/availability.service.ts';

export async function findNotaries(ctx: Ctx, approvalStatus: 'pending' | 'approved'): Promise<PendingNotary[]> {
  const rows = await ctx.db
    .select({ profile: notaryProfiles, name: users.name, email: users.email })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.approvalStatus, approvalStatus))
    .orderBy(desc(notaryProfiles.createdAt))
    .limit(500);
  return rows.map(toNotarySummary);
}

type NotaryProfileRow = typeof notaryProfiles.$inferSelect;

/** A notary's application as the admin lists show it (pending, approved, search). */
export function toNotarySummary({ profile, name, email }: { profile: NotaryProfileRow; name: string; email: string }): PendingNotary {
  return {
    userId: profile.userId,
    name,
    email,
    commissionState: profile.commissionState,
    commissionNumber: profile.commissionNumber,
    commissionExpiresOn: profile.commissionExpiresOn,
    county: profile.county,
    approvalStatus: profile.approvalStatus,
    createdAt: profile.createdAt.toISOString(),
  };
}

/**
 * Locks a notary's application for a decision: 404 when there is none, 409 once it is decided
 * (decision 014: an application is approved or rejected once, never both).
 */
async function lockPendingApplication(tx: DbOrTx, userId: string) {
  const [row] = await tx
    .select({ profile: notaryProfiles, name: users.name, email: users.email })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.userId, userId))
    .for('update');
  if (!row) throw notFound('No notary with that id.');
  assertPending(row.profile);
  return row;
}

function assertPending(profile: NotaryProfileRow): void {
  if (profile.approvalStatus === 'approved') throw new AppError(409, 'already_approved', 'This notary is already approved.');
  if (profile.approvalStatus === 'rejected') throw new AppError(409, 'already_rejected', 'This notary’s application was already rejected.');
}

/**
 * An administrator approves a pending notary whose profile is complete (409 with the missing items
 * otherwise): the account becomes active with its notary role, the
 * decision is audited and the notary gets a welcome email with the sign-in link.
 */
export async function approveNotary(ctx: Ctx, userId: string): Promise<{ ok: true; message: string }> {
  const approver = ctx.user;
  if (!approver) throw new Error('approveNotary needs a signed-in caller');
  const notary = await ctx.db.transaction(async (tx) => {
    const row = await lockPendingApplication(tx, userId);
    const missing = await findMissingProfileItems(tx, row.profile, new Date());
    if (missing.length > 0) {
      throw new AppError(409, 'profile_incomplete', `${incompleteProfileMessage(toSingleLine(row.name))} Missing: ${missing.join(' ')}`, { missing });
    }
    await tx
      .update(notaryProfiles)
      .set({ approvalStatus: 'approved', approvedAt: new Date(), approvedBy: approver.id })
      .where(eq(notaryProfiles.userId, userId));
    await tx
      .update(users)
      .set({ status: 'active', updatedAt: new Date() })
      .where(and(eq(users.id, userId), eq(users.status, 'pending')));
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'notary.approved', data: { notaryId: userId, notaryName: row.name, notaryEmail: row.email } });
    await queueEmail(tx, {
      to: row.email,
      kind: 'notary_approved',
      ...mailTemplates.notaryApproved.render({ name: row.name, signInLink: `${ctx.config.publicUrl}/login` }),
    });
    return row;
  });
  await ctx.sessionCache.invalidateUser(userId);
  ctx.log.info({ event: 'notary.approved', userId, by: approver.id }, 'notary approved');
  return { ok: true, message: `${toSingleLine(notary.name)} was approved and told by email.` };
}

/**
 * An administrator turns a pending notary's application down with a reason: the account is marked
 * rejected (it can no longer sign in, its open sessions end), the decision is audited and the
 * notary is told by email why and whom to contact.
 */
export async function rejectNotary(ctx: Ctx, userId: string, reason: string): Promise<{ ok: true; message: string }> {
  const reviewer = ctx.user;
  if (!reviewer) throw new Error('rejectNotary needs a signed-in caller');
  const contact = ctx.config.email.supportAddress ?? `${toSingleLine(reviewer.name)} at ${reviewer.email}`;
  const notary = await ctx.db.transaction(async (tx) => {
    const row = await lockPendingApplication(tx, userId);
    const now = new Date();
    await tx
      .update(notaryProfiles)
      .set({ approvalStatus: 'rejected', rejectedAt: now, rejectedBy: reviewer.id, rejectionReason: reason })
      .where(eq(notaryProfiles.userId, userId));
    await tx
      .update(users)
      .set({ status: 'rejected', updatedAt: now })
      .where(and(eq(users.id, userId), eq(users.status, 'pending')));
    await revokeUserSessions({ ...ctx, db: tx }, userId);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'notary.rejected', data: { notaryId: userId, notaryName: row.name, notaryEmail: row.email, reason } });
    await queueEmail(tx, {
      to: row.email,
      kind: 'notary_rejected',
      ...mailTemplates.notaryRejected.render({ name: row.name, reason, contact }),
    });
    return row;
  });
  await ctx.sessionCache.invalidateUser(userId);
  ctx.log.info({ event: 'notary.rejected', userId, by: reviewer.id }, 'notary application rejected');
  return { ok: true, message: `${toSingleLine(notary.name)} was not approved and was told by email, with your reason.` };
}

/**
 * Approved, active notaries with a commission in force that a job creator may pick, with their commission state and county. Every
 * word of the search must match the name or county (any part) or the state (its two letters, or
 * the beginning of a word of its name: "virginia", "tex").
 */
export async function findNotaryOptions(ctx: Ctx, query: string, limit: number) {
  const conditions: Array<SQL | undefined> = [
    eq(users.status, 'active'),
    eq(notaryProfiles.approvalStatus, 'approved'),
    eq(notaryProfiles.isActive, true),
    gte(notaryProfiles.commissionExpiresOn, getCalendarDay(new Date())),
  ];
  for (const word of query.split(/\s+/).filter(Boolean)) {
    const pattern = containsPattern(word);
    const statesNamed = findUsStateCodesByNameWord(word);
    conditions.push(
      or(
        ilike(users.name, pattern),
        ilike(notaryProfiles.county, pattern),
        ilike(notaryProfiles.commissionState, escapeLike(word)),
        statesNamed.length > 0 ? inArray(notaryProfiles.commissionState, statesNamed) : undefined,
      ),
    );
  }
  const rows = await ctx.db
    .select({ userId: users.id, name: users.name, commissionState: notaryProfiles.commissionState, county: notaryProfiles.county })
    .from(users)
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(and(...conditions))
    .orderBy(users.name, users.id)
    .limit(limit);
  const online = new Set(
    await findOnlineNotaryIds(
      ctx,
      rows.map((row) => row.userId),
    ),
  );
  return { items: rows.map((row) => ({ ...row, isOnline: online.has(row.userId) })) };
}
