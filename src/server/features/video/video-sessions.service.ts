import { expireIdentityAfterSession } from '#server/features/identity/identity.service.ts';
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import { jobStatusLabels } from '#shared/jobs.ts';
import type { VideoSession } from '#shared/video.ts';
import { videoChangedMessage } from '#shared/video-signaling.ts';
import { jobParticipants, jobs, users, videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { moveJobStatus } from '#server/features/jobs/jobs.service.ts';
import { stopRunningRecording } from './recording/recordings.service.ts';
import { describeSession, findOpenSession, getSessionAccess, requireNotary, type SessionRow } from './video-access.ts';

/** Job statuses in which a live session may be opened. */
const sessionJobStatuses = new Set(['ready', 'scheduled', 'in_session']);

/** The job's notary opens the job's session, or gets the one already open. */
export async function createVideoSession(ctx: Ctx, jobId: string): Promise<{ session: VideoSession; isNew: boolean }> {
  const access = await getJobAccess(ctx, jobId);
  requireNotary({ isNotary: access.actors.includes('notary') }, 'open the session of this job');
  if (!sessionJobStatuses.has(access.job.status)) {
    throw conflict(`A ${jobStatusLabels[access.job.status].toLowerCase()} job cannot hold a session; it must be ready, scheduled or in session.`);
  }
  const existing = await findOpenSession(ctx.db, jobId);
  if (existing) return { session: await describeSession(ctx.db, existing), isNew: false };
  try {
    const [created] = await ctx.db.insert(videoSessions).values({ jobId, createdBy: access.userId }).returning();
    if (!created) throw new Error('session insert returned no row');
    await publishJobChange(ctx, jobId, videoChangedMessage);
    return { session: await describeSession(ctx.db, created), isNew: true };
  } catch (error) {
    // Two tabs of the notary opened it at once: the other one won, and both get its session.
    const raced = isUniqueViolation(error) ? await findOpenSession(ctx.db, jobId) : null;
    if (!raced) throw error;
    return { session: await describeSession(ctx.db, raced), isNew: false };
  }
}

/** The notary's view of the session (who waits, who is admitted, who is away); administrators may look too. */
export async function getVideoSession(ctx: Ctx, sessionId: string): Promise<VideoSession> {
  const found = await getSessionAccess(ctx, sessionId);
  if (!found.isNotary && !found.access.actors.includes('admin')) requireNotary(found, 'see who is in the session');
  return describeSession(ctx.db, found.session);
}

function assertNotFinalized(session: SessionRow): void {
  if (session.status === 'finalized') throw conflict('This session has ended.');
}

/**
 * activate/{deviceGroupId}: the notary opens the room from the device group they entered with.
 * created -> active; later, the same call moves the notary's room to another device group.
 */
export async function activateVideoSession(ctx: Ctx, sessionId: string, deviceGroupId: string): Promise<VideoSession> {
  const session = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const found = await getSessionAccess(txCtx, sessionId, { forUpdate: true });
    requireNotary(found, 'open the room');
    assertNotFinalized(found.session);
    const [notaryRow] = await tx
      .select()
      .from(videoSessionParticipants)
      .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.userId, found.access.userId)))
      .limit(1);
    if (!notaryRow) throw conflict('Enter the session first (session/join), then open the room.');
    if (notaryRow.deviceGroupId !== deviceGroupId) throw conflict('Open the room from the device you entered the session with, or enter again from this one.');
    const [updated] = await tx
      .update(videoSessions)
      .set({
        activeDeviceGroupId: deviceGroupId,
        ...(found.session.status === 'created' ? { status: 'active' as const, activatedAt: new Date() } : {}),
      })
      .where(eq(videoSessions.id, sessionId))
      .returning();
    return describeSession(tx, updated ?? found.session);
  });
  await publishJobChange(ctx, session.jobId, videoChangedMessage);
  return session;
}

