import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { InviteSummary } from '#shared/invites.ts';
import { inviteMessages } from '#shared/invites.ts';
import type { RegisterResponse } from '#shared/auth.ts';
import { getUserRoles } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueParticipantInvite } from '#server/features/jobs/participants.service.ts';
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
  const [job] = invite.jobId ? await ctx.db.select({ title: jobs.title }).from(jobs).where(eq(jobs.id, invite.jobId)).limit(1) : [];
  return {
    purpose: invite.purpose,
    roles: getUserRoles({ roles: invite.roles }),
    email: invite.email,
    expiresAt: invite.expiresAt.toISOString(),
    jobId: invite.jobId,
    jobTitle: job?.title ?? null,
    hasAccount: invite.email ? (await findUserByEmail(ctx.db, invite.email)) !== null : false,
  };
}

/** Links the participant of a job invitation to an account, with an audit event on the job. */
async function linkParticipant(ctx: Ctx & { db: DbOrTx }, invite: typeof invites.$inferSelect, userId: string): Promise<void> {
  if (invite.purpose !== 'job_participant' || !invite.participantId || !invite.jobId) return;
  await ctx.db.update(jobParticipants).set({ userId }).where(eq(jobParticipants.id, invite.participantId));
  await appendAuditEvent(ctx, { jobId: invite.jobId, action: 'invite.claimed', data: { participantId: invite.participantId, userId } });
}

/** A signed-in person accepts a job invitation sent to their own email address. */
export async function acceptInvite(ctx: Ctx, token: string): Promise<{ jobId: string | null }> {
  const user = ctx.user;
  if (!user) throw invalidInvite();
  return ctx.db.transaction(async (tx) => {
    const invite = await findLiveInvite(tx, token);
    if (!invite || invite.purpose !== 'job_participant') throw invalidInvite();
    if (invite.email !== user.email) {
      throw new AppError(403, 'invite_email_mismatch', 'This invitation was sent to a different email address. Sign in with that account to accept it.');
    }
    const claimed = await tx
      .update(invites)
      .set({ usedAt: new Date(), usedBy: user.id })
      .where(and(eq(invites.id, invite.id), isNull(invites.usedAt)))
      .returning({ id: invites.id });
    if (claimed.length === 0) throw invalidInvite();
    await linkParticipant({ ...ctx, db: tx }, invite, user.id);
    return { jobId: invite.jobId };
  });
}

/**
 * Someone whose link expired asks again: every open job that invited this email (and was not yet
 * accepted) sends a fresh link. The answer never tells whether anything matched.
 */
export async function requestAccess(ctx: Ctx, email: string): Promise<{ ok: true; message: string }> {
  const perAddress = await hitRateLimit(ctx.db, `request-access:address:${ctx.ipAddress}`, 3600_000);
  if (perAddress.count > 10) throwRateLimited('access requests from this network', perAddress.resetAt);
  const perEmail = await hitRateLimit(ctx.db, `request-access:email:${email}`, 3600_000);
  if (perEmail.count > 3) throwRateLimited('access requests for this email', perEmail.resetAt);
  await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .select({ participant: jobParticipants, job: jobs })
      .from(jobParticipants)
      .innerJoin(jobs, eq(jobs.id, jobParticipants.jobId))
      .where(and(eq(jobParticipants.email, email), isNull(jobParticipants.userId), inArray(jobs.status, ['draft', 'ready', 'scheduled', 'in_session'])));
    for (const { participant, job } of rows) {
      await queueParticipantInvite({ ...ctx, db: tx }, job, participant, { isReminder: true });
      await appendAuditEvent({ ...ctx, db: tx }, { jobId: job.id, action: 'participant.access_requested', data: { participantId: participant.id } });
    }
  });
  return { ok: true, message: 'If that email was invited to a job, a new link is on its way.' };
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
      await linkParticipant({ ...ctx, db: tx, user: toSessionUser(user) }, invite, user.id);
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
