import { and, eq, ne } from 'drizzle-orm';
import type { IdentityResetResult as ResetResult } from '#shared/identity.ts';
import { identityChecks, jobParticipants, userSignatures, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

/**
 * Ends every current identity check of a person (they stay as evidence): on each job the person
 * starts the step again. Recorded on each job whose check ended, or on the account when none did.
 */
async function resetIdentity(ctx: Ctx, userId: string): Promise<number> {
  const ended = await ctx.db
    .update(identityChecks)
    .set({ status: 'expired', expiredAt: new Date() })
    .where(and(eq(identityChecks.userId, userId), ne(identityChecks.status, 'expired')))
    .returning({ id: identityChecks.id, jobId: identityChecks.jobId, participantId: identityChecks.jobParticipantId });
  for (const check of ended) {
    const [person] = await ctx.db.select({ name: jobParticipants.name }).from(jobParticipants).where(eq(jobParticipants.id, check.participantId)).limit(1);
    await appendAuditEvent(ctx, { jobId: check.jobId, action: 'identity.reset', data: { checkId: check.id, userId, name: person?.name ?? null, checks: 1 } });
  }
  return ended.length;
}

async function requireUser(ctx: Ctx, userId: string): Promise<string> {
  const [user] = await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw notFound('No user with that id.');
  return user.name;
}

/** POST /api/admin/users/{id}/reset-id: the person proves their identity again on every job. */
export async function adminResetIdentity(ctx: Ctx, userId: string): Promise<ResetResult> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const name = await requireUser(txCtx, userId);
    const checksEnded = await resetIdentity(txCtx, userId);
    if (checksEnded === 0) await appendAuditEvent(txCtx, { jobId: null, action: 'identity.reset', data: { userId, name, checks: 0 } });
    return { ok: true as const, checksEnded, signaturesCleared: 0 };
  });
}

/**
 * POST /api/admin/users/{id}/clear-signature-id: the person's saved signature and initials stop being
 * theirs to reuse (documents already signed keep their images) and their identity step restarts.
 */
export async function adminClearSignatureAndIdentity(ctx: Ctx, userId: string): Promise<ResetResult> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const name = await requireUser(txCtx, userId);
    const cleared = await tx
      .update(userSignatures)
      .set({ isCurrent: false })
      .where(and(eq(userSignatures.userId, userId), eq(userSignatures.isCurrent, true)))
      .returning({ id: userSignatures.id });
    const checksEnded = await resetIdentity(txCtx, userId);
    if (checksEnded === 0)
      await appendAuditEvent(txCtx, { jobId: null, action: 'identity.reset', data: { userId, name, checks: 0, signaturesCleared: cleared.length } });
    return { ok: true as const, checksEnded, signaturesCleared: cleared.length };
  });
}
