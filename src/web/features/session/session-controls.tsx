import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { VideoSessionParticipant } from '#shared/video.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { completePath, sessionCalls, useCanEnter, useSessionAction, useVideoSession } from './api/session-queries.ts';
import { getStartControl } from './session-words.ts';
import './session.css';

export { RecordingIndicator } from './recording-indicator.tsx';

const roleLabels: Record<VideoSessionParticipant['role'], string> = {
  notary: 'notary',
  signer: 'signer',
  witness: 'witness',
  observer: 'observer: observes, does not sign',
};

function Person({ person }: { person: VideoSessionParticipant }) {
  return (
    <span className="session-person">
      <strong>{person.name}</strong> <span className="muted">({roleLabels[person.role]})</span>
      {person.isAway ? <span className="badge">away</span> : null}
    </span>
  );
}

/**
 * The notary's controls of the live session: who waits (admit or deny), who is in, start, recording,
 * and ending the session for everyone.
 */
export function SessionControls({ jobId, sessionId }: { jobId: string; sessionId: string }) {
  const navigate = useNavigate();
  const session = useVideoSession(jobId, sessionId);
  const canEnter = useCanEnter(jobId);
  const { dialog, ask } = useConfirmDialog();
  const status = useActionStatus();
  const action = useSessionAction(jobId);
  const recording = canEnter.data?.session.recording ?? null;
  const people = session.data?.participants ?? [];
  const waiting = people.filter((person) => person.lobbyState === 'waiting');
  const inside = people.filter((person) => person.lobbyState === 'admitted');
  const sessionStatus = session.data?.status;
  const isBusy = action.isBusy;
  /** What ending the session is doing now: stopping a recording stores its last segments first. */
  const [progress, setProgress] = useState<string | null>(null);
  const perform = (run: () => Promise<unknown>, success?: string) => action.perform(() => status.run(run, success));
  const startControl = getStartControl(sessionStatus, recording !== null);
  const stopRecording = async (recordingId: string) => {
    const answer = await ask({
      title: 'Stop the recording?',
      description: 'Nobody can sign while the session is not recorded, and the time until you resume shows as a gap on the record.',
      confirmLabel: 'Stop recording',
      confirmTone: 'danger',
      cancelLabel: 'Keep recording',
    });
    if (answer !== null) await perform(() => sessionCalls.stopRecording(sessionId, recordingId), 'Recording stopped.');
  };

  const deny = async (person: VideoSessionParticipant, isInside: boolean) => {
    const answer = await ask({
      title: isInside ? `Remove ${person.name} from the session?` : `Keep ${person.name} out of the session?`,
      description: `${person.name} is told you did not admit them and cannot enter this session again.`,
      confirmLabel: isInside ? 'Remove' : 'Deny',
      confirmTone: 'danger',
      cancelLabel: 'Cancel',
    });
    if (answer !== null) await perform(() => sessionCalls.deny(sessionId, person.participantId), `${person.name} was kept out of the session.`);
  };
  const end = async () => {
    const answer = await ask({
      title: 'End the session for everyone?',
      description: 'Everyone leaves the room and the recording stops. A job not yet sealed goes back to ready, and another session can finish it.',
      confirmLabel: 'End the session',
      confirmTone: 'danger',
      cancelLabel: 'Cancel',
    });
    if (answer === null) return;
    await perform(async () => {
      try {
        if (recording) {
          setProgress('Saving the last seconds of the recording…');
          await sessionCalls.stopRecording(sessionId, recording.recordingId);
        }
        setProgress('Ending the session for everyone…');
        await sessionCalls.finalize(sessionId);
      } finally {
        setProgress(null);
      }
      navigate(completePath(jobId));
    });
  };

  return (
    <section className="session-controls stack" aria-labelledby="session-controls-title">
      <h2 id="session-controls-title">Session controls</h2>
      {session.error ? <FormAlert message={session.error.message} /> : null}
      <FormAlert message={status.error} />
      <FormAlert message={status.notice} tone="success" />
      <h3>Waiting to be let in</h3>
      {waiting.length === 0 ? <p className="empty">No one is waiting.</p> : null}
      <ul className="session-people" aria-label="Waiting to be let in">
        {waiting.map((person) => (
          <li key={person.participantId}>
            <Person person={person} />
            <span className="actions">
              <button
                type="button"
                className="button primary"
                disabled={isBusy}
                onClick={() => void perform(() => sessionCalls.admit(sessionId, person.participantId), `${person.name} was let in.`)}
              >
                Admit <span className="visually-hidden">{person.name}</span>
              </button>
              <button type="button" className="button" disabled={isBusy} onClick={() => void deny(person, false)}>
                Deny <span className="visually-hidden">{person.name}</span>
              </button>
            </span>
          </li>
        ))}
      </ul>
      <h3>In the session</h3>
      <ul className="session-people" aria-label="In the session">
        {inside.map((person) => (
          <li key={person.participantId}>
            <Person person={person} />
            {person.role === 'notary' ? null : (
              <button type="button" className="button" disabled={isBusy} onClick={() => void deny(person, true)}>
                Remove <span className="visually-hidden">{person.name}</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      <div className="actions session-actions">
        {startControl.kind === 'start' ? (
          <button
            type="button"
            className="button primary"
            disabled={isBusy}
            aria-describedby="session-start-hint"
            onClick={() =>
              void perform(async () => {
                await sessionCalls.start(sessionId);
                await sessionCalls.startRecording(sessionId);
              }, 'The notarization has started and is being recorded.')
            }
          >
            {startControl.label}
          </button>
        ) : null}
        {startControl.kind === 'resume-recording' ? (
          <button
            type="button"
            className="button accent"
            disabled={isBusy}
            aria-describedby="session-start-hint"
            onClick={() => void perform(() => sessionCalls.startRecording(sessionId), 'Recording again.')}
          >
            {startControl.label}
          </button>
        ) : null}
        {startControl.kind === 'recording' && recording ? (
          <button
            type="button"
            className="button"
            disabled={isBusy}
            aria-describedby="session-start-hint"
            onClick={() => void stopRecording(recording.recordingId)}
          >
            {startControl.label}
          </button>
        ) : null}
        <button type="button" className="button danger" disabled={isBusy} onClick={() => void end()}>
          End the session
        </button>
      </div>
      {startControl.kind === 'none' ? null : (
        <p id="session-start-hint" className="muted">
          {startControl.hint}
        </p>
      )}
      <p role="status" className="muted">
        {progress}
      </p>
      {dialog}
    </section>
  );
}
