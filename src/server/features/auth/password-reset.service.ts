import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import { passwordResetMessages } from '#shared/mfa.ts';
import { toSingleLine } from '#shared/text.ts';
import { passwordResetTokens, sessions, trustedDevices, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashPassword, hashToken } from '#server/lib/crypto.ts';
import { AppError } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findUserByEmail, normalizeEmail } from './users.ts';

const resetLifetimeMs = 3600_000;
const invalidLink = () => new AppError(400, 'invalid_token', passwordResetMessages.invalidLink);

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
    const token = createToken();
    const link = `${ctx.config.publicUrl}/login?resetToken=${token}`;
    await ctx.db.transaction(async (tx) => {
      await tx.insert(passwordResetTokens).values({ userId: user.id, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + resetLifetimeMs) });
      await queueEmail(tx, {
        to: user.email,
        kind: 'password_reset',
        subject: 'Reset your Open RON password',
        text: [
          `Hello ${toSingleLine(user.name)},`,
          '',
          'Someone asked to reset the password of your Open RON account. To choose a new password, open this link within one hour:',
          '',
          link,
          '',
          'The link works once. If you did not ask for it, ignore this email: your password stays as it is.',
        ].join('\n'),
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
    // A link sent before the account was rejected or disabled opens nothing: it could not sign in.
    const [user] = await tx
      .update(users)
      .set({ passwordHash, updatedAt: new Date() })
      .where(and(eq(users.id, row.userId), inArray(users.status, ['active', 'pending'])))
      .returning();
    if (!user) throw invalidLink();
    await tx.update(sessions).set({ revokedAt: new Date() }).where(and(eq(sessions.userId, user.id), isNull(sessions.revokedAt)));
    await tx.update(trustedDevices).set({ revokedAt: new Date() }).where(and(eq(trustedDevices.userId, user.id), isNull(trustedDevices.revokedAt)));
    await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt)));
    await appendAuditEvent({ ...ctx, db: tx, user: null }, { action: 'user.password_reset', data: { userId: user.id, userName: user.name } });
    await queueEmail(tx, {
      to: user.email,
      kind: 'password_changed',
      subject: 'Your Open RON password was changed',
      text: `Hello ${toSingleLine(user.name)},\n\nThe password of your Open RON account was just changed with a reset link, and every signed-in device was signed out.\nIf this was not you, contact your administrator at once.`,
    });
    return user.id;
  });
  await ctx.sessionCache.invalidateUser(userId);
  return { ok: true, message: passwordResetMessages.updated };
}
