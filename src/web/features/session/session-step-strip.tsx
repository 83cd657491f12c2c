import { Link } from 'react-router';
import { getSessionStep, sessionStatuses } from '#shared/session-steps.ts';
import { useJob } from '#web/api/jobs.ts';
import { useCanEnter } from './api/session-queries.ts';

/**
 * The person's next step for the job's live session, above the signing workspace: someone who
 * opened the workspace of a job whose session is open, or who must prove their identity first, is
 * shown the one way into the room; the workspace itself never holds the call.
 */
export function SessionStepStrip({ jobId }: { jobId: string }) {
  const job = useJob(jobId);
  const isOpenJob = Boolean(job.data && sessionStatuses.includes(job.data.status));
  const canEnter = useCanEnter(jobId, { enabled: isOpenJob, refetchMs: isOpenJob ? 10_000 : false });
  const step =
    job.data && canEnter.data
      ? getSessionStep({ jobId, status: job.data.status, role: canEnter.data.role, identity: canEnter.data.identity, place: canEnter.data.session })
      : null;
  if (!step) return null;
  return (
    <section className={`session-step-strip${step.isUrgent ? ' urgent' : ''}`} aria-label="Your live session">
      <p>{step.sentence}</p>
      <Link className="button primary" to={step.href}>
        {step.label}
      </Link>
    </section>
  );
}
