import { and, asc, eq } from 'drizzle-orm';
import type { SigningAssets } from '#shared/fields.ts';
import { documents, jobParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { watchJobAccess, type ChannelEnd } from '#server/features/jobs/job-access-watch.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { getNotaryStampPreview } from '#server/features/notarization/notarization.service.ts';
import { getCurrentSignature } from '#server/features/signatures/signatures.service.ts';

async function findCurrentImage(ctx: Ctx, userId: string, kind: 'signature' | 'initials') {
  const row = await getCurrentSignature(ctx.db, userId, kind);
  return row ? { id: row.id, imageUrl: `/api/signatures/${row.id}/image` } : null;
}

/** What this participant may use in the workspace: their role, saved images, what they may do. */
export async function getSigningAssets(ctx: Ctx, jobId: string): Promise<SigningAssets> {
  const access = await getJobAccess(ctx, jobId);
  const { job, participant, permissions } = access;
  const isNotary = job.notaryId === access.userId;
  const role: SigningAssets['role'] = isNotary ? 'notary' : participant ? participant.role : ctx.user?.roles.includes('admin') ? 'admin' : 'preparer';
  const participants = await ctx.db
    .select({ id: jobParticipants.id, name: jobParticipants.name, role: jobParticipants.role })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, jobId))
    .orderBy(asc(jobParticipants.position));
  return {
    role,
    participantId: participant?.id ?? null,
    canPlaceFields: permissions.canEdit && job.status !== 'completed' && job.status !== 'cancelled',
    canCompleteDocuments: permissions.canCompleteDocuments,
    signature: await findCurrentImage(ctx, access.userId, 'signature'),
    initials: await findCurrentImage(ctx, access.userId, 'initials'),
    participants,
    notaryStamp: await getNotaryStampPreview(ctx, job),
  };
}

async function isDocumentOfJob(ctx: Ctx, jobId: string, documentId: string): Promise<boolean> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(documentId)) return false;
  const rows = await ctx.db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.id, documentId), eq(documents.jobId, jobId)))
    .limit(1);
  return rows.length > 0;
}

export type LiveChannelEnd = ChannelEnd;

/**
 * Joins a browser to the job's live channel. Returns a function that forwards a browser message
 * (a page view from someone who may lead the session) and one that leaves.
 *
 * The channel lasts only as long as the person's right to it (watchJobAccess): when their session
 * ends (sign-out, a password reset, a disabled account), when they are taken off the job, or when
 * the session expires, `end` is called (4401 or 4403) and nothing more is sent to them.
 */
export async function joinLiveChannel(
  ctx: Ctx,
  jobId: string,
  sessionToken: string,
  send: (message: string) => void,
  end: (reason: LiveChannelEnd) => void,
): Promise<{ onMessage: (raw: string) => Promise<void>; leave: () => Promise<void> }> {
  const access = await getJobAccess(ctx, jobId);
  const channel = `job:${jobId}`;
  const watch = await watchJobAccess(ctx, { jobId, sessionToken, onJobMessage: send, end });

  const mayLead = access.permissions.canEdit;
  const name = ctx.user?.name ?? 'Someone';
  return {
    async onMessage(raw) {
      if (watch.hasEnded() || !mayLead || raw.length > 2000) return;
      let parsed: { type?: unknown; documentId?: unknown; page?: unknown };
      try {
        parsed = JSON.parse(raw) as typeof parsed;
      } catch {
        return;
      }
      if (parsed.type !== 'view' || typeof parsed.documentId !== 'string' || typeof parsed.page !== 'number' || !Number.isInteger(parsed.page)) return;
      // Followers open what the leader names: only a document of this job.
      if (!(await isDocumentOfJob(ctx, jobId, parsed.documentId))) return;
      await ctx.realtime.publish(channel, JSON.stringify({ type: 'view', documentId: parsed.documentId, page: parsed.page, by: name }));
    },
    leave: () => watch.stop(),
  };
}
