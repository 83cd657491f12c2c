import { and, asc, eq, ne } from 'drizzle-orm';
import { heartbeatAwayMs, notaryParticipantId, type VideoSession, type VideoSessionParticipant } from '#shared/video.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { users, videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { getJobAccess, type JobAccess } from '#server/features/jobs/job-access.ts';

export type SessionRow = typeof videoSessions.$inferSelect;
export type SessionParticipantRow = typeof videoSessionParticipants.$inferSelect;

export interface SessionAccess {
  session: SessionRow;
  access: JobAccess;
  isNotary: boolean;
}

const sessionNotFound = () => notFound('No session with that id, or you may not see it.');

/** The session and the caller's access to its job: strangers to the job get 404, as for the job itself. */
export async function getSessionAccess(ctx: Ctx, sessionId: string, options: { forUpdate?: boolean } = {}): Promise<SessionAccess> {
  if (!ctx.user) throw unauthorized();
  if (!/^[0-9a-f-]{36}$/i.test(sessionId)) throw sessionNotFound();
  const query = ctx.db.select().from(videoSessions).where(eq(videoSessions.id, sessionId)).limit(1);
  const [session] = options.forUpdate ? await query.for('update') : await query;
  if (!session) throw sessionNotFound();
  const access = await getJobAccess(ctx, session.jobId, options);
  return { session, access, isNotary: access.actors.includes('notary') };
}

export function requireNotary(found: { isNotary: boolean }, doing: string): void {
  if (!found.isNotary) throw forbidden(`Only the job’s notary may ${doing}.`);
}

/** The session of a job that is not finalized, if any. */
export async function findOpenSession(db: DbOrTx, jobId: string, options: { forUpdate?: boolean } = {}): Promise<SessionRow | null> {
  const query = db
    .select()
    .from(videoSessions)
    .where(and(eq(videoSessions.jobId, jobId), ne(videoSessions.status, 'finalized')))
    .limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export function toParticipantId(row: Pick<SessionParticipantRow, 'jobParticipantId'>): string {
  return row.jobParticipantId ?? notaryParticipantId;
}

export function isAway(row: Pick<SessionParticipantRow, 'lobbyState' | 'lastHeartbeatAt'>, now = Date.now()): boolean {
  return row.lobbyState === 'admitted' && now - row.lastHeartbeatAt.getTime() >= heartbeatAwayMs;
}

/**
 * Whether the job's current notary is in the session now: entered and heard from in the last 90
 * seconds. A notary replaced while the session was open keeps a row, and never counts.
 */
export async function isNotaryPresent(db: DbOrTx, sessionId: string, notaryId: string | null): Promise<boolean> {
  if (!notaryId) return false;
  const [row] = await db
    .select()
    .from(videoSessionParticipants)
    .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.userId, notaryId), eq(videoSessionParticipants.role, 'notary')))
    .limit(1);
  return Boolean(row && row.lobbyState === 'admitted' && !isAway(row));
}

export async function describeSession(db: DbOrTx, session: SessionRow): Promise<VideoSession> {
  const rows = await db
    .select({ participant: videoSessionParticipants, name: users.name })
    .from(videoSessionParticipants)
    .innerJoin(users, eq(users.id, videoSessionParticipants.userId))
    .where(eq(videoSessionParticipants.sessionId, session.id))
    .orderBy(asc(videoSessionParticipants.joinedAt));
  const now = Date.now();
  const participants: VideoSessionParticipant[] = rows.map(({ participant, name }) => ({
    participantId: toParticipantId(participant),
    userId: participant.userId,
    name,
    role: participant.role,
    lobbyState: participant.lobbyState,
    isAway: isAway(participant, now),
    canSign: participant.role === 'signer' || participant.role === 'witness',
    deviceGroupId: participant.deviceGroupId,
    consentedToRecordingAt: participant.consentedToRecordingAt.toISOString(),
    joinedAt: participant.joinedAt.toISOString(),
    lastHeartbeatAt: participant.lastHeartbeatAt.toISOString(),
  }));
  return {
    sessionId: session.id,
    jobId: session.jobId,
    status: session.status,
    activeDeviceGroupId: session.activeDeviceGroupId,
    createdAt: session.createdAt.toISOString(),
    activatedAt: session.activatedAt?.toISOString() ?? null,
    startedAt: session.startedAt?.toISOString() ?? null,
    finalizedAt: session.finalizedAt?.toISOString() ?? null,
    participants,
  };
}
