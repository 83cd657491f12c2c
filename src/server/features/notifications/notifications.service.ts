import { and, desc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { formatDateTime } from '#shared/dates.ts';
import { participantRoleVerbs } from '#shared/jobs.ts';
import type { PendingJobItem } from '#shared/notifications.ts';
import { jobParticipants, jobs, notificationDismissals, videoSessions } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { unauthorized } from '#server/lib/errors.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { findEmailInvitations } from '#server/features/jobs/job-invitations.ts';

const openStatuses = ['ready', 'scheduled', 'in_session'] as const;
const invitationKind = 'job_invitation';

/** What needs the person's attention: live sessions (blocking), scheduled ones, jobs ready for their notary. */
export async function findPendingJobs(ctx: Ctx): Promise<{ ok: true; items: PendingJobItem[]; has_blocking: boolean }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const rows = await ctx.db
    .selectDistinct({ job: jobs, participantRole: jobParticipants.role })
    .from(jobs)
    .leftJoin(jobParticipants, and(eq(jobParticipants.jobId, jobs.id), eq(jobParticipants.userId, user.id)))
    .where(and(inArray(jobs.status, openStatuses), or(eq(jobs.notaryId, user.id), eq(jobParticipants.userId, user.id))))
    .orderBy(desc(jobs.updatedAt))
    .limit(50);
  const dismissed = await ctx.db
    .select({ jobId: notificationDismissals.jobId, kind: notificationDismissals.kind })
    .from(notificationDismissals)
    .where(eq(notificationDismissals.userId, user.id));
  const isDismissed = new Set(dismissed.map((row) => `${row.jobId}:${row.kind}`));
  // A room the notary opened before starting the act: its people are expected in it now.
  const jobIds = rows.map(({ job }) => job.id);
  const openRooms = jobIds.length
    ? await ctx.db
        .select({ jobId: videoSessions.jobId })
        .from(videoSessions)
        .where(and(inArray(videoSessions.jobId, jobIds), ne(videoSessions.status, 'finalized')))
    : [];
  const hasOpenRoom = new Set(openRooms.map((row) => row.jobId));
  const items: PendingJobItem[] = (await findInvitationItems(ctx, user.id)).filter((item) => !isDismissed.has(`${item.jobId}:${item.kind}`));
  for (const { job } of rows) {
    const isNotary = job.notaryId === user.id;
    let item: Omit<PendingJobItem, 'jobId' | 'title' | 'at'>;
    if (job.status === 'in_session') {
      item = { kind: 'session_live', message: isNotary ? 'Your session is in progress.' : 'Your notarization session is live: join now.', isBlocking: true };
    } else if (hasOpenRoom.has(job.id)) {
      item = isNotary
        ? { kind: 'session_open', message: 'Your session room is open.', isBlocking: true }
        : { kind: 'session_open', message: 'The notary has opened the session room: enter now.', isBlocking: true };
    } else if (job.status === 'scheduled') {
      const when = job.scheduledAt ? formatDateTime(job.scheduledAt.toISOString(), { locale: 'en-US', timeZone: 'UTC' }) : 'a time to be confirmed';
      item = { kind: 'session_scheduled', message: `Session scheduled for ${when}.`, isBlocking: false };
    } else {
      item = isNotary
        ? { kind: 'ready_for_notary', message: 'A job is ready for you to notarize.', isBlocking: false }
        : { kind: 'job_ready', message: 'Your documents are ready: prove your identity before the session.', isBlocking: false };
    }
    if (isDismissed.has(`${job.id}:${item.kind}`)) continue;
    items.push({ ...item, jobId: job.id, title: job.title, at: job.updatedAt.toISOString() });
  }
  return { ok: true, items, has_blocking: items.some((item) => item.isBlocking) };
}

/** Invitations to the person's confirmed address that they have not accepted yet (decision 010). */
async function findInvitationItems(ctx: Ctx, userId: string): Promise<PendingJobItem[]> {
  const invitations = await findEmailInvitations(ctx.db, userId);
  return invitations.map(({ job, participant }) => ({
    jobId: job.id,
    title: job.title,
    kind: invitationKind,
    message: `You are invited to ${participantRoleVerbs[participant.role]} "${job.title}". Open it to accept.`,
    isBlocking: false,
    at: job.updatedAt.toISOString(),
  }));
}

export async function dismissNotification(ctx: Ctx, jobId: string, kind: string): Promise<{ ok: true }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const isOpenInvitation = kind === invitationKind && (await findEmailInvitations(ctx.db, user.id, { jobId })).length > 0;
  if (!isOpenInvitation) await getJobAccess(ctx, jobId);
  await ctx.db
    .insert(notificationDismissals)
    .values({ userId: user.id, jobId, kind })
    .onConflictDoUpdate({
      target: [notificationDismissals.userId, notificationDismissals.jobId, notificationDismissals.kind],
      set: { dismissedAt: sql`now()` },
    });
  return { ok: true };
}
