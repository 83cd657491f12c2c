import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { notaryParticipantId } from '#shared/video.ts';
import type { JobRecordings, PlaybackTrack } from '#shared/recording-playback.ts';
import { auditEvents, jobParticipants, recordingSegments, recordings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { forbidden, notFound } from '#server/lib/errors.ts';
import { getJobAccess, type JobAccess } from '#server/features/jobs/job-access.ts';
import { retentionEndsAt } from './recording-retention.ts';

/**
 * Playback of a job's recordings (decision 022): the job's notary and administrators may watch;
 * nobody else on the job (403), and strangers see no job at all (404). Nothing here changes or
 * deletes a recording: no route does, and retention (recording-retention.ts) would refuse it.
 */

async function getPlaybackAccess(ctx: Ctx, jobId: string): Promise<JobAccess> {
  const access = await getJobAccess(ctx, jobId);
  if (!access.actors.includes('notary') && !access.actors.includes('admin'))
    throw forbidden('Only the job’s notary and administrators may watch its recordings.');
  return access;
}

type SegmentRow = typeof recordingSegments.$inferSelect;

/** GET /api/jobs/{id}/recordings: every recording, each participant's segments as a track, the audit events as markers. */
export async function findJobRecordings(ctx: Ctx, jobId: string): Promise<JobRecordings> {
  const access = await getPlaybackAccess(ctx, jobId);
  const rows = await ctx.db.select().from(recordings).where(eq(recordings.jobId, jobId)).orderBy(asc(recordings.startedAt));
  const segments: SegmentRow[] = rows.length
    ? await ctx.db
        .select()
        .from(recordingSegments)
        .where(
          inArray(
            recordingSegments.recordingId,
            rows.map((row) => row.id),
          ),
        )
        .orderBy(asc(recordingSegments.startedAt), asc(recordingSegments.sequence))
    : [];
  const people = await ctx.db
    .select({ id: jobParticipants.id, name: jobParticipants.name, role: jobParticipants.role })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, jobId));
  // The notary of a recording is who started it (a notary replaced later keeps their own tracks).
  const starterIds = [...new Set(rows.map((row) => row.startedBy).filter((id): id is string => id !== null))];
  const starters = starterIds.length ? await ctx.db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, starterIds)) : [];
  const describe = (participantId: string, startedBy: string | null) => {
    if (participantId === notaryParticipantId) return { name: starters.find((starter) => starter.id === startedBy)?.name ?? 'The notary', role: 'notary' };
    const person = people.find((candidate) => candidate.id === participantId);
    return person ? { name: person.name, role: person.role } : { name: 'Someone no longer on the job', role: 'unknown' };
  };
  const years = ctx.config.video.recordingRetentionYears;
  const markers = await ctx.db
    .select({ event: auditEvents, actorName: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    // Stored segments are the tracks themselves; every other event of the job is a marker.
    .where(and(eq(auditEvents.scope, `job:${jobId}`), ne(auditEvents.action, 'recording.segment_saved')))
    .orderBy(asc(auditEvents.sequence));
  return {
    jobId,
    jobTitle: access.job.title,
    retentionYears: years,
    recordings: rows.map((row) => {
      const tracks = new Map<string, PlaybackTrack>();
      for (const segment of segments.filter((candidate) => candidate.recordingId === row.id)) {
        let track = tracks.get(segment.participantId);
        if (!track) {
          track = { participantId: segment.participantId, ...describe(segment.participantId, row.startedBy), segments: [] };
          tracks.set(segment.participantId, track);
        }
        track.segments.push({
          segmentId: segment.id,
          sequence: segment.sequence,
          startedAt: segment.startedAt.toISOString(),
          endedAt: segment.endedAt.toISOString(),
          sha256: segment.sha256,
          bytes: segment.bytes,
          url: `/api/jobs/${jobId}/recordings/segments/${segment.id}`,
        });
      }
      return {
        recordingId: row.id,
        sessionId: row.sessionId,
        status: row.status,
        startedAt: row.startedAt.toISOString(),
        stoppedAt: row.stoppedAt?.toISOString() ?? null,
        keptUntil: row.stoppedAt ? retentionEndsAt(row.stoppedAt, years).toISOString() : null,
        tracks: [...tracks.values()],
      };
    }),
    markers: markers.map(({ event, actorName }) => ({
      id: event.id,
      at: event.createdAt.toISOString(),
      action: event.action,
      actorId: event.actorId,
      actorName,
      data: (event.data ?? {}) as Record<string, unknown>,
    })),
  };
}

export type SegmentRange = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range of a file of `size` bytes; null when absent or not understood. */
export function parseByteRange(header: string | undefined, size: number): SegmentRange {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (!match[1] && !match[2])) return null;
  let start = match[1] ? Number(match[1]) : size - Number(match[2]);
  let end = match[1] && match[2] ? Number(match[2]) : size - 1;
  if (!match[1]) start = Math.max(0, start);
  end = Math.min(end, size - 1);
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

/** GET /api/jobs/{id}/recordings/segments/{segmentId}: the stored WebM of one segment of this job. */
export async function openRecordingSegment(ctx: Ctx, jobId: string, segmentId: string): Promise<{ content: Buffer; sha256: string }> {
  await getPlaybackAccess(ctx, jobId);
  const [row] = await ctx.db
    .select({ storageKey: recordingSegments.storageKey, sha256: recordingSegments.sha256 })
    .from(recordingSegments)
    .innerJoin(recordings, eq(recordings.id, recordingSegments.recordingId))
    .where(and(eq(recordingSegments.id, segmentId), eq(recordings.jobId, jobId)))
    .limit(1);
  if (!row) throw notFound('No recording segment with that id on this job.');
  return { content: await ctx.storage.read(row.storageKey), sha256: row.sha256 };
}
