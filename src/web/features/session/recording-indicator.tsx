import { useCanEnter } from './api/session-queries.ts';
import './session.css';

/**
 * Visible to everyone in the session: a red dot and "Recording" while the notary records, with the
 * sentence a person who just joined needs. The status region is always there, so a screen reader
 * hears recording start and stop.
 */
export function RecordingIndicator({ jobId }: { jobId: string }) {
  const canEnter = useCanEnter(jobId);
  const recording = canEnter.data?.session.recording ?? null;
  return (
    <div role="status" className={recording ? 'recording-indicator is-recording' : 'recording-indicator'}>
      {recording ? (
        <>
          <span className="recording-dot" aria-hidden="true" />
          <strong>Recording</strong>
          <span className="recording-sentence">
            This session is being recorded, sound and video, since {new Date(recording.startedAt).toLocaleTimeString()}.
          </span>
        </>
      ) : null}
    </div>
  );
}
