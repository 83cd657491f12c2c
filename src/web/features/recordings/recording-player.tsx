import { useEffect, useRef } from 'react';
import { formatDateTime, formatTime } from '#shared/dates.ts';
import type { PlaybackTrack } from '#shared/recording-playback.ts';

interface PlayerProps {
  track: PlaybackTrack;
  index: number;
  /** Seconds into the segment to start from (a marker chosen on the list). */
  startAt: number;
  onIndexChange: (index: number) => void;
}

/** Plays one participant's stored segments in order: when one ends, the next begins. */
export function RecordingPlayer({ track, index, startAt, onIndexChange }: PlayerProps) {
  const video = useRef<HTMLVideoElement>(null);
  const segment = track.segments[index];
  const isContinuing = useRef(false);
  useEffect(() => {
    const element = video.current;
    if (!element || !segment) return;
    const seek = () => {
      if (startAt > 0) element.currentTime = startAt;
    };
    element.addEventListener('loadedmetadata', seek, { once: true });
    // Going on from the segment that just ended plays at once; a choice of the viewer waits for Play.
    if (isContinuing.current) void element.play().catch(() => undefined);
    isContinuing.current = false;
    return () => element.removeEventListener('loadedmetadata', seek);
  }, [segment, startAt]);
  if (!segment) return <p className="muted">{track.name} has no stored segments in this recording.</p>;
  const last = track.segments.length - 1;
  return (
    <div className="recording-player stack">
      <video
        ref={video}
        key={segment.segmentId}
        src={segment.url}
        controls
        preload="metadata"
        aria-label={`Recording of ${track.name}, segment ${index + 1} of ${track.segments.length}`}
        onEnded={() => {
          if (index < last) {
            isContinuing.current = true;
            onIndexChange(index + 1);
          }
        }}
      />
      <p aria-live="polite">
        {track.name}: segment {index + 1} of {track.segments.length}, {formatDateTime(segment.startedAt)} to {formatTime(segment.endedAt)}.
      </p>
      <p className="hash">SHA-256 {segment.sha256}</p>
      <div className="actions">
        <button type="button" className="button" disabled={index === 0} onClick={() => onIndexChange(index - 1)}>
          Previous segment
        </button>
        <button type="button" className="button" disabled={index === last} onClick={() => onIndexChange(index + 1)}>
          Next segment
        </button>
      </div>
    </div>
  );
}
