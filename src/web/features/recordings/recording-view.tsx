import { useState } from 'react';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { formatDate, formatDateTime, formatTime } from '#shared/dates.ts';
import type { JobRecordings, PlaybackRecording } from '#shared/recording-playback.ts';
import { RecordingPlayer } from './recording-player.tsx';
import { findSegmentAt, getTimelineSpan } from './recording-time.ts';
import { RecordingTimeline } from './recording-timeline.tsx';
import './recording-playback.css';

function describeRecording(recording: PlaybackRecording, retentionYears: number): string {
  const started = `Started ${formatDateTime(recording.startedAt)}`;
  if (!recording.stoppedAt || !recording.keptUntil) return `${started}; still recording. It is kept for ${retentionYears} years after it stops.`;
  return `${started}, stopped ${formatTime(recording.stoppedAt)}. Kept, and never deleted, until ${formatDate(recording.keptUntil)} (${retentionYears} years after it stopped).`;
}

/** One recording: its summary, the shared timeline, the player of the chosen participant, and the events to jump to. */
export function RecordingView({ data, recording }: { data: JobRecordings; recording: PlaybackRecording }) {
  const [participantId, setParticipantId] = useState<string | null>(recording.tracks[0]?.participantId ?? null);
  const [position, setPosition] = useState({ index: 0, offset: 0 });
  const track = recording.tracks.find((candidate) => candidate.participantId === participantId) ?? null;
  const span = getTimelineSpan(recording);
  const markers = data.markers.filter((marker) => Date.parse(marker.at) >= span.from && Date.parse(marker.at) <= span.to);
  const playFrom = (at: number) => {
    if (!participantId) return;
    const found = findSegmentAt(recording, participantId, at);
    if (found) setPosition(found);
  };
  return (
    <section className="card stack" aria-labelledby={`recording-${recording.recordingId}`}>
      <h2 id={`recording-${recording.recordingId}`}>Recording of {formatDate(recording.startedAt)}</h2>
      <p>{describeRecording(recording, data.retentionYears)}</p>
      {recording.tracks.length === 0 ? (
        <p className="notice">
          No audio or video has been stored for this recording yet. What the server records of each participant appears here as it is saved.
        </p>
      ) : (
        <>
          <p className="muted">
            Choose a participant to play their audio and video. Empty stretches on a track are times when nothing of them was stored, for example while they
            reconnected.
          </p>
          <RecordingTimeline
            recording={recording}
            markers={data.markers}
            selectedParticipantId={participantId}
            currentSegmentId={track?.segments[position.index]?.segmentId ?? null}
            onSelect={(next) => {
              setParticipantId(next);
              setPosition({ index: 0, offset: 0 });
            }}
          />
          {track ? (
            <RecordingPlayer track={track} index={position.index} startAt={position.offset} onIndexChange={(index) => setPosition({ index, offset: 0 })} />
          ) : null}
        </>
      )}
      <h3>What happened during this recording</h3>
      {markers.length === 0 ? (
        <p className="muted">No events of the job were recorded in this time.</p>
      ) : (
        <ol className="recording-markers" aria-label="Audit events during the recording">
          {markers.map((marker) => (
            <li key={marker.id}>
              <time dateTime={marker.at}>{formatTime(marker.at)}</time> · {describeAuditEvent({ ...marker, actorId: marker.actorId })}{' '}
              {track ? (
                <button type="button" className="button link" onClick={() => playFrom(Date.parse(marker.at))}>
                  Play {track.name} from here
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
