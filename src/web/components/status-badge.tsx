import { jobStatusLabels, type JobStatus } from '#shared/jobs.ts';

/** A job's status as a coloured badge, as the jobs table and the role homes show it. */
export function StatusBadge({ status }: { status: JobStatus }) {
  return <span className={`badge status-${status}`}>{jobStatusLabels[status]}</span>;
}
