import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { InviteSummary } from '#shared/invites.ts';
import { inviteMessages } from '#shared/invites.ts';
import type { RegisterResponse } from '#shared/auth.ts';
import { getUserRoles } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, jobParticipants, jobs, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { assertNotaryNotAmong } from '#server/features/jobs/notary-conflict.ts';
import { joinCompanyByInvite, lockCompanyBeforeJoining } from '#server/features/title-companies/company-agents.service.ts';
import { queueParticipantInvite } from '#server/features/jobs/participants.service.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashPassword, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict } from '#server/lib/errors.ts';
import { markEmailVerified, queueEmailVerification } from '#server/features/auth/email-verification.service.ts';
import { findUserByEmail, isUniqueViolation, toSessionUser } from '#server/features/auth/users.ts';
import { startNewAccountSession, type SignedIn } from '#server/features/auth/auth.service.ts';

const bootstrapLifetimeMs = 24 * 3600_000;

const invalidInvite = () => new AppError(404, 'invite_invalid', inviteMessages.invalid);

async function hasAdmin(db: DbOrTx): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`'admin' = any(${users.roles})`)
    .limit(1);
  return rows.length > 0;
}

/** Where start-up writes the first-administrator link, inside DATA_DIR (0600), instead of printing it. */
export const firstAdminLinkFileName = 'first-admin-link.txt';

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

/**
 * Whether opening this link proves the invitee's address: only when the link was emailed to it. A
 * reminder sent elsewhere (emailOverride) lets its reader join the job, not claim the address.
 */
function provesInvitedAddress(invite: Pick<typeof invites.$inferSelect, 'email' | 'sentTo'>): boolean {
  return invite.email !== null && invite.sentTo === invite.email;
}

/** Jobs whose participants may still join; a completed or cancelled job takes no one new. */
const openJobStatuses = ['draft', 'ready', 'scheduled', 'in_session'] as const;

/**
 * An unused, unrevoked, unexpired invitation; for a job invitation, only while the job is open; for
 * a company invitation, only while the company is approved and not closed.
 */
async function findLiveInvite(db: DbOrTx, token: string) {
  if (token.length < 20 || token.length > 200) return null;
  const rows = await db
    .select({
      invite: invites,
      jobStatus: jobs.status,
      company: { name: titleCompanies.name, approvalStatus: titleCompanies.approvalStatus, closedAt: titleCompanies.closedAt },
    })
    .from(invites)
    .leftJoin(jobs, eq(jobs.id, invites.jobId))
    .leftJoin(titleCompanies, eq(titleCompanies.id, invites.companyId))
    .where(and(eq(invites.tokenHash, hashToken(token)), isNull(invites.usedAt), isNull(invites.revokedAt), gt(invites.expiresAt, new Date())))
    .limit(1);
  const [row] = rows;
  if (!row) return null;
  if (row.invite.jobId && !(openJobStatuses as readonly string[]).includes(row.jobStatus ?? '')) return null;
  if (row.invite.purpose === 'company_member' && (!row.company || row.company.closedAt || row.company.approvalStatus !== 'approved')) return null;
  return { ...row.invite, companyName: row.company?.name ?? null };
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
    companyId: invite.purpose === 'company_member' ? invite.companyId : null,
    companyName: invite.purpose === 'company_member' ? invite.companyName : null,
    hasAccount: invite.email ? (await findUserByEmail(ctx.db, invite.email)) !== null : false,
  };
}

/**
 * Links the participant of a job invitation to an account, with an audit event on the job. Both the
 * emailed link and a confirmed address (email-invitations.service.ts) accept through here.
 */
