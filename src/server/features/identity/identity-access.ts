import { eq } from 'drizzle-orm';
import { policyFor, type IdentityPolicy } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { identityChecks, jobParticipants, jobs, notaryProfiles } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashToken, isEqualSecret } from '#server/lib/crypto.ts';
import { AppError, forbidden, notFound } from '#server/lib/errors.ts';
import type { JobRow, ParticipantRow } from '#server/features/jobs/job-access.ts';

export type CheckRow = typeof identityChecks.$inferSelect;

/** Who is looking at a check: the person proving their identity (signed in, or by the phone's resume link), the job's notary, or an admin. */
export type ViewerKind = 'owner' | 'notary' | 'admin';

export interface CheckAccess {
  viewer: ViewerKind;
  check: CheckRow;
  job: JobRow;
  participant: ParticipantRow;
  policy: IdentityPolicy;
  /** The signed-in user, null on a phone that came by the resume link. */
  userId: string | null;
}

export const checkNotFound = () => notFound('No identity check with that id, or you may not see it.');

/** The policy of a job: its notary's commissioning state, the RULONA default without one. */
export async function policyOfJob(db: DbOrTx, job: Pick<JobRow, 'notaryId'>): Promise<IdentityPolicy> {
  if (!job.notaryId) return policyFor(null);
  const [profile] = await db.select({ state: notaryProfiles.commissionState }).from(notaryProfiles).where(eq(notaryProfiles.userId, job.notaryId)).limit(1);
  return policyFor(profile?.state ?? null);
}

/** Does the participant's role take the identity step under this policy? */
export function mustProveIdentity(role: string, policy: IdentityPolicy): boolean {
  return role === 'signer' || (role === 'witness' && policy.witnessesProveIdentity);
}

/**
 * Finds a check and who is asking. A resume token stands for the owner of the one check it was made
 * for, and only until it expires; anyone else who is not the job's notary or an admin gets 404.
 */
export async function getCheckAccess(ctx: Ctx, checkId: string, resumeToken: string | null, options: { forUpdate?: boolean } = {}): Promise<CheckAccess> {
  if (!/^[0-9a-f-]{36}$/i.test(checkId)) throw checkNotFound();
  const query = ctx.db.select().from(identityChecks).where(eq(identityChecks.id, checkId)).limit(1);
  const [check] = options.forUpdate ? await query.for('update') : await query;
  if (!check) throw checkNotFound();
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, check.jobId)).limit(1);
  const [participant] = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.id, check.jobParticipantId)).limit(1);
  if (!job || !participant) throw checkNotFound();
  const policy = await policyOfJob(ctx.db, job);
  const user = ctx.user;
  let viewer: ViewerKind | null = null;
  if (resumeToken) {
    const isValid = Boolean(check.resumeTokenHash && isEqualSecret(check.resumeTokenHash, hashToken(resumeToken)));
    if (!isValid) throw checkNotFound();
    // The link stands for the person who started the check: once the row holds someone else, it opens nothing.
    if (!check.userId || check.userId !== participant.userId) throw checkNotFound();
    if (!check.resumeExpiresAt || check.resumeExpiresAt.getTime() <= Date.now()) throw resumeExpired();
    viewer = 'owner';
  } else if (user && !ctx.isMfaPending) {
    if (check.userId === user.id && participant.userId === user.id) viewer = 'owner';
    else if (job.notaryId === user.id) viewer = 'notary';
    else if (user.roles.includes('admin')) viewer = 'admin';
  }
  if (!viewer) {
    if (!user && !resumeToken) throw new AppError(401, 'unauthorized', 'Please sign in to continue.');
    throw checkNotFound();
  }
  return { viewer, check, job, participant, policy, userId: user?.id ?? null };
}

export const resumeExpired = () => new AppError(410, 'link_expired', 'This link has expired. Open a new one from your computer.');

export function requireOwner(access: CheckAccess): void {
  if (access.viewer !== 'owner') throw forbidden('Only the person proving their identity does this step.');
}
