import { Link } from 'react-router';
import { jobSchema, jobStatusLabels, notarizationTypes, type Job, type JobStatus } from '#shared/jobs.ts';
import { formatDateTime } from '#shared/dates.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { useJobMutation, useNotaryOptions } from './job-hooks.ts';
import { StatusBadge } from './jobs-table.tsx';

const transitionLabels: Partial<Record<JobStatus, string>> = {
  draft: 'Back to draft',
  ready: 'Mark ready',
  scheduled: 'Schedule',
  in_session: 'Start session',
  cancelled: 'Cancel job',
};

/** A move's button, named for what it does from the current status. */
function getTransitionLabel(from: JobStatus, to: JobStatus): string {
  if (from === 'in_session' && to === 'ready') return 'Pause session';
  if (from === 'scheduled' && to === 'ready') return 'Unschedule';
  return transitionLabels[to] ?? jobStatusLabels[to];
}

/**
 * The job's facts and the moves this person may make now: the server lists only those
 * (`allowedTransitions`), so a signer sees none and only the notary sees "Start session".
 */
export function JobSummary({ job }: { job: Job }) {
  const { error, notice, run } = useActionStatus();
  const { dialog, ask } = useConfirmDialog();
  const notaries = useNotaryOptions(job.permissions.canManageNotary);
  const transition = useJobMutation((status: JobStatus) => api.patch(`/api/jobs/${job.id}`, { status, version: job.version }, jobSchema));
  const replaceNotary = useJobMutation((notaryId: string | null) => api.post(`/api/jobs/${job.id}/replace-notary`, { notaryId }, jobSchema));
  const notify = useJobMutation(() => api.post(`/api/jobs/${job.id}/notify`));
  const notifyNotary = useJobMutation(() => api.post(`/api/jobs/${job.id}/notify-ready-for-notary`));
  const type = notarizationTypes.find((candidate) => candidate.key === job.notarizationType);


  return (
    <section className="card stack" aria-labelledby="job-title">
      <div className="row between wrap">
        <h1 id="job-title">{job.title}</h1>
        <StatusBadge status={job.status} />
      </div>
      {dialog}
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      <dl className="facts">
        <dt>Notarization type</dt>
        <dd>{type?.label ?? job.notarizationType}</dd>
        <dt>Scheduled</dt>
        <dd>{job.scheduledAt ? formatDateTime(job.scheduledAt) : 'Not scheduled'}</dd>
        <dt>Notary</dt>
        <dd>
          {job.permissions.canManageNotary && ['draft', 'ready', 'scheduled'].includes(job.status) ? (
            <>
              <label className="visually-hidden" htmlFor="job-notary">
                Notary
              </label>
              <select
                id="job-notary"
                value={job.notaryId ?? ''}
                onChange={(event) => void run(() => replaceNotary.mutateAsync(event.target.value || null), 'Notary updated.')}
              >
                <option value="">Not assigned</option>
                {job.notaryId && !notaries.data?.items.some((notary) => notary.userId === job.notaryId) ? (
                  <option value={job.notaryId}>{job.notaryName}</option>
                ) : null}
                {(notaries.data?.items ?? []).map((notary) => (
                  <option key={notary.userId} value={notary.userId}>
                    {notary.name} ({notary.commissionState})
                  </option>
                ))}
              </select>
            </>
          ) : (
            (job.notaryName ?? 'Not assigned')
          )}
        </dd>
        {job.companyName ? (
          <>
            <dt>Title company</dt>
            <dd>{job.companyName}</dd>
          </>
        ) : null}
      </dl>
      <div className="actions">
        <Link className="button accent" to={`/signing/${job.id}`}>
          {job.status === 'completed' ? 'Open the signed documents' : 'Open signing workspace'}
        </Link>
      </div>
      {job.allowedTransitions.length > 0 || job.permissions.canEdit ? (
        <div className="actions">
          {job.allowedTransitions.map((status) => (
            <button
              key={status}
              type="button"
              className={status === 'cancelled' ? 'button' : 'button primary'}
              onClick={async () => {
                if (status === 'cancelled' && (await ask({ title: 'Cancel this job? This cannot be undone.', confirmLabel: 'Cancel job', cancelLabel: 'Keep the job' })) === null) return;
                void run(() => transition.mutateAsync(status), `The job is now ${jobStatusLabels[status].toLowerCase()}.`);
              }}
            >
              {getTransitionLabel(job.status, status)}
            </button>
          ))}
          {job.permissions.canEdit && job.participants.length > 0 ? (
            <button type="button" className="button" onClick={() => void run(() => notify.mutateAsync(undefined), 'Participants notified by email.')}>
              Notify participants
            </button>
          ) : null}
          {job.permissions.canEdit && job.notaryId && (job.status === 'ready' || job.status === 'scheduled') ? (
            <button type="button" className="button" onClick={() => void run(() => notifyNotary.mutateAsync(undefined), 'The notary was notified.')}>
              Notify notary
            </button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
