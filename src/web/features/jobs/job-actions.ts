import { getTransitionBlocker, jobStatusLabels, type Job, type JobStatus } from '#shared/jobs.ts';
import type { SessionStep } from '#shared/session-steps.ts';

/**
 * What the job page offers this person, and which one thing is the next step. The moves come from
 * the server (`allowedTransitions`, computed with `getAllowedTransitions` of src/shared/jobs.ts), so
 * a role is offered only what the server would accept; this module only orders and names them.
 */
export type JobAction =
  | { kind: 'transition'; to: JobStatus; label: string; blocker: string | null; isDestructive: boolean; isNoShow?: boolean }
  | { kind: 'workspace'; label: string; href: string }
  | { kind: 'session'; label: string; href: string; sentence: string }
  | { kind: 'notify-participants'; label: string }
  | { kind: 'notify-notary'; label: string };

export interface JobActionPlan {
  /** The next step, shown as the one primary button; null when there is nothing for this person to do. */
  primary: JobAction | null;
  /** Everything else this person may do, less prominent, the cancellation last. */
  secondary: JobAction[];
}

export type JobFacts = Pick<Job, 'id' | 'status' | 'allowedTransitions' | 'permissions' | 'participants' | 'documentCount' | 'notaryId' | 'scheduledAt'>;

/** Who looks at the job: their user id, and their next step for its live session (src/shared/session-steps.ts), when they take part. */
export interface JobViewer {
  id: string | null;
  sessionStep: SessionStep | null;
}

/**
 * The moves that take a job forward, by status, the likeliest next step first. "In session" is not
 * among them: the notary starts the act inside the room, so
 * the job page leads into the room instead of moving the status by itself.
 */
const forwardMoves: Record<JobStatus, readonly JobStatus[]> = {
  draft: ['ready'],
  ready: ['scheduled'],
  scheduled: [],
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
 * The plan: the primary action is the person's session step when they take part in the live session
 * (prove identity, open or enter the room, return to it); else the first forward move this person
 * may make now (not blocked by a missing signer, document, notary or date); otherwise the signing
 * workspace, where the signing and the sealed output are seen. A cancelled job offers nothing.
 */
export function planJobActions(job: JobFacts, viewer: JobViewer, now = Date.now()): JobActionPlan {
  const transitions = job.allowedTransitions.filter((to) => to !== 'in_session').map((to) => toTransition(job, to));
  // A session whose time has passed with the job still waiting: nobody came, and it may be cancelled as a no-show (its fee charged).
  const isPastItsTime = job.scheduledAt !== null && Date.parse(job.scheduledAt) < now && (job.status === 'scheduled' || job.status === 'ready');
  if (isPastItsTime && job.allowedTransitions.includes('cancelled')) {
    transitions.push({ kind: 'transition', to: 'cancelled', label: 'Cancel as a no-show', blocker: null, isDestructive: true, isNoShow: true });
  }
  const forward = forwardMoves[job.status]
    .map((to) => transitions.find((action) => action.kind === 'transition' && action.to === to))
    .filter((action): action is JobAction => action !== undefined);
  const nextMove = forward.find((action) => action.kind === 'transition' && action.blocker === null) ?? null;
  const workspace = job.status === 'cancelled' ? null : toWorkspace(job);
  const step = viewer.sessionStep;
  const session: JobAction | null = step ? { kind: 'session', label: step.label, href: step.href, sentence: step.sentence } : null;
  const primary = session ?? nextMove ?? workspace;

  const notifications: JobAction[] = [];
  if (job.permissions.canEdit && job.participants.length > 0) notifications.push({ kind: 'notify-participants', label: 'Notify participants' });
  const isViewerTheNotary = viewer.id !== null && viewer.id === job.notaryId;
  if (job.permissions.canEdit && job.notaryId && !isViewerTheNotary && (job.status === 'ready' || job.status === 'scheduled'))
    notifications.push({ kind: 'notify-notary', label: 'Notify notary' });

  const others = transitions.filter((action) => action !== primary && action !== nextMove);
  const secondary = [
    ...(workspace && workspace !== primary ? [workspace] : []),
    ...(nextMove && nextMove !== primary ? [nextMove] : []),
    ...others.filter((action) => action.kind === 'transition' && !action.isDestructive),
    ...notifications,
    ...others.filter((action) => action.kind === 'transition' && action.isDestructive),
  ];
  return { primary, secondary };
}
