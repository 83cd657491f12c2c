import { and, eq } from 'drizzle-orm';
import { notaryParticipantId, type SharedVideoMap, type SharedVideoMapInput } from '#shared/video.ts';
import { videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { badRequest, conflict, forbidden } from '#server/lib/errors.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { getSessionAccess, requireNotary, toParticipantId, type SessionRow } from './video-access.ts';

function toSharedVideoMap(session: Pick<SessionRow, 'id' | 'sharedVideoMap' | 'sharedVideoMapVersion'>): SharedVideoMap {
  return { sessionId: session.id, assignments: session.sharedVideoMap, version: session.sharedVideoMapVersion };
}

/** The shared video map, for the job's notary and everyone admitted to the session; others on the job get 403, strangers 404. */
export async function getSharedVideoMap(ctx: Ctx, sessionId: string): Promise<SharedVideoMap> {
  const found = await getSessionAccess(ctx, sessionId);
  if (!found.isNotary) {
    const [own] = await ctx.db
      .select({ lobbyState: videoSessionParticipants.lobbyState })
      .from(videoSessionParticipants)
      .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.userId, found.access.userId)))
      .limit(1);
    if (own?.lobbyState !== 'admitted') throw forbidden('Only the notary and the people admitted to the session see who is shown where.');
  }
  return toSharedVideoMap(found.session);
}

/**
 * The job's notary lays out who is shown where. The map names only the notary and people admitted
 * to this session; it replaces the stored one only if drawn from the stored version (else 409 with
 * the current version), becomes version + 1 and is announced on the job's live channel.
 */
export async function setSharedVideoMap(ctx: Ctx, sessionId: string, input: SharedVideoMapInput): Promise<SharedVideoMap> {
  const saved = await ctx.db.transaction(async (tx) => {
    const found = await getSessionAccess({ ...ctx, db: tx }, sessionId, { forUpdate: true });
    requireNotary(found, 'arrange who is shown where');
    if (found.session.status === 'finalized') throw conflict('This session has ended.');
    const admitted = await tx
      .select({ jobParticipantId: videoSessionParticipants.jobParticipantId })
      .from(videoSessionParticipants)
      .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.lobbyState, 'admitted')));
    const present = new Set([notaryParticipantId, ...admitted.map(toParticipantId)]);
    const unknown = input.assignments.filter((assignment) => !present.has(assignment.participantId));
    if (unknown.length > 0) {
      throw badRequest('The map may show only the notary and people admitted to this session.', {
        unknownParticipantIds: unknown.map((assignment) => assignment.participantId),
      });
    }
    const current = found.session.sharedVideoMapVersion;
    if (input.version !== current) {
      throw conflict('Someone changed the map since you loaded it; load it again and redo your change.', { currentVersion: current });
    }
    const assignments = input.assignments.map(({ slot, participantId }) => ({ slot, participantId }));
    // The version test in the update itself keeps two changes from the same version from both landing.
    const [updated] = await tx
      .update(videoSessions)
      .set({ sharedVideoMap: assignments, sharedVideoMapVersion: current + 1 })
      .where(and(eq(videoSessions.id, sessionId), eq(videoSessions.sharedVideoMapVersion, current)))
      .returning();
    if (!updated) {
      const [latest] = await tx.select({ version: videoSessions.sharedVideoMapVersion }).from(videoSessions).where(eq(videoSessions.id, sessionId)).limit(1);
      throw conflict('Someone changed the map since you loaded it; load it again and redo your change.', { currentVersion: latest?.version ?? current });
    }
    return updated;
  });
  const map = toSharedVideoMap(saved);
  await publishJobChange(ctx, saved.jobId, { type: 'video-map', version: map.version, assignments: map.assignments });
  return map;
}