export async function linkParticipant(
  ctx: Ctx & { db: DbOrTx },
  invite: Pick<typeof invites.$inferSelect, 'purpose' | 'participantId' | 'jobId' | 'email'>,
  userId: string,
  auditData: Record<string, unknown> = {},
): Promise<void> {
  if (invite.purpose !== 'job_participant' || !invite.participantId || !invite.jobId) return;
  const [job] = await ctx.db.select({ notaryId: jobs.notaryId }).from(jobs).where(eq(jobs.id, invite.jobId)).limit(1);
  await assertNotaryNotAmong(ctx.db, job?.notaryId ?? null, [{ userId, email: invite.email ?? '' }]);
  const [participant] = await ctx.db
    .update(jobParticipants)
    .set({ userId })
    .where(eq(jobParticipants.id, invite.participantId))
    .returning({ name: jobParticipants.name });
  // Other links to the same seat (a re-sent one, a request-access one) stop working once one is used.
  await ctx.db
    .update(invites)
    .set({ revokedAt: new Date() })
    .where(and(eq(invites.participantId, invite.participantId), isNull(invites.usedAt), isNull(invites.revokedAt)));
  await appendAuditEvent(ctx, {
    jobId: invite.jobId,
    action: 'invite.claimed',
    data: { participantId: invite.participantId, participantName: participant?.name ?? null, userId, ...auditData },
  });
}

/** The job of a link this user already used, while its seat is still theirs; null otherwise. */
async function findJobAcceptedWith(db: DbOrTx, token: string, userId: string): Promise<string | null> {
  if (token.length < 20 || token.length > 200) return null;
  const [row] = await db
    .select({ jobId: jobParticipants.jobId })
    .from(invites)
    .innerJoin(jobParticipants, eq(jobParticipants.id, invites.participantId))
    .where(and(eq(invites.tokenHash, hashToken(token)), eq(invites.usedBy, userId), eq(jobParticipants.userId, userId)))
    .limit(1);
  return row?.jobId ?? null;
}

/** The company of a company invitation this user already used, while they are still its member; null otherwise. */
async function findCompanyJoinedWith(db: DbOrTx, token: string, userId: string): Promise<string | null> {
  if (token.length < 20 || token.length > 200) return null;
  const [row] = await db
    .select({ companyId: titleCompanyMembers.companyId })
    .from(invites)
    .innerJoin(titleCompanyMembers, and(eq(titleCompanyMembers.companyId, invites.companyId), eq(titleCompanyMembers.userId, userId)))
    .where(and(eq(invites.tokenHash, hashToken(token)), eq(invites.usedBy, userId), eq(invites.purpose, 'company_member')))
    .limit(1);
  return row?.companyId ?? null;
}

/**
 * A signed-in person accepts an invitation sent to their own email address: a seat on a job, or
 * (company_member) a place in a title company, with its role on their account.
 */
export async function acceptInvite(ctx: Ctx, token: string): Promise<{ jobId: string | null; companyId?: string }> {
  const user = ctx.user;
  if (!user) throw invalidInvite();
  const accepted = await ctx.db.transaction(async (tx) => {
    const invite = await findLiveInvite(tx, token);
    if (!invite) {
      // The same person tapping again after the answer was lost: they are on the job, or in the company, already.
      const jobId = await findJobAcceptedWith(tx, token, user.id);
      if (jobId) return { jobId, companyId: null, isNewlyVerified: false, hasJoinedCompany: false };
      const companyId = await findCompanyJoinedWith(tx, token, user.id);
      if (companyId) return { jobId: null, companyId, isNewlyVerified: false, hasJoinedCompany: false };
    }
    if (!invite || (invite.purpose !== 'job_participant' && invite.purpose !== 'company_member')) throw invalidInvite();
    if (invite.email !== user.email) {
      throw new AppError(403, 'invite_email_mismatch', 'This invitation was sent to a different email address. Sign in with that account to accept it.');
    }
    await lockCompanyBeforeJoining({ ...ctx, db: tx }, invite);
    const claimed = await tx
      .update(invites)
      .set({ usedAt: new Date(), usedBy: user.id })
      .where(and(eq(invites.id, invite.id), isNull(invites.usedAt), isNull(invites.revokedAt)))
      .returning({ id: invites.id });
    if (claimed.length === 0) throw invalidInvite();
    const companyId = invite.purpose === 'company_member' ? await joinCompanyByInvite({ ...ctx, db: tx }, invite, user) : null;
    await linkParticipant({ ...ctx, db: tx }, invite, user.id);
    // The link went to this address and the person opened it: that proves the address.
    const isNewlyVerified = provesInvitedAddress(invite) && (await markEmailVerified(tx, user.id, user.email, 'invitation'));
    return { jobId: invite.jobId, companyId, isNewlyVerified, hasJoinedCompany: companyId !== null };
  });
  // Joining a company adds a role and the company's jobs: the session is read again and open tabs refresh.
  if (accepted.isNewlyVerified || accepted.hasJoinedCompany) await ctx.sessionCache.invalidateUser(user.id);
  if (accepted.hasJoinedCompany) await announceToUsers(ctx, [user.id], { type: 'access-changed' });
  return { jobId: accepted.jobId, ...(accepted.companyId ? { companyId: accepted.companyId } : {}) };
}

