import { and, eq, inArray, ne } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';

/**
 * Someone no longer on the job (a replaced notary) leaves its open session: their row says 'left',
 * so the session names one notary and nobody admits or shows a person who may not be there.
 */
export async function leaveOpenSessions(db: DbOrTx, jobId: string, userId: string): Promise<void> {
  const open = db
    .select({ id: videoSessions.id })
    .from(videoSessions)
    .where(and(eq(videoSessions.jobId, jobId), ne(videoSessions.status, 'finalized')));
  await db
    .update(videoSessionParticipants)
    .set({ lobbyState: 'left' })
    .where(and(eq(videoSessionParticipants.userId, userId), inArray(videoSessionParticipants.sessionId, open)));
}
