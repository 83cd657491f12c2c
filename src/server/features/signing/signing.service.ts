import { and, asc, eq } from 'drizzle-orm';
import type { SigningAssets } from '#shared/fields.ts';
import { documents, jobParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { invalidationChannel } from '#server/lib/session-cache.ts';
import { resolveSession } from '#server/features/auth/sessions.service.ts';
import { accessChangedMessage } from '#server/features/jobs/access-change.ts';
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
  const role: SigningAssets['role'] = isNotary
    ? 'notary'
    : participant
      ? participant.role
      : ctx.user?.roles.includes('admin')
        ? 'admin'
        : 'preparer';
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

/** How often an open channel checks its session and access even when nothing announced a change (expiry). */
export const liveAccessRecheckMs = 60_000;

export type LiveChannelEnd = { code: 4401; reason: 'signed out' } | { code: 4403; reason: 'access ended' };

/**
 * Joins a browser to the job's live channel. Returns a function that forwards a browser message
 * (a page view from someone who may lead the session) and one that leaves.
 *
 * The channel lasts only as long as the person's right to it: when their session ends (sign-out,
 * a password reset, a disabled account), when they are taken off the job, or when the session
 * expires, `end` is called (4401 or 4403) and nothing more is sent to them.
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
  const tokenHash = hashToken(sessionToken);
  const userId = ctx.user?.id;
  let hasEnded = false;
  let checking: Promise<void> | null = null;

  const finish = (reason: LiveChannelEnd) => {
    if (hasEnded) return;
    hasEnded = true;
    end(reason);
  };
  // One check at a time; a change announced while one runs gets a fresh check after it, since the
  // running one may have read the data before that change was committed.
  let isCheckRequested = false;
  const runCheck = async () => {
    const session = await resolveSession(ctx.db, ctx.sessionCache, sessionToken);
    if (!session || session.isMfaPending) return finish({ code: 4401, reason: 'signed out' });
    try {
      await getJobAccess({ ...ctx, user: session.user, sessionId: session.sessionId }, jobId);
    } catch {
      finish({ code: 4403, reason: 'access ended' });
    }
  };
  const checkAgain = (): Promise<void> => {
    if (checking) {
      isCheckRequested = true;
      return checking;
    }
    checking = runCheck().finally(() => {
      checking = null;
      if (isCheckRequested && !hasEnded) {
        isCheckRequested = false;
        void checkAgain().catch((error: unknown) => ctx.log.warn({ err: error }, 'live channel check failed'));
      }
    });
    return checking;
  };

  const unsubscribeJob = await ctx.realtime.subscribe(channel, (message) => {
    if (hasEnded) return;
    if (message === accessChangedMessage) void checkAgain().catch((error: unknown) => ctx.log.warn({ err: error }, 'live channel access check failed'));
    else send(message);
  });
  const unsubscribeAuth = await ctx.realtime.subscribe(invalidationChannel, (message) => {
    if (hasEnded) return;
    let named: { tokenHash?: unknown; userId?: unknown };
    try {
      named = JSON.parse(message) as typeof named;
    } catch {
      return;
    }
    if (named.tokenHash !== tokenHash && !(userId && named.userId === userId)) return;
    void checkAgain().catch((error: unknown) => ctx.log.warn({ err: error }, 'live channel session check failed'));
  });
  // A change committed between the access check above and these subscriptions was announced to no one here.
  void checkAgain().catch((error: unknown) => ctx.log.warn({ err: error }, 'live channel check failed'));
  const timer = setInterval(() => void checkAgain().catch((error: unknown) => ctx.log.warn({ err: error }, 'live channel check failed')), liveAccessRecheckMs);
  timer.unref();

  const mayLead = access.permissions.canEdit;
  const name = ctx.user?.name ?? 'Someone';
  return {
    async onMessage(raw) {
      if (hasEnded || !mayLead || raw.length > 2000) return;
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
    async leave() {
      hasEnded = true;
      clearInterval(timer);
      await Promise.all([unsubscribeJob(), unsubscribeAuth()]);
    },
  };
}
