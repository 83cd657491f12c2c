import { and, eq, isNull } from 'drizzle-orm';
import { sessions, trustedDevices, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

/** An administrator sets a user's password: every session of that user ends; the act is audited. */
export async function setUserPassword(ctx: Ctx, userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await ctx.db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({ passwordHash, updatedAt: new Date() })
      .where(eq(users.id, userId))
      .returning({ id: users.id, name: users.name });
    if (!user) throw notFound('No user with that id.');
    await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
    await tx
      .update(trustedDevices)
      .set({ revokedAt: new Date() })
      .where(and(eq(trustedDevices.userId, userId), isNull(trustedDevices.revokedAt)));
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'user.password_set_by_admin', data: { userId, userName: user.name } });
  });
  await ctx.sessionCache.invalidateUser(userId);
}
