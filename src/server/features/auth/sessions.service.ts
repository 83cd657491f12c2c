import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { SessionUser } from '#shared/auth.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { sessions, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import type { SessionCache } from '#server/lib/session-cache.ts';
import { toSessionUser } from './users.ts';

export const sessionCookieName = 'ron_session';

export interface ResolvedSession {
  sessionId: string;
  isMfaPending: boolean;
  user: SessionUser;
}

/** A session between password and second factor lives ten minutes. */
export const mfaPendingLifetimeMs = 10 * 60_000;

/** Issues a new 256-bit session token; only its SHA-256 is stored. */
export async function createSession(
  ctx: Pick<Ctx, 'db' | 'config' | 'ipAddress' | 'userAgent'>,
  userId: string,
  options: { isMfaPending?: boolean } = {},
): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
  const token = createToken();
  const isMfaPending = options.isMfaPending ?? false;
  const expiresAt = new Date(Date.now() + (isMfaPending ? mfaPendingLifetimeMs : ctx.config.session.ttlMs));
  const [row] = await ctx.db
    .insert(sessions)
    .values({
      userId,
      tokenHash: hashToken(token),
      expiresAt,
      isMfaPending,
      ipAddress: ctx.ipAddress,
      userAgent: ctx.userAgent?.slice(0, 400) ?? null,
    })
    .returning({ id: sessions.id });
  if (!row) throw new Error('session insert returned no row');
  return { token, sessionId: row.id, expiresAt };
}

/** Finds the live session of a bearer or cookie token: the cache first, then the database. */
export async function resolveSession(db: DbOrTx, cache: SessionCache, token: string): Promise<ResolvedSession | null> {
  if (token.length < 20 || token.length > 200) return null;
  const tokenHash = hashToken(token);
  const cached = cache.get(tokenHash);
  if (cached) return { sessionId: cached.sessionId, isMfaPending: cached.isMfaPending, user: cached.user };
  const rows = await db
    .select({ sessionId: sessions.id, expiresAt: sessions.expiresAt, isMfaPending: sessions.isMfaPending, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date())))
    .limit(1);
  const row = rows[0];
  if (!row || row.user.status === 'disabled' || row.user.status === 'rejected') return null;
  const user = toSessionUser(row.user);
  cache.set(tokenHash, { sessionId: row.sessionId, expiresAt: row.expiresAt.getTime(), isMfaPending: row.isMfaPending, user });
  return { sessionId: row.sessionId, isMfaPending: row.isMfaPending, user };
}

export async function revokeSessionByToken(ctx: Pick<Ctx, 'db' | 'sessionCache'>, token: string): Promise<void> {
  const tokenHash = hashToken(token);
  await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)));
  await ctx.sessionCache.invalidateToken(tokenHash);
}

/** Ends every session of a user (password reset, disabling an account), optionally keeping one. */
export async function revokeUserSessions(ctx: Pick<Ctx, 'db' | 'sessionCache'>, userId: string, keepSessionId?: string): Promise<void> {
  const conditions = [eq(sessions.userId, userId), isNull(sessions.revokedAt)];
  if (keepSessionId) conditions.push(ne(sessions.id, keepSessionId));
  await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(...conditions));
  await ctx.sessionCache.invalidateUser(userId);
}

/** Ends one session by id (a pending-MFA session after success or too many wrong codes). */
export async function revokeSessionById(ctx: Pick<Ctx, 'db' | 'sessionCache'>, sessionId: string): Promise<void> {
  const rows = await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)))
    .returning({ tokenHash: sessions.tokenHash });
  for (const row of rows) await ctx.sessionCache.invalidateToken(row.tokenHash);
}
