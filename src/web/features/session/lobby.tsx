import type { CanEnter } from '#shared/jobs.ts';
import { RecordingIndicator } from './recording-indicator.tsx';

/** A signer, witness or observer waits here until the notary lets them in. */
export function Lobby({ jobId, canEnter }: { jobId: string; canEnter: CanEnter }) {
  return (
    <section className="card stack lobby" aria-labelledby="lobby-title">
      <h2 id="lobby-title">Waiting for the notary</h2>
      <p role="status" className="lobby-status">
        <span className="spinner" aria-hidden="true" /> The notary will let you in. Keep this page open: you go to the session as soon as you are admitted.
      </p>
      {canEnter.role === 'observer' ? <p>You are an observer: you will see and hear the session, and you do not sign.</p> : null}
      <p>The session is recorded, as you agreed.</p>
      <RecordingIndicator jobId={jobId} />
    </section>
  );
}

/** The notary kept this person out. */
export function Denied() {
  return (
    <section className="card stack" aria-labelledby="denied-title">
      <h2 id="denied-title">You were not admitted</h2>
      <p role="alert">The notary did not admit you to this session. If you think this is a mistake, contact the notary or the person who sent you the job.</p>
    </section>
  );
}
