import type { PlaybackRecording } from '#shared/recording-playback.ts';

/** The time span a recording's timeline shows: from its start to its stop (or its last stored media). */
export function getTimelineSpan(recording: PlaybackRecording): { from: number; to: number } {
  const from = Date.parse(recording.startedAt);
  const ends = recording.tracks.flatMap((track) => track.segments.map((segment) => Date.parse(segment.endedAt)));
  const to = Math.max(from + 1000, recording.stoppedAt ? Date.parse(recording.stoppedAt) : from, ...ends);
  return { from, to };
}

/** Where a moment lies on the timeline, as a CSS percentage. */
export function toPercent(value: number, span: { from: number; to: number }): string {
  return `${(((value - span.from) / (span.to - span.from)) * 100).toFixed(3)}%`;
}

/** The segment of a participant's track that holds a moment, or the first one after it; with the seconds into it. */
export function findSegmentAt(recording: PlaybackRecording, participantId: string, at: number): { index: number; offset: number } | null {
  const segments = recording.tracks.find((track) => track.participantId === participantId)?.segments ?? [];
  const index = segments.findIndex((segment) => Date.parse(segment.endedAt) > at);
  const segment = segments[index];
  if (!segment) return null;
  return { index, offset: Math.max(0, (at - Date.parse(segment.startedAt)) / 1000) };
}
