import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { paths } from '#web/paths.ts';
import { browserStartDeps, startGnwJob, type StartPhase } from './start-flow.ts';
import './gnw.css';

const phaseSentences: Record<StartPhase, string> = {
  checking: 'Looking for a notarization you already started…',
  creating: 'Starting your notarization…',
  uploading: 'Uploading your documents…',
};

/** /gnw/start's work: resume or start the job, upload the files kept from the wizard, then on to the setup. */
export function StartProgress() {
  const navigate = useNavigate();
  const [phase, setPhase] = useState<StartPhase>('checking');
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const startedAttempt = useRef<number | null>(null);

  useEffect(() => {
    // Once per attempt, even when React runs the effect twice.
    if (startedAttempt.current === attempt) return;
    startedAttempt.current = attempt;
    setError(null);
    setProgress(null);
    startGnwJob(browserStartDeps, { onPhase: setPhase, onProgress: setProgress })
      .then(({ jobId }) => navigate(`${paths.gnwSetup}?jobId=${encodeURIComponent(jobId)}`, { replace: true }))
      .catch((caught: unknown) => {
        if (caught instanceof ApiError && caught.status === 401) {
          navigate(paths.gnwLogin, { replace: true });
          return;
        }
        setError(caught instanceof ApiError ? caught.message : 'Your documents could not be kept or uploaded in this browser. Please try again.');
      });
  }, [attempt, navigate]);

  return (
    <div className="stack">
      {error ? (
        <div className="stack">
          <FormAlert message={error} />
          <div>
            <button type="button" className="button primary gnw-primary" onClick={() => setAttempt((value) => value + 1)}>
              Try again
            </button>
          </div>
        </div>
      ) : (
        <div className="stack">
          <p role="status">{phase === 'uploading' && progress !== null && progress >= 1 ? 'Checking your PDFs…' : phaseSentences[phase]}</p>
          {phase === 'uploading' ? <progress max={1} value={progress ?? 0} aria-label="Upload progress" /> : null}
          {phase === 'uploading' && progress !== null && progress < 1 ? <p className="muted">{Math.round(progress * 100)}% uploaded</p> : null}
        </div>
      )}
    </div>
  );
}
