import { z } from 'zod';

/**
 * Playback of a job's session recordings (decision 022): for the job's notary and administrators,
 * read-only. Each participant's stored segments form a track; the job's audit events are markers.
 */

export const playbackSegmentSchema = z.object({
  segmentId: z.string(),
  sequence: z.number().int(),
  startedAt: z.string(),
  endedAt: z.string(),
  sha256: z.string(),
  bytes: z.number().int(),
  /** GET address of the stored WebM. */
  url: z.string(),
});
export type PlaybackSegment = z.infer<typeof playbackSegmentSchema>;

export const playbackTrackSchema = z.object({
  /** The job participant id, or "notary". */
  participantId: z.string(),
  name: z.string(),
  role: z.string(),
  segments: z.array(playbackSegmentSchema),
});
export type PlaybackTrack = z.infer<typeof playbackTrackSchema>;

export const playbackRecordingSchema = z.object({
  recordingId: z.string(),
  sessionId: z.string(),
  status: z.enum(['recording', 'stopped']),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  /** The first day it may be deleted (retention years after it stopped); null while it runs. */
  keptUntil: z.string().nullable(),
  tracks: z.array(playbackTrackSchema),
});
export type PlaybackRecording = z.infer<typeof playbackRecordingSchema>;

export const playbackMarkerSchema = z.object({
  id: z.string(),
  at: z.string(),
  action: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export type PlaybackMarker = z.infer<typeof playbackMarkerSchema>;

export const jobRecordingsSchema = z.object({
  jobId: z.string(),
  jobTitle: z.string(),
  retentionYears: z.number().int(),
  recordings: z.array(playbackRecordingSchema),
  markers: z.array(playbackMarkerSchema),
});
export type JobRecordings = z.infer<typeof jobRecordingsSchema>;
