import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatTime } from '#shared/dates.ts';
import type { GnwJob } from '#shared/gnw.ts';
import { sessionEntryPath } from '#shared/session-steps.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { describeHold, describeNotariesOnline, describePlace, describeTypicalWait } from './setup-view.ts';

function useSetJob(jobId: string) {
  const queryClient = useQueryClient();
  return (next: GnwJob) => queryClient.setQueryData(gnwKeys.job(jobId), next);
}

/** Picking a time from the instant lane: in setup the lane changes; after a search, switch-to-scheduled keeps the hold. */
async function moveToScheduled(job: GnwJob): Promise<GnwJob> {
  if (job.status === 'setup') return gnwApi.updateJob(job.jobId, { lane: 'scheduled', step: 'notary' });
  return gnwApi.switchToScheduled(job.jobId);
}

/** "Your notary": now, or a time. */
export function ChooseLane({ job }: { job: GnwJob }) {
  const setJob = useSetJob(job.jobId);
  const { error, run } = useActionStatus();
  return (
    <div className="stack">
      <p>{describeHold(job.payment)}</p>
      <div className="gnw-choices">
        <button type="button" className="button primary" onClick={() => void run(async () => setJob(await gnwApi.instant(job.jobId)))}>
          <span>
            <strong>Connect me with a notary now</strong>
            <br />
            <span className="small">We ask the notaries online, one at a time, until one accepts.</span>
          </span>
        </button>
        <button type="button" className="button" onClick={() => void run(async () => setJob(await moveToScheduled(job)))}>
          <span>
            <strong>Pick a time</strong>
            <br />
            <span className="small">Book a session with a notary later, in your time zone.</span>
          </span>
        </button>
      </div>
      <FormAlert message={error} />
    </div>
  );
}

/** The search: the page refetches the job every 2 s (gnwJobQueryOptions); the status line is a polite live region. */
export function Searching({ job }: { job: GnwJob }) {
  const search = job.search;
  return (
    <div className="stack">
      <div className="gnw-searching">
        <span className="spinner" aria-hidden="true" />
        <div role="status" aria-live="polite" className="stack">
          {search ? (
            <>
              <p className="strong">{search.ringing ? 'A notary is looking at your request now.' : describePlace(search.place)}</p>
              <p>{describeNotariesOnline(search.notariesOnline)}</p>
              <p>{describeTypicalWait(search.typicalWaitSeconds)}</p>
            </>
          ) : (
            <p>Asking the notaries online…</p>
          )}
        </div>
      </div>
      {search ? <p className="muted small">We keep asking until {formatTime(search.endsAt)}; you can leave this page and come back.</p> : null}
      <p className="muted small">{describeHold(job.payment)}</p>
    </div>
  );
}

/** Nobody accepted in time: wait again, or pick a time (the hold is kept either way). */
export function Unmatched({ job }: { job: GnwJob }) {
  const setJob = useSetJob(job.jobId);
  const { error, run } = useActionStatus();
  return (
    <div className="stack">
      <p role="status">No notary accepted in time. Your card hold is kept: pick a time, or keep waiting for a notary now.</p>
      <div className="gnw-choices">
        <button type="button" className="button primary" onClick={() => void run(async () => setJob(await moveToScheduled(job)))}>
          Pick a time instead
        </button>
        <button type="button" className="button" onClick={() => void run(async () => setJob(await gnwApi.instant(job.jobId)))}>
          Keep waiting
        </button>
      </div>
      <FormAlert message={error} />
    </div>
  );
}

/** A notary accepted: the next step is the identity step on the session entry page. */
export function Matched({ job }: { job: GnwJob }) {
  return (
    <div className="stack">
      <p role="status">
        {job.notaryName ?? 'A notary'} accepted{job.matchedAt ? ` at ${formatTime(job.matchedAt)}` : ''} and is waiting for you. First, prove your identity:
        photos of your ID, a photo of your face and a few questions. Then you join the notary in the session.
      </p>
      <div className="actions">
        <Link className="button primary gnw-primary" to={sessionEntryPath(job.jobId)}>
          Prove your identity
        </Link>
      </div>
    </div>
  );
}