/**
 * Someone whose link expired asks again: every open job that invited this email (and was not yet
 * accepted) sends a fresh link to that address. Earlier links keep working until one of them is
 * used, so a stranger typing someone's address cannot cancel their invitation. The answer (and the
 * rate limit) never tells whether anything matched.
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
      .where(and(eq(jobParticipants.email, email), isNull(jobParticipants.userId), inArray(jobs.status, [...openJobStatuses])));
    for (const { participant, job } of rows) {
      await queueParticipantInvite({ ...ctx, db: tx }, job, participant, { isReminder: true, keepsEarlierLinks: true });
      await appendAuditEvent(
        { ...ctx, db: tx },
        { jobId: job.id, action: 'participant.access_requested', data: { participantId: participant.id, name: participant.name } },
      );
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
      await lockCompanyBeforeJoining({ ...ctx, db: tx }, invite);
      const claimed = await tx
        .update(invites)
        .set({ usedAt: new Date() })
        .where(and(eq(invites.id, invite.id), isNull(invites.usedAt), isNull(invites.revokedAt)))
        .returning({ id: invites.id });
      if (claimed.length === 0) throw invalidInvite();
      if (invite.purpose === 'bootstrap_admin' && (await hasAdmin(tx))) throw invalidInvite();
      if (invite.email && invite.email !== input.email) {
        throw new AppError(400, 'invite_email_mismatch', 'This invitation was sent to a different email address.');
      }
      if (await findUserByEmail(tx, input.email)) throw conflict('An account with this email already exists. Sign in instead.');
      // The invitation link went to this address (or, for the first administrator, came from the operator);
      // a link emailed elsewhere proves nothing about the address, which is then confirmed by a link of its own.
      const isAddressProven = invite.email === null || provesInvitedAddress(invite);
      const [user] = await tx
        .insert(users)
        .values({
          email: input.email,
          name: input.name,
          passwordHash,
          roles: invite.roles,
          status: 'active',
          emailVerifiedAt: isAddressProven ? new Date() : null,
          emailVerifiedVia: isAddressProven ? (invite.email ? 'invitation' : 'operator') : null,
        })
        .returning();
      if (!user) throw new Error('user insert returned no row');
      if (!isAddressProven) await queueEmailVerification({ ...ctx, db: tx }, user);
      await tx.update(invites).set({ usedBy: user.id }).where(eq(invites.id, invite.id));
      const userCtx = { ...ctx, db: tx, user: toSessionUser(user) };
      if (invite.purpose === 'company_member') await joinCompanyByInvite(userCtx, invite, user);
      await linkParticipant(userCtx, invite, user.id);
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('An account with this email already exists. Sign in instead.');
    throw error;
  }
  ctx.log.info({ event: 'invite.claimed', userId: created.id }, 'invitation claimed');
  // An administrator (or any role in MFA_REQUIRED_ROLES) must still set up a second factor.
  const { response, signedIn } = await startNewAccountSession(ctx, created);
  return { signedIn, response: { ...response, pendingApproval: false, message: 'Your account is ready.' } };
}
