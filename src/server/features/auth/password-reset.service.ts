import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import { passwordResetMessages } from '#shared/mfa.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { passwordResetTokens, sessions, trustedDevices, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashPassword, hashToken } from '#server/lib/crypto.ts';
import { AppError } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { markEmailVerified } from './email-verification.service.ts';
import { findUserByEmail, normalizeEmail } from './users.ts';

const resetLifetimeMs = 3600_000;
const invalidLink = () => new AppError(400, 'invalid_token', passwordResetMessages.invalidLink);

/**
 * A single-use link to the reset-password page (only the token's hash is stored), inside the
 * caller's transaction: the one-hour reset link, or an administrator's invitation with a longer life.
 */
export async function createPasswordLink(ctx: Pick<Ctx, 'config'> & { db: DbOrTx }, userId: string, lifetimeMs = resetLifetimeMs): Promise<string> {
  const token = createToken();
  await ctx.db.insert(passwordResetTokens).values({ userId, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + lifetimeMs) });
  return `${ctx.config.publicUrl}/login?resetToken=${token}`;
}

/** Ends every unused password link of an account: they were sent to an address it no longer has. */
export async function endPasswordLinks(db: DbOrTx, userId: string): Promise<void> {
  await db
    .update(passwordResetTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
}

/**
 * Sends a single-use reset link when the account exists. The answer is the same either way, and
 * the limits count per address and per email whether or not an account matches.
 */
export async function requestPasswordReset(ctx: Ctx, rawEmail: string): Promise<{ ok: true; message: string }> {
  const email = normalizeEmail(rawEmail);
  const { limits } = ctx.config;
  const perAddress = await hitRateLimit(ctx.db, `reset:address:${ctx.ipAddress}`, 3600_000);
  if (perAddress.count > limits.passwordResetsPerAddressPerHour) throwRateLimited('password reset requests from this network', perAddress.resetAt);
  const perEmail = await hitRateLimit(ctx.db, `reset:email:${email}`, 3600_000);
  if (perEmail.count > limits.passwordResetsPerEmailPerHour) throwRateLimited('password reset requests for this email', perEmail.resetAt);
  const user = await findUserByEmail(ctx.db, email);
  // A disabled or rejected account cannot sign in, so a new password would not help it.
  if (user && (user.status === 'active' || user.status === 'pending')) {
    await ctx.db.transaction(async (tx) => {
      const link = await createPasswordLink({ ...ctx, db: tx }, user.id);
      await queueEmail(tx, {
        to: user.email,
        kind: 'password_reset',
        ...mailTemplates.passwordReset.render({ name: user.name, link }),
      });
    });
    ctx.log.info({ event: 'password_reset.requested', userId: user.id }, 'password reset link queued');
  }
  return { ok: true, message: passwordResetMessages.forgotAccepted };
}

async function findLiveToken(ctx: Ctx, token: string) {
  if (token.length < 20 || token.length > 200) return null;
  const [row] = await ctx.db
    .select()
    .from(passwordResetTokens)
    .where(and(eq(passwordResetTokens.tokenHash, hashToken(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, new Date())))
    .limit(1);
  return row ?? null;
}

async function limitTokenGuesses(ctx: Ctx): Promise<void> {
  const hits = await hitRateLimit(ctx.db, `reset-token:address:${ctx.ipAddress}`, 3600_000);
  if (hits.count > 60) throwRateLimited('reset link checks from this network', hits.resetAt);
}

export async function validateResetToken(ctx: Ctx, token: string): Promise<{ valid: true }> {
  await limitTokenGuesses(ctx);
  if (!(await findLiveToken(ctx, token))) throw invalidLink();
  return { valid: true };
}

/** Sets the new password once per link, ends every session and remembered device of the user. */
export async function resetPassword(ctx: Ctx, token: string, newPassword: string): Promise<{ ok: true; message: string }> {
  await limitTokenGuesses(ctx);
  const passwordHash = await hashPassword(newPassword);
  const userId = await ctx.db.transaction(async (tx) => {
    const used = await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.tokenHash, hashToken(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, new Date())))
      .returning({ userId: passwordResetTokens.userId });
    const row = used[0];
    if (!row) throw invalidLink();
    const [previous] = await tx.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, row.userId));
    // An account an administrator created has no password until its person opens the emailed invitation.
    const isFirstPassword = previous?.passwordHash === null;
    // A link sent before the account was rejected or disabled opens nothing: it could not sign in.
    const [user] = await tx
      .update(users)
      .set({ passwordHash, updatedAt: new Date() })
      .where(and(eq(users.id, row.userId), inArray(users.status, ['active', 'pending'])))
      .returning();
    if (!user) throw invalidLink();
    await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, user.id), isNull(sessions.revokedAt)));
    await tx
      .update(trustedDevices)
      .set({ revokedAt: new Date() })
      .where(and(eq(trustedDevices.userId, user.id), isNull(trustedDevices.revokedAt)));
    await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt)));
    await appendAuditEvent({ ...ctx, db: tx, user: null }, { action: 'user.password_reset', data: { userId: user.id, userName: user.name } });
    // The link reached this address (links sent to a former address ended when it changed), so it proves the address too.
    const via = isFirstPassword ? 'invitation' : 'email_link';
    if (await markEmailVerified(tx, user.id, user.email, via)) {
      await appendAuditEvent({ ...ctx, db: tx, user: null }, { action: 'user.email_verified', data: { userId: user.id, userName: user.name, via } });
    }
    // Choosing the first password is no change to warn about.
    if (!isFirstPassword) {
      await queueEmail(tx, {
        to: user.email,
        kind: 'password_changed',
        ...mailTemplates.passwordChanged.render({ name: user.name }),
      });
    }
    return user.id;
  });
  await ctx.sessionCache.invalidateUser(userId);
  return { ok: true, message: passwordResetMessages.updated };
}
