import { useQueries } from '@tanstack/react-query';
import { Link } from 'react-router';
import { jobStatusLabels, type JobListItem } from '#shared/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useJobs } from '#web/api/jobs.ts';
import { paths } from '#web/paths.ts';
import { canEnterQueryOptions } from './api/session-queries.ts';

const roleWords: Record<string, string> = { notary: 'You notarize', signer: 'You sign', witness: 'You witness', observer: 'You observe (you do not sign)' };

/** Jobs in which a session can happen now or soon, and the caller's place in each (from can-enter). */
function useEnterableJobs() {
  const ready = useJobs({ status: 'ready', pageSize: 50 });
  const scheduled = useJobs({ status: 'scheduled', pageSize: 50 });
  const inSession = useJobs({ status: 'in_session', pageSize: 50 });
  const lists = [inSession, ready, scheduled];
  const jobs: JobListItem[] = lists.flatMap((list) => list.data?.items ?? []).filter((job) => !job.isInvitation);
  const answers = useQueries({
    queries: jobs.map((job) => canEnterQueryOptions(job.id)),
  });
  const isPending = lists.some((list) => list.isPending) || answers.some((answer) => answer.isPending);
  const error = lists.find((list) => list.error)?.error ?? null;
  const rows = jobs.flatMap((job, index) => {
    const answer = answers[index]?.data;
    return answer?.role ? [{ job, canEnter: answer }] : [];
  });
  return { rows, isPending, error };
}

/** /session: the person's sessions they can enter now or soon, each with Enter. */
export function SessionList() {
  const { rows, isPending, error } = useEnterableJobs();
  if (error) return <FormAlert message={error.message} />;
  if (isPending) return <p role="status">Looking for your sessions…</p>;
  if (rows.length === 0) {
    return (
      <div className="card stack">
        <h2>No sessions to enter</h2>
        <p className="empty">
          You have no session to enter now. A session appears here when a job you notarize, sign, witness or observe is ready, scheduled or in session.
        </p>
        <p>
          <Link to={paths.dashboard}>Go to your dashboard</Link>
        </p>
      </div>
    );
  }
  return (
    <ul className="session-list" aria-label="Your sessions">
      {rows.map(({ job, canEnter }) => (
        <li key={job.id} className="review-item">
          <h2>{job.title}</h2>
          <p>
            <span className={`badge status-${job.status}`}>{jobStatusLabels[job.status]}</span> {roleWords[canEnter.role ?? ''] ?? ''}
            {job.scheduledAt ? ` · scheduled for ${new Date(job.scheduledAt).toLocaleString()}` : ''}
          </p>
          <p>{canEnter.canEnter ? 'You can enter now.' : (canEnter.reasons[0] ?? '')}</p>
          <Link className="button primary" to={`/session/${job.id}`} aria-label={`Enter the session of ${job.title}`}>
            Enter
          </Link>
        </li>
      ))}
    </ul>
  );
}
