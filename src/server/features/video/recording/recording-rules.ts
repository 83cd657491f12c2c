import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, ne } from 'drizzle-orm';
import { formatRecordTime } from '#shared/dates.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documentFields, recordingSegments, recordings, videoSessions } from '#server/db/schema/index.ts';
import { AppError } from '#server/lib/errors.ts';
import { findPersonRecordings, type PersonRecording } from './recording-gaps.ts';

/**
 * The rules that tie the document to the recording (decision 022): fields are filled only while
 * the job's open session is started and recorded, and a job is sealed only when every fill fell
 * inside a recording that stored media. Each person's time out of the recorded call is in
 * recording-gaps.ts (decision 033).
 */

/** One stored segment as the certificate's appendix lists it. */
export interface RecordedSegmentEntry {
  participantId: string;
  sequence: number;
  startedAt: Date;
  endedAt: Date;
  sha256: string;
  bytes: number;
}

/** What the seal rests on: the job's recordings, their stored segments, and each person's share. */
export interface SessionRecord {
  reference: string;
  recordingIds: string[];
  segmentCount: number;
  participantCount: number;
  from: Date;
  to: Date;
  /** Every stored segment, by start, then participant, then sequence (the appendix's order). */
  segments: RecordedSegmentEntry[];
  /** SHA-256 (hex) of the segments' SHA-256 values, in the appendix's order, joined by line feeds. */
  segmentsDigest: string;
  /** The segments' lengths added up. */
  totalMs: number;
  /** The notary and each person of the job: their segments and their time out of the recorded call. */
  people: PersonRecording[];
}

/** Refuses a fill unless the job's open session is started and a recording of it is running. */
export async function assertSessionRecording(db: DbOrTx, jobId: string): Promise<void> {
  const [open] = await db
    .select({ id: videoSessions.id, status: videoSessions.status })
    .from(videoSessions)
    .where(and(eq(videoSessions.jobId, jobId), ne(videoSessions.status, 'finalized')))
    .limit(1);
  if (open?.status !== 'started') {
    throw new AppError(409, 'session_not_live', 'Fields are filled during the live session: the notary starts the session and its recording first.');
  }
  const [running] = await db
    .select({ id: recordings.id })
    .from(recordings)
    .where(and(eq(recordings.sessionId, open.id), eq(recordings.status, 'recording')))
    .limit(1);
  if (!running) throw new AppError(409, 'not_recording', 'Fields are filled only while the session is recorded: the notary starts the recording first.');
}

export type RecordingVerdict = { record: SessionRecord | null; refusal: string | null };

const utc = (date: Date) => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/**
 * What the job's recordings prove at `sealAt`. A refusal (a sentence) when a field was filled and
 * the fills are not all inside a recording with stored media; a record when any media is stored.
 */
export async function judgeJobRecording(db: DbOrTx, jobId: string, sealAt: Date): Promise<RecordingVerdict> {
  const rows = await db.select().from(recordings).where(eq(recordings.jobId, jobId)).orderBy(asc(recordings.startedAt));
  const fills = await db
    .select({ filledAt: documentFields.filledAt })
    .from(documentFields)
    .where(and(eq(documentFields.jobId, jobId), isNotNull(documentFields.filledAt)))
    .orderBy(asc(documentFields.filledAt));
  const segments = rows.length
    ? await db
        .select({
          recordingId: recordingSegments.recordingId,
          participantId: recordingSegments.participantId,
          sequence: recordingSegments.sequence,
          startedAt: recordingSegments.startedAt,
          endedAt: recordingSegments.endedAt,
          sha256: recordingSegments.sha256,
          bytes: recordingSegments.bytes,
        })
        .from(recordingSegments)
        .where(
          inArray(
            recordingSegments.recordingId,
            rows.map((row) => row.id),
          ),
        )
        .orderBy(asc(recordingSegments.startedAt), asc(recordingSegments.participantId), asc(recordingSegments.sequence))
    : [];
  const spans = rows
    .filter((row) => row.startedAt < sealAt)
    .map((row) => ({
      id: row.id,
      sessionId: row.sessionId,
      from: row.startedAt,
      to: new Date(Math.min((row.stoppedAt ?? sealAt).getTime(), sealAt.getTime())),
    }));
  let refusal: string | null = null;
  if (fills.length > 0) {
    const outside = fills.find(({ filledAt }) => filledAt && !spans.some((span) => span.from <= filledAt && filledAt <= span.to));
    if (rows.length === 0) refusal = 'The session was not recorded: fields were filled, but no recording was started.';
    else if (outside?.filledAt) refusal = `A field was filled at ${utc(outside.filledAt)}, when the session was not being recorded.`;
    else if (segments.length === 0) refusal = 'The session’s recording stored no media: there is nothing to seal the act on.';
  }
  if (segments.length === 0) return { record: null, refusal };
  // The recordings that hold media, from the first one's start to the seal (or the last stop before it).
  const withMedia = spans.filter((span) => segments.some((segment) => segment.recordingId === span.id));
  const from = new Date(Math.min(...withMedia.map((span) => span.from.getTime())));
  const to = new Date(Math.min(sealAt.getTime(), Math.max(...withMedia.map((span) => span.to.getTime()))));
  const participants = new Set(segments.map((segment) => segment.participantId));
  const ids = withMedia.map((span) => span.id);
  const people = await findPersonRecordings(
    db,
    jobId,
    spans.map((span) => ({ recordingId: span.id, sessionId: span.sessionId, from: span.from, to: span.to })),
    segments,
  );
  return {
    refusal,
    record: {
      reference: `${ids.length === 1 ? 'Recording' : 'Recordings'} ${ids.join(', ')}: ${segments.length} stored segment${segments.length === 1 ? '' : 's'} of ${participants.size} participant${participants.size === 1 ? '' : 's'}, from ${formatRecordTime(from)} to ${formatRecordTime(to)}`,
      recordingIds: ids,
      segmentCount: segments.length,
      participantCount: participants.size,
      from,
      to,
      segments: segments.map(({ participantId, sequence, startedAt, endedAt, sha256, bytes }) => ({
        participantId,
        sequence,
        startedAt,
        endedAt,
        sha256,
        bytes,
      })),
      segmentsDigest: createHash('sha256')
        .update(segments.map((segment) => segment.sha256).join('\n'))
        .digest('hex'),
      totalMs: segments.reduce((sum, segment) => sum + Math.max(0, segment.endedAt.getTime() - segment.startedAt.getTime()), 0),
      people,
    },
  };
}
