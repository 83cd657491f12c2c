/** What the retention rule needs of a recording (a row of `recordings`). */
export interface RetainedRecording {
  status: 'recording' | 'stopped';
  stoppedAt: Date | null;
}

/** What the retention rule needs of a segment (a row of `recording_segments`). */
export interface RetainedSegment {
  endedAt: Date;
}

export type RetentionDecision = { canDelete: true } | { canDelete: false; reason: string };

/** The first moment a recording that stopped at `stoppedAt` may be deleted: `years` calendar years later. */
export function retentionEndsAt(stoppedAt: Date, years: number): Date {
  const ends = new Date(stoppedAt.getTime());
  ends.setUTCFullYear(ends.getUTCFullYear() + years);
  return ends;
}

/**
 * No recording is deleted while it runs, nor before RECORDING_RETENTION_YEARS have passed since it
 * stopped. There is no delete route; whatever deletes recordings later must ask this first.
 */
export function canDeleteRecording(now: Date, recording: RetainedRecording, years: number): RetentionDecision {
  if (recording.status !== 'stopped' || !recording.stoppedAt) return { canDelete: false, reason: 'A recording that is still running cannot be deleted.' };
  const ends = retentionEndsAt(recording.stoppedAt, years);
  if (now.getTime() < ends.getTime()) {
    return {
      canDelete: false,
      reason: `This recording is kept for ${years} ${years === 1 ? 'year' : 'years'} after it stopped, until ${ends.toISOString().slice(0, 10)}.`,
    };
  }
  return { canDelete: true };
}

/** A segment goes only with its recording, and never before the recording's retention ends. */
export function canDeleteRecordingSegment(now: Date, segment: RetainedSegment, recording: RetainedRecording, years: number): RetentionDecision {
  const decision = canDeleteRecording(now, recording, years);
  if (!decision.canDelete) return decision;
  if (now.getTime() < retentionEndsAt(segment.endedAt, years).getTime()) {
    return { canDelete: false, reason: `This segment is kept for ${years} ${years === 1 ? 'year' : 'years'} after it ended.` };
  }
  return { canDelete: true };
}
