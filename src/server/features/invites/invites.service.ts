import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { InviteSummary } from '#shared/invites.ts';
import { inviteMessages } from '#shared/invites.ts';
import type { RegisterResponse } from '#shared/auth.ts';
import { getUserRoles } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashPassword, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict } from '#server/lib/errors.ts';
import { createSession } from '#server/features/auth/sessions.service.ts';
import { findUserByEmail, isUniqueViolation, toSessionUser } from '#server/features/auth/users.ts';
import type { SignedIn } from '#server/features/auth/auth.service.ts';

const bootstrapLifetimeMs = 24 * 3600_000;

const invalidInvite = () => new AppError(404, 'invite_invalid', inviteMessages.invalid);

async function hasAdmin(db: DbOrTx): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).where(sql`'admin' = any(${users.roles})`).limit(1);
  return rows.length > 0;
}

/**
 * On a database with no administrator, issues a fresh one-time link to create the first one
 * (any earlier unused link stops working). Returns null once an administrator exists.
 */
export async function issueBootstrapInvite(db: DbOrTx, publicUrl: string): Promise<{ url: string; expiresAt: Date } | null> {
  if (await hasAdmin(db)) return null;
  const token = createToken();
  const expiresAt = new Date(Date.now() + bootstrapLifetimeMs);
  await db.transaction(async (tx) => {
    await tx
      .update(invites)
      .set({ revokedAt: new Date() })
      .where(and(eq(invites.purpose, 'bootstrap_admin'), isNull(invites.usedAt), isNull(invites.revokedAt)));
    await tx.insert(invites).values({ tokenHash: hashToken(token), purpose: 'bootstrap_admin', roles: ['admin'], expiresAt });
  });
  return { url: `${publicUrl}/claim/${token}`, expiresAt };
}

async function findLiveInvite(db: DbOrTx, token: string) {
  if (token.length < 20 || token.length > 200) return null;
  const rows = await db
    .select()
    .from(invites)
    .where(and(eq(invites.tokenHash, hashToken(token)), isNull(invites.usedAt), isNull(invites.revokedAt), gt(invites.expiresAt, new Date())))
    .limit(1);
  return rows[0] ?? null;
}

export async function getInvite(ctx: Ctx, token: string): Promise<InviteSummary> {
  const invite = await findLiveInvite(ctx.db, token);
  if (!invite) throw invalidInvite();
  // The claim refuses a bootstrap link once an administrator exists, so the summary must not offer it.
  if (invite.purpose === 'bootstrap_admin' && (await hasAdmin(ctx.db))) throw invalidInvite();
  return { purpose: invite.purpose, roles: getUserRoles({ roles: invite.roles }), email: invite.email, expiresAt: invite.expiresAt.toISOString() };
}

/** Turns a live invitation into an account with the invitation's roles, once. */
export async function claimInvite(
  ctx: Ctx,
  token: string,
  input: { name: string; email: string; password: string },
): Promise<{ response: RegisterResponse; signedIn: SignedIn }> {
  const passwordHash = await hashPassword(input.password);
  let created;
  try {
    created = await ctx.db.transaction(async (tx) => {
      const invite = await findLiveInvite(tx, token);
      if (!invite) throw invalidInvite();
      const claimed = await tx
        .update(invites)
        .set({ usedAt: new Date() })
        .where(and(eq(invites.id, invite.id), isNull(invites.usedAt)))
        .returning({ id: invites.id });
      if (claimed.length === 0) throw invalidInvite();
      if (invite.purpose === 'bootstrap_admin' && (await hasAdmin(tx))) throw invalidInvite();
      if (invite.email && invite.email !== input.email) {
        throw new AppError(400, 'invite_email_mismatch', 'This invitation was sent to a different email address.');
      }
      if (await findUserByEmail(tx, input.email)) throw conflict('An account with this email already exists. Sign in instead.');
      const [user] = await tx
        .insert(users)
        .values({ email: input.email, name: input.name, passwordHash, roles: invite.roles, status: 'active' })
        .returning();
      if (!user) throw new Error('user insert returned no row');
      await tx.update(invites).set({ usedBy: user.id }).where(eq(invites.id, invite.id));
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('An account with this email already exists. Sign in instead.');
    throw error;
  }
  const session = await createSession(ctx, created.id);
  const user = toSessionUser(created);
  ctx.log.info({ event: 'invite.claimed', userId: created.id }, 'invitation claimed');
  return {
    signedIn: { user, token: session.token, expiresAt: session.expiresAt },
    response: { user, sessionToken: session.token, pendingApproval: false, message: 'Your account is ready.' },
  };
}
