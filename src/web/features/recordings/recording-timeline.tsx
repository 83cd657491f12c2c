import type { PlaybackMarker, PlaybackRecording } from '#shared/recording-playback.ts';
import { getTimelineSpan, toPercent as percent } from './recording-time.ts';

interface TimelineProps {
  recording: PlaybackRecording;
  markers: PlaybackMarker[];
  selectedParticipantId: string | null;
  currentSegmentId: string | null;
  onSelect: (participantId: string) => void;
}

/**
 * Every participant's track on one time axis: a stored segment is a filled block, a stretch with
 * nothing stored is empty (a reconnect shows as a hole). The audit events of that time are ticks above.
 */
export function RecordingTimeline({ recording, markers, selectedParticipantId, currentSegmentId, onSelect }: TimelineProps) {
  const span = getTimelineSpan(recording);
  const inSpan = markers.filter((marker) => Date.parse(marker.at) >= span.from && Date.parse(marker.at) <= span.to);
  return (
    <div className="recording-timeline" role="group" aria-label="Participants’ tracks on one timeline">
      <div className="recording-track">
        <span className="muted">Audit events</span>
        <div className="recording-bar markers" aria-hidden="true">
          {inSpan.map((marker) => (
            <span key={marker.id} className="marker" style={{ left: percent(Date.parse(marker.at), span) }} />
          ))}
        </div>
      </div>
      {recording.tracks.map((track) => (
        <div className="recording-track" key={track.participantId}>
          <button type="button" className="button" aria-pressed={track.participantId === selectedParticipantId} onClick={() => onSelect(track.participantId)}>
            {track.name} ({track.role}), {track.segments.length} {track.segments.length === 1 ? 'segment' : 'segments'}
          </button>
          <div className="recording-bar" aria-hidden="true">
            {track.segments.map((segment) => (
              <span
                key={segment.segmentId}
                className={segment.segmentId === currentSegmentId ? 'segment current' : 'segment'}
                style={{
                  left: percent(Date.parse(segment.startedAt), span),
                  width: percent(span.from + Date.parse(segment.endedAt) - Date.parse(segment.startedAt), span),
                }}
              />
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}
