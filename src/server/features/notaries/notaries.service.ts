import { and, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import type { PendingNotary } from '#shared/notaries.ts';
import { notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, notFound } from '#server/lib/errors.ts';

export async function findNotaries(ctx: Ctx, approvalStatus: 'pending' | 'approved'): Promise<PendingNotary[]> {
  const rows = await ctx.db
    .select({ profile: notaryProfiles, name: users.name, email: users.email })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.approvalStatus, approvalStatus))
    .orderBy(desc(notaryProfiles.createdAt))
    .limit(500);
  return rows.map(({ profile, name, email }) => ({
    userId: profile.userId,
    name,
    email,
    commissionState: profile.commissionState,
    commissionNumber: profile.commissionNumber,
    commissionExpiresOn: profile.commissionExpiresOn,
    county: profile.county,
    approvalStatus: profile.approvalStatus,
    createdAt: profile.createdAt.toISOString(),
  }));
}

/** An administrator approves a pending notary: the account becomes active with its notary role. */
export async function approveNotary(ctx: Ctx, userId: string): Promise<void> {
  const approver = ctx.user;
  if (!approver) throw new Error('approveNotary needs a signed-in caller');
  await ctx.db.transaction(async (tx) => {
    const [profile] = await tx.select().from(notaryProfiles).where(eq(notaryProfiles.userId, userId)).for('update');
    if (!profile) throw notFound('No notary with that id.');
    if (profile.approvalStatus === 'approved') throw new AppError(409, 'already_approved', 'This notary is already approved.');
    await tx
      .update(notaryProfiles)
      .set({ approvalStatus: 'approved', approvedAt: new Date(), approvedBy: approver.id })
      .where(eq(notaryProfiles.userId, userId));
    await tx.update(users).set({ status: 'active', updatedAt: new Date() }).where(and(eq(users.id, userId), eq(users.status, 'pending')));
  });
  await ctx.sessionCache.invalidateUser(userId);
  ctx.log.info({ event: 'notary.approved', userId, by: approver.id }, 'notary approved');
}

/** `%` and `_` of a search are plain characters in ILIKE. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/**
 * Approved, active notaries a job creator may pick, with their commission state and county. Every
 * word of the search must match the name or county (any part) or the state (its two letters).
 */
export async function findNotaryOptions(ctx: Ctx, query: string, limit: number) {
  const conditions: Array<SQL | undefined> = [eq(users.status, 'active'), eq(notaryProfiles.approvalStatus, 'approved')];
  for (const word of query.split(/\s+/).filter(Boolean)) {
    const pattern = `%${escapeLike(word)}%`;
    conditions.push(or(ilike(users.name, pattern), ilike(notaryProfiles.county, pattern), ilike(notaryProfiles.commissionState, escapeLike(word))));
  }
  const rows = await ctx.db
    .select({ userId: users.id, name: users.name, commissionState: notaryProfiles.commissionState, county: notaryProfiles.county })
    .from(users)
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(and(...conditions))
    .orderBy(users.name, users.id)
    .limit(limit);
  return { items: rows };
}