/** The notarial act begins: active -> started, and the job moves to in session by the job's own rules. */
export async function startVideoSession(ctx: Ctx, sessionId: string): Promise<VideoSession> {
  const session = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const found = await getSessionAccess(txCtx, sessionId, { forUpdate: true });
    requireNotary(found, 'start the session');
    assertNotFinalized(found.session);
    if (found.session.status === 'started') throw conflict('The session has already started.');
    if (found.session.status !== 'active') throw conflict('Open the room from your device first (activate), then start the session.');
    // Roles as the job has them now: someone admitted as a signer and since made an observer is not one.
    const admitted = await tx
      .select({ name: users.name, role: jobParticipants.role })
      .from(videoSessionParticipants)
      .innerJoin(users, eq(users.id, videoSessionParticipants.userId))
      .innerJoin(jobParticipants, eq(jobParticipants.id, videoSessionParticipants.jobParticipantId))
      .where(
        and(
          eq(videoSessionParticipants.sessionId, sessionId),
          eq(videoSessionParticipants.lobbyState, 'admitted'),
          ne(videoSessionParticipants.role, 'notary'),
        ),
      );
    if (!admitted.some((person) => person.role === 'signer')) throw conflict('Admit at least one signer before starting the session.');
    if (found.access.job.status !== 'in_session') await moveJobStatus(txCtx, found.access, 'in_session', 'The live session started.');
    const [updated] = await tx.update(videoSessions).set({ status: 'started', startedAt: new Date() }).where(eq(videoSessions.id, sessionId)).returning();
    await appendAuditEvent(txCtx, {
      jobId: found.session.jobId,
      action: 'video.started',
      data: { sessionId, admittedNames: admitted.map((person) => person.name) },
    });
    await queueWebhookEvent(tx, found.access.job.companyId, 'session.started', {
      jobId: found.session.jobId,
      sessionId,
      startedAt: (updated?.startedAt ?? new Date()).toISOString(),
    });
    return updated ?? found.session;
  });
  await publishJobChange(ctx, session.jobId, { type: 'job.changed' });
  await publishJobChange(ctx, session.jobId, videoChangedMessage);
  return describeSession(ctx.db, session);
}

/**
 * The session ends for everyone: -> finalized, every participant has left. A job still in session
 * (not sealed) goes back to ready, so another session can finish it; a sealed job stays completed.
 */
export async function finalizeVideoSession(ctx: Ctx, sessionId: string): Promise<VideoSession> {
  const session = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const found = await getSessionAccess(txCtx, sessionId, { forUpdate: true });
    requireNotary(found, 'end the session');
    assertNotFinalized(found.session);
    if (found.access.job.status === 'in_session') await moveJobStatus(txCtx, found.access, 'ready', 'The live session ended before the job was sealed.');
    await tx
      .update(videoSessionParticipants)
      .set({ lobbyState: 'left' })
      .where(and(eq(videoSessionParticipants.sessionId, sessionId), inArray(videoSessionParticipants.lobbyState, ['waiting', 'admitted'])));
    await stopRunningRecording(txCtx, sessionId);
    await expireIdentityAfterSession(txCtx, found.access.job);
    const [updated] = await tx.update(videoSessions).set({ status: 'finalized', finalizedAt: new Date() }).where(eq(videoSessions.id, sessionId)).returning();
    await appendAuditEvent(txCtx, { jobId: found.session.jobId, action: 'video.finalized', data: { sessionId, jobStatus: found.access.job.status } });
    return updated ?? found.session;
  });
  await publishJobChange(ctx, session.jobId, { type: 'job.changed' });
  await publishJobChange(ctx, session.jobId, videoChangedMessage);
  return describeSession(ctx.db, session);
}

/** For administrators: every session not finalized, its people, and the media hub's figures when it runs here. */
export async function getVideoDebugInfo(ctx: Ctx) {
  if (!ctx.user?.roles.includes('admin')) throw new AppError(403, 'forbidden', 'Only administrators see the live sessions.');
  const rows = await ctx.db
    .select({ session: videoSessions, jobTitle: jobs.title })
    .from(videoSessions)
    .innerJoin(jobs, eq(jobs.id, videoSessions.jobId))
    .where(ne(videoSessions.status, 'finalized'))
    .orderBy(desc(videoSessions.createdAt))
    .limit(200);
  const sessions = [];
  for (const { session, jobTitle } of rows) {
    const room = ctx.video?.findRoom(session.id) ?? null;
    sessions.push({ ...(await describeSession(ctx.db, session)), jobTitle, stats: room ? room.getStats() : null });
  }
  return { sessions };
}
