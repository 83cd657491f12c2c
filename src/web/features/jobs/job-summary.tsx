import './job-actions.css';
import { useId } from 'react';
import { Link } from 'react-router';
import { jobSchema, jobStatusLabels, type Job, type JobStatus } from '#shared/jobs.ts';
import { formatDateTime } from '#shared/dates.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { planJobActions, type JobAction, type JobViewer } from './job-actions.ts';
import { useJobMutation } from '#web/api/jobs.ts';
import { StatusBadge } from '#web/components/status-badge.tsx';
import { NotaryPicker } from '#web/components/notary-picker.tsx';
import { JobActs } from './job-acts.tsx';

/**
 * The job's facts and what this person may do now: the server lists the moves they may make
 * (`allowedTransitions`), so a signer sees none. No button here starts the session: the notary's
 * primary action is "Open the session room" (the session step), and "Start the notarization" in
 * the room starts the act and its recording together. The next step is the one primary button
 * (job-actions.ts).
 */
export function JobSummary({ job, viewer, areActionsKnown = true }: { job: Job; viewer: JobViewer; areActionsKnown?: boolean }) {
  const { error, notice, run, setError } = useActionStatus();
  const { dialog, ask } = useConfirmDialog();
  const transition = useJobMutation((status: JobStatus) => api.patch(`/api/jobs/${job.id}`, { status, version: job.version }, jobSchema));
  const cancelNoShow = useJobMutation(() => api.patch(`/api/jobs/${job.id}`, { status: 'cancelled', noShow: true, version: job.version }, jobSchema));
  const replaceNotary = useJobMutation((notaryId: string | null) => api.post(`/api/jobs/${job.id}/replace-notary`, { notaryId }, jobSchema));
  const notify = useJobMutation(() => api.post(`/api/jobs/${job.id}/notify`));
  const notifyNotary = useJobMutation(() => api.post(`/api/jobs/${job.id}/notify-ready-for-notary`));
  const plan = planJobActions(job, viewer);
  const canChangeNotary = job.permissions.canManageNotary && ['draft', 'ready', 'scheduled'].includes(job.status);

  const perform = async (action: JobAction) => {
    if (action.kind === 'transition') {
      // A move the server would refuse now says why at once, without asking it.
      if (action.blocker) return setError(action.blocker);
      if (action.isNoShow) {
        const question = {
          title: 'Cancel this job as a no-show? This cannot be undone.',
          description: `Nobody came to the session${job.scheduledAt ? ` of ${formatDateTime(job.scheduledAt)}` : ''}. The no-show fee of the prices, if they have one, is charged${job.companyName ? ` to ${job.companyName}` : ''}.`,
          confirmLabel: 'Cancel as a no-show',
          cancelLabel: 'Keep the job',
          confirmTone: 'danger' as const,
        };
        if ((await ask(question)) === null) return;
        return run(() => cancelNoShow.mutateAsync(undefined), 'The job is cancelled as a no-show.');
      }
      if (
        action.to === 'cancelled' &&
        (await ask({ title: 'Cancel this job? This cannot be undone.', confirmLabel: 'Cancel job', cancelLabel: 'Keep the job' })) === null
      )
        return;
      return run(() => transition.mutateAsync(action.to), `The job is now ${jobStatusLabels[action.to].toLowerCase()}.`);
    }
    if (action.kind === 'notify-participants') return run(() => notify.mutateAsync(undefined), 'Participants notified by email.');
    if (action.kind === 'notify-notary') return run(() => notifyNotary.mutateAsync(undefined), 'The notary was notified.');
  };

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
        <JobActs job={job} run={(action, success) => void run(action, success)} />
        <dt>Scheduled</dt>
        <dd>{job.scheduledAt ? formatDateTime(job.scheduledAt) : 'Not scheduled'}</dd>
        <dt>Notary</dt>
        <dd>
          {canChangeNotary ? (
            <NotaryPicker
              label="Change the notary"
              canSearch
              value={job.notaryId ? { userId: job.notaryId, name: job.notaryName ?? 'The assigned notary', commissionState: '', county: '' } : null}
              onChange={(notary) =>
                void run(() => replaceNotary.mutateAsync(notary?.userId ?? null), notary ? `${notary.name} is now the notary.` : 'The notary was removed.')
              }
            />
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
        {job.jobTypeName ? (
          <>
            <dt>Job type</dt>
            <dd>{job.jobTypeName}</dd>
          </>
        ) : null}
      </dl>
      {job.notaryInstructions ? (
        <section className="notary-instructions" aria-labelledby="notary-instructions-title">
          <h2 id="notary-instructions-title">Instructions for the notary</h2>
          <p className="preserve-lines">{job.notaryInstructions}</p>
        </section>
      ) : null}
      {!areActionsKnown ? <p role="status">Finding your next step…</p> : null}
      {areActionsKnown && plan.primary?.kind === 'session' ? <p className="next-step">{plan.primary.sentence}</p> : null}
      {areActionsKnown && (plan.primary || plan.secondary.length > 0) ? (
        <div className="job-actions" role="group" aria-label="Actions on this job">
          {plan.primary ? (
            <div className="actions">
              <ActionControl action={plan.primary} isPrimary onPerform={perform} />
            </div>
          ) : null}
          {plan.secondary.length > 0 ? (
            <div className="actions secondary-actions">
              {plan.secondary.map((action) => (
                <ActionControl
                  key={action.kind === 'transition' ? `${action.to}${action.isNoShow ? '-no-show' : ''}` : action.kind}
                  action={action}
                  isPrimary={false}
                  onPerform={perform}
                />
              ))}
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** One action: the workspace is a link, the rest buttons; a move not possible yet says why beside it. */
function ActionControl({ action, isPrimary, onPerform }: { action: JobAction; isPrimary: boolean; onPerform: (action: JobAction) => Promise<unknown> }) {
  const hintId = useId();
  const className = isPrimary ? 'button primary' : action.kind === 'transition' && action.isDestructive ? 'button subtle-danger' : 'button';
  if (action.kind === 'workspace' || action.kind === 'session') {
    return (
      <Link className={className} to={action.href}>
        {action.label}
      </Link>
    );
  }
  const blocker = action.kind === 'transition' ? action.blocker : null;
  return (
    <span className="action-with-hint">
      <button type="button" className={className} aria-describedby={blocker ? hintId : undefined} onClick={() => void onPerform(action)}>
        {action.label}
      </button>
      {blocker ? (
        <span className="field-hint" id={hintId}>
          {blocker}
        </span>
      ) : null}
    </span>
  );
}
