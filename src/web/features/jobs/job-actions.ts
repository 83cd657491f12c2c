import { getTransitionBlocker, jobStatusLabels, type Job, type JobStatus } from '#shared/jobs.ts';

/**
 * What the job page offers this person, and which one thing is the next step. The moves come from
 * the server (`allowedTransitions`, computed with `getAllowedTransitions` of src/shared/jobs.ts), so
 * a role is offered only what the server would accept; this module only orders and names them.
 */
export type JobAction =
  | { kind: 'transition'; to: JobStatus; label: string; blocker: string | null; isDestructive: boolean }
  | { kind: 'workspace'; label: string; href: string }
  | { kind: 'notify-participants'; label: string }
  | { kind: 'notify-notary'; label: string };

export interface JobActionPlan {
  /** The next step, shown as the one primary button; null when there is nothing for this person to do. */
  primary: JobAction | null;
  /** Everything else this person may do, less prominent, the cancellation last. */
  secondary: JobAction[];
}

export type JobFacts = Pick<Job, 'id' | 'status' | 'allowedTransitions' | 'permissions' | 'participants' | 'documentCount' | 'notaryId' | 'scheduledAt'>;

/** The moves that take a job forward, by status, the likeliest next step first. */
const forwardMoves: Record<JobStatus, readonly JobStatus[]> = {
  draft: ['ready'],
  ready: ['in_session', 'scheduled'],
  scheduled: ['in_session'],
  in_session: [],
  completed: [],
  cancelled: [],
};

/** A move's button, named for what it does from the current status. */
export function getTransitionLabel(from: JobStatus, to: JobStatus): string {
  if (from === 'in_session' && to === 'ready') return 'Pause session';
  if (from === 'scheduled' && to === 'ready') return 'Unschedule';
  if (to === 'draft') return 'Back to draft';
  if (to === 'ready') return 'Mark ready';
  if (to === 'scheduled') return 'Schedule';
  if (to === 'in_session') return 'Start session';
  if (to === 'cancelled') return 'Cancel job';
  return jobStatusLabels[to];
}

function toTransition(job: JobFacts, to: JobStatus): JobAction {
  const blocker = getTransitionBlocker(job.status, to, {
    signerCount: job.participants.filter((participant) => participant.role === 'signer').length,
    documentCount: job.documentCount,
    hasNotary: job.notaryId !== null,
    scheduledAt: job.scheduledAt,
  });
  return { kind: 'transition', to, label: getTransitionLabel(job.status, to), blocker, isDestructive: to === 'cancelled' };
}

function toWorkspace(job: JobFacts): JobAction {
  const label = job.status === 'completed' ? 'Open the signed documents' : 'Open signing workspace';
  return { kind: 'workspace', label, href: `/signing/${job.id}` };
}

/**
 * The plan: the primary action is the first forward move this person may make now (not blocked by
 * a missing signer, document, notary or date); otherwise the signing workspace, where a live
 * session, the signing and the sealed output happen. A cancelled job offers nothing.
 */
export function planJobActions(job: JobFacts): JobActionPlan {
  const transitions = job.allowedTransitions.map((to) => toTransition(job, to));
  const forward = forwardMoves[job.status]
    .map((to) => transitions.find((action) => action.kind === 'transition' && action.to === to))
    .filter((action): action is JobAction => action !== undefined);
  const nextMove = forward.find((action) => action.kind === 'transition' && action.blocker === null) ?? null;
  const workspace = job.status === 'cancelled' ? null : toWorkspace(job);
  const primary = nextMove ?? workspace;

  const notifications: JobAction[] = [];
  if (job.permissions.canEdit && job.participants.length > 0) notifications.push({ kind: 'notify-participants', label: 'Notify participants' });
  if (job.permissions.canEdit && job.notaryId && (job.status === 'ready' || job.status === 'scheduled')) notifications.push({ kind: 'notify-notary', label: 'Notify notary' });

  const others = transitions.filter((action) => action !== primary);
  const secondary = [
    ...(workspace && workspace !== primary ? [workspace] : []),
    ...others.filter((action) => action.kind === 'transition' && !action.isDestructive),
    ...notifications,
    ...others.filter((action) => action.kind === 'transition' && action.isDestructive),
  ];
  return { primary, secondary };
}
