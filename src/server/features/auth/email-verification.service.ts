import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { emailVerificationMessages } from '#shared/auth.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { emailVerificationTokens, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict, tooManyRequests, unauthorized } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { hitRateLimit, secondsUntil, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

const linkLifetimeMs = 24 * 3600_000;
const resendCooldownMs = 60_000;
const resendsPerHour = 5;

export type EmailVerificationVia = NonNullable<typeof users.$inferSelect.emailVerifiedVia>;

const invalidLink = () => new AppError(400, 'invalid_token', emailVerificationMessages.invalidLink);

/**
 * Issues a single-use, 24-hour confirmation link for the account's current address (earlier unused
 * links stop working) and queues the email, inside the caller's transaction.
 */
export async function queueEmailVerification(ctx: Pick<Ctx, 'config'> & { db: DbOrTx }, user: { id: string; email: string; name: string }): Promise<void> {
  const token = createToken();
  await ctx.db
    .update(emailVerificationTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(emailVerificationTokens.userId, user.id), isNull(emailVerificationTokens.usedAt)));
  await ctx.db.insert(emailVerificationTokens).values({
    userId: user.id,
    email: user.email,
    tokenHash: hashToken(token),
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + linkLifetimeMs),
  });
  await queueEmail(ctx.db, {
    to: user.email,
    kind: 'email_verification',
    ...mailTemplates.emailVerification.render({ name: user.name, link: `${ctx.config.publicUrl}/verify-email/${token}` }),
  });
}

/**
 * Records that the account proved its address, once; a no-op when it already had, or when the
 * account's address is no longer the one proved. Returns whether anything changed.
 */
export async function markEmailVerified(db: DbOrTx, userId: string, email: string, via: EmailVerificationVia): Promise<boolean> {
  const changed = await db
    .update(users)
    .set({ emailVerifiedAt: new Date(), emailVerifiedVia: via, updatedAt: new Date() })
    .where(and(eq(users.id, userId), eq(users.email, email), isNull(users.emailVerifiedAt)))
    .returning({ id: users.id });
  return changed.length > 0;
}

/** Confirms the address a link was sent to. Needs no session: the link is the proof. */
export async function verifyEmail(ctx: Ctx, token: string): Promise<{ ok: true; message: string }> {
  const guesses = await hitRateLimit(ctx.db, `verify-email:address:${ctx.ipAddress}`, 3600_000);
  if (guesses.count > 60) throwRateLimited('confirmation link checks from this network', guesses.resetAt);
  if (token.length < 20) throw invalidLink();
  const userId = await ctx.db.transaction(async (tx) => {
    const [used] = await tx
      .update(emailVerificationTokens)
      .set({ usedAt: new Date() })
      .where(
        and(eq(emailVerificationTokens.tokenHash, hashToken(token)), isNull(emailVerificationTokens.usedAt), gt(emailVerificationTokens.expiresAt, sql`now()`)),
      )
      .returning({ userId: emailVerificationTokens.userId, email: emailVerificationTokens.email });
    if (!used) throw invalidLink();
    const [user] = await tx
      .select({ name: users.name, email: users.email, emailVerifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.id, used.userId));
    // A link for an address the account no longer has proves nothing about the current one.
    if (!user || user.email !== used.email) throw invalidLink();
    if (await markEmailVerified(tx, used.userId, used.email, 'email_link')) {
      await appendAuditEvent(
        { ...ctx, db: tx, user: null },
        { action: 'user.email_verified', data: { userId: used.userId, userName: user.name, via: 'email_link' } },
      );
    }
    await tx
      .update(emailVerificationTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(emailVerificationTokens.userId, used.userId), isNull(emailVerificationTokens.usedAt)));
    return used.userId;
  });
  // Sessions already open (other tabs, other instances) see the confirmed address at once.
  await ctx.sessionCache.invalidateUser(userId);
  return { ok: true, message: emailVerificationMessages.confirmed };
}

/** Sends the signed-in person a fresh confirmation link: one a minute, five an hour. */
export async function resendEmailVerification(ctx: Ctx): Promise<{ ok: true; message: string }> {
  const sessionUser = ctx.user;
  if (!sessionUser) throw unauthorized();
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`verify-email:${sessionUser.id}`}))`);
    const [user] = await tx.select().from(users).where(eq(users.id, sessionUser.id));
    if (!user) throw unauthorized();
    if (user.emailVerifiedAt) throw conflict(emailVerificationMessages.alreadyConfirmed);
    const [latest] = await tx
      .select({ createdAt: emailVerificationTokens.createdAt })
      .from(emailVerificationTokens)
      .where(eq(emailVerificationTokens.userId, user.id))
      .orderBy(desc(emailVerificationTokens.createdAt))
      .limit(1);
    if (latest && Date.now() - latest.createdAt.getTime() < resendCooldownMs) {
      const seconds = secondsUntil(new Date(latest.createdAt.getTime() + resendCooldownMs));
      throw tooManyRequests(`A confirmation link was sent less than a minute ago. Please wait ${seconds} seconds before asking for another.`, seconds);
    }
    const hourly = await hitRateLimit(tx, `verify-email:user:${user.id}`, 3600_000);
    if (hourly.count > resendsPerHour) throwRateLimited('confirmation links requested', hourly.resetAt);
    await queueEmailVerification({ ...ctx, db: tx }, user);
  });
  return { ok: true, message: emailVerificationMessages.sent(sessionUser.email) };
}
