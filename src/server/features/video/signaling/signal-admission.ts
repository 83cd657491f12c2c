import { and, eq } from 'drizzle-orm';
import { signalCloseCodes } from '#shared/video-signaling.ts';
import { videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import type { ChannelEnd } from '#server/features/jobs/job-access-watch.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { roleOf } from '../lobby/video-lobby.service.ts';
import { toParticipantId } from '../video-access.ts';
import { verifyVideoToken, type VideoTokenClaims } from './video-token.ts';

const refused = (reason: string): ChannelEnd => ({ code: signalCloseCodes.refused, reason });

/**
 * Whether the person of `personCtx` may be in the media room now, as the token says: the session
 * is open (active or started), their own row is admitted with the token's participant id, role and
 * device group, and they are still on the job in that role. The reason the socket ends, or null.
 * The checks read one after another; a finalize that commits between them (it marks everyone as
 * left) is told as the session's end, which is what happened, not as a refusal.
 */
export async function checkStillAdmitted(personCtx: Ctx, claims: VideoTokenClaims): Promise<ChannelEnd | null> {
  const end = await checkAdmissionRows(personCtx, claims);
  if (end?.code !== signalCloseCodes.refused) return end;
  const [session] = await personCtx.db.select({ status: videoSessions.status }).from(videoSessions).where(eq(videoSessions.id, claims.sessionId)).limit(1);
  return session?.status === 'finalized' ? { code: signalCloseCodes.sessionEnded, reason: 'session ended' } : end;
}

async function checkAdmissionRows(personCtx: Ctx, claims: VideoTokenClaims): Promise<ChannelEnd | null> {
  const [session] = await personCtx.db.select().from(videoSessions).where(eq(videoSessions.id, claims.sessionId)).limit(1);
  if (!session) return refused('no such session');
  if (session.status === 'finalized') return { code: signalCloseCodes.sessionEnded, reason: 'session ended' };
  if (session.status !== 'active' && session.status !== 'started') return refused('session not open');
  let role: string | null;
  try {
    role = roleOf(await getJobAccess(personCtx, session.jobId));
  } catch {
    return refused('not on the job');
  }
  const userId = personCtx.user?.id;
  if (!userId || userId !== claims.userId) return refused('token of someone else');
  const [row] = await personCtx.db
    .select()
    .from(videoSessionParticipants)
    .where(and(eq(videoSessionParticipants.sessionId, session.id), eq(videoSessionParticipants.userId, userId)))
    .limit(1);
  if (!row || row.lobbyState !== 'admitted') return refused('not admitted');
  if (toParticipantId(row) !== claims.participantId || row.role !== claims.role || row.deviceGroupId !== claims.deviceGroupId) {
    return refused('token does not match the admission');
  }
  if (role !== row.role) return refused('role on the job changed');
  return null;
}

/** The hello of a socket: the token (verifyVideoToken) and then the database. Claims, and the job, or why not. */
export async function admitHello(
  ctx: Ctx,
  hello: { sessionId: string; token: string },
): Promise<{ isAdmitted: true; claims: VideoTokenClaims; jobId: string } | { isAdmitted: false; end: ChannelEnd }> {
  const user = ctx.user;
  if (!user) return { isAdmitted: false, end: { code: signalCloseCodes.signedOut, reason: 'signed out' } };
  const check = verifyVideoToken(ctx.secretsKey, hello.token, { userId: user.id, sessionId: hello.sessionId });
  if (!check.isValid) {
    ctx.log.info({ sessionId: hello.sessionId, reason: check.reason }, 'media token refused');
    return { isAdmitted: false, end: refused('token refused') };
  }
  const ended = await checkStillAdmitted(ctx, check.claims);
  if (ended) return { isAdmitted: false, end: ended };
  const [session] = await ctx.db.select({ jobId: videoSessions.jobId }).from(videoSessions).where(eq(videoSessions.id, hello.sessionId)).limit(1);
  if (!session) return { isAdmitted: false, end: refused('no such session') };
  return { isAdmitted: true, claims: check.claims, jobId: session.jobId };
}
