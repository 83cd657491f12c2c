import { jobStatusLabels, jobStatuses, type JobListItem, type JobStatus, type JobStatusCounts } from '#shared/jobs.ts';
import type { PendingJobItem } from '#shared/notifications.ts';
import { getEffectiveRole, type RoleBearer } from '#shared/roles.ts';
import { sessionEntryPath } from '#shared/session-steps.ts';

/** Which home the dashboard shows above the jobs list. */
export type HomeKind = 'signer' | 'notary' | 'title' | 'admin' | 'billing';

/** The home of a user: by their effective role; none for an account awaiting approval or a role with no jobs to act on. */
export function getHomeKind(user: RoleBearer & { status?: string | null }): HomeKind | null {
  if (user.status === 'pending') return null;
  const role = getEffectiveRole(user);
  if (role === 'admin' || role === 'notary') return role;
  if (role === 'title' || role === 'title_agent') return 'title';
  if (role === 'signer' || role === 'witness') return 'signer';
  if (role === 'billing' || role === 'finance') return 'billing';
  return null;
}

/** The viewer's day, from their midnight to the next, as the instants the jobs list filters with. */
export function getDayWindow(now: Date): { scheduledFrom: string; scheduledTo: string } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return { scheduledFrom: start.toISOString(), scheduledTo: end.toISOString() };
}

export interface JobLine {
  /** What the job is waiting for, in a sentence. */
  sentence: string;
  /** The one thing to do about it: its words, its name with the job's title (for a list of several), where it goes. */
  action: { label: string; name: string; href: string };
}

const act = (label: string, title: string, href: string) => ({ label, name: `${label}: ${title}`, href });

const jobPage = (id: string) => `/jobs/detail?jobId=${encodeURIComponent(id)}`;

/*
 * A job with a live session leads into its session entry page (src/shared/session-steps.ts), which
 * shows the identity step, the device check or the lobby, and sends an admitted person to the room.
 */

/** A job waiting for a signer or witness: what it waits for and what to do. */
export function describeWaitingJob(
  job: Pick<JobListItem, 'id' | 'title' | 'status' | 'scheduledAt' | 'isInvitation'>,
  formatDate: (iso: string) => string,
): JobLine {
  if (job.isInvitation)
    return { sentence: 'You are invited to this job. Open it to accept the invitation.', action: act('Open the invitation', job.title, jobPage(job.id)) };
  if (job.status === 'in_session')
    return { sentence: 'The session is live: join it now to sign.', action: act('Enter the session room', job.title, sessionEntryPath(job.id)) };
  const getReady = act('Get ready for the session', job.title, sessionEntryPath(job.id));
  if (job.status === 'scheduled' && job.scheduledAt) {
    return { sentence: `Your session is scheduled for ${formatDate(job.scheduledAt)}. Prove your identity and check your camera before it.`, action: getReady };
  }
  return { sentence: 'The documents are ready. Prove your identity and check your camera now; you enter when the notary opens the session.', action: getReady };
}

/** A job on the notary's list: what it needs from them. */
export function describeNotaryJob(job: Pick<JobListItem, 'id' | 'title' | 'status' | 'scheduledAt'>, formatTime: (iso: string) => string): JobLine {
  if (job.status === 'in_session')
    return { sentence: 'In session: complete and seal the documents.', action: act('Return to the session room', job.title, sessionEntryPath(job.id)) };
  if (job.status === 'ready')
    return { sentence: 'Ready for you: review the documents and start or schedule the session.', action: act('Review the job', job.title, jobPage(job.id)) };
  if (job.status === 'scheduled' && job.scheduledAt)
    return { sentence: `Scheduled for ${formatTime(job.scheduledAt)}.`, action: act('Open the job', job.title, jobPage(job.id)) };
  return { sentence: `${jobStatusLabels[job.status]}.`, action: act('Open the job', job.title, jobPage(job.id)) };
}

/** Notices about a live or coming session lead into it; the others to the job page. */
const sessionNoticeKinds = new Set(['session_live', 'session_open', 'session_scheduled', 'job_ready']);

/** Where a notice of the bell leads: where its person must go next. */
export function getNotificationHref(item: Pick<PendingJobItem, 'jobId' | 'kind'>): string {
  return sessionNoticeKinds.has(item.kind) ? sessionEntryPath(item.jobId) : jobPage(item.jobId);
}

const statusNouns: Record<JobStatus, [string, string]> = {
  draft: ['draft to finish', 'drafts to finish'],
  ready: ['job ready for its session', 'jobs ready for their sessions'],
  scheduled: ['session scheduled', 'sessions scheduled'],
  in_session: ['session in progress', 'sessions in progress'],
  completed: ['job completed', 'jobs completed'],
  cancelled: ['job cancelled', 'jobs cancelled'],
};

function joinWords(parts: readonly string[]): string {
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

/** The jobs by status in one sentence, the open ones first: "You have 2 drafts to finish and 1 session in progress." */
export function summarizeStatusCounts(counts: JobStatusCounts): string {
  const total = jobStatuses.reduce((sum, status) => sum + counts[status], 0);
  if (total === 0) return 'You have no jobs yet. Use New Signing Request to create one.';
  const open = (['draft', 'ready', 'scheduled', 'in_session'] as const).filter((status) => counts[status] > 0);
  if (open.length === 0) return total === 1 ? 'Your one job needs nothing more now.' : `None of your ${total} jobs needs anything more now.`;
  return `You have ${joinWords(open.map((status) => `${counts[status]} ${statusNouns[status][counts[status] === 1 ? 0 : 1]}`))}.`;
}

/** What waits for an administrator's approval, in a sentence. */
export function summarizePendingApprovals(notaries: number, companies: number): string {
  if (notaries + companies === 0) return 'No one is waiting for approval.';
  const parts = [
    notaries > 0 ? `${notaries} ${notaries === 1 ? 'notary' : 'notaries'}` : null,
    companies > 0 ? `${companies} ${companies === 1 ? 'title company' : 'title companies'}` : null,
  ].filter((part): part is string => part !== null);
  return `${joinWords(parts)} ${notaries + companies === 1 ? 'is' : 'are'} waiting for your approval.`;
}
