import { and, eq, isNull } from 'drizzle-orm';
import { emailVerificationMessages } from '#shared/auth.ts';
import type { JobInvitation } from '#shared/invites.ts';
import { invites, jobParticipants, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, unauthorized } from '#server/lib/errors.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { findEmailInvitations } from '#server/features/jobs/job-invitations.ts';
import { linkParticipant } from './invites.service.ts';

const noInvitation = () => new AppError(404, 'invite_invalid', 'There is no open invitation for your email address on this job.');

/**
 * What the job invites the signed-in person to do, when it invited their confirmed address; null
 * when it did not but they may see the job; 404 otherwise.
 */
export async function getJobInvitation(ctx: Ctx, jobId: string): Promise<JobInvitation | null> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const [invitation] = await findEmailInvitations(ctx.db, user.id, { jobId });
  if (!invitation) {
    // Every job page asks: someone who sees the job and has no invitation is told so, not refused.
    // Anyone else still gets 404, never a hint that the job exists.
    const canSeeJob = await getJobAccess(ctx, jobId).then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError && error.statusCode === 404) return false;
        throw error;
      },
    );
    if (!canSeeJob) throw noInvitation();
    return null;
  }
  const { job, participant } = invitation;
  return { jobId: job.id, jobTitle: job.title, role: participant.role, participantName: participant.name, status: job.status };
}

/**
 * Accepts a job's invitation without the emailed link: the account confirmed the address the
 * invitation went to, which is what opening the link proves. The participant is linked through the
 * same step as the link (linkParticipant), and the emailed links stop working. Accepting again is a
 * no-op; an unconfirmed account gets 403 and nothing changes.
 */
export async function acceptJobInvitation(ctx: Ctx, jobId: string): Promise<{ jobId: string }> {
  const sessionUser = ctx.user;
  if (!sessionUser) throw unauthorized();
  return ctx.db.transaction(async (tx) => {
    const [user] = await tx.select({ email: users.email, emailVerifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, sessionUser.id));
    if (!user?.emailVerifiedAt) throw new AppError(403, 'email_not_verified', emailVerificationMessages.notConfirmed);
    const [alreadyLinked] = await tx
      .select({ id: jobParticipants.id })
      .from(jobParticipants)
      .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.userId, sessionUser.id), eq(jobParticipants.email, user.email)))
      .limit(1);
    if (alreadyLinked) return { jobId };
    const [invitation] = await findEmailInvitations(tx, sessionUser.id, { jobId, forUpdate: true });
    if (!invitation) throw noInvitation();
    const { participant } = invitation;
    await tx
      .update(invites)
      .set({ usedAt: new Date(), usedBy: sessionUser.id })
      .where(and(eq(invites.participantId, participant.id), isNull(invites.usedAt), isNull(invites.revokedAt)));
    await linkParticipant({ ...ctx, db: tx }, { purpose: 'job_participant', participantId: participant.id, jobId, email: user.email }, sessionUser.id, {
      via: 'confirmed_email',
    });
    return { jobId };
  });
}
