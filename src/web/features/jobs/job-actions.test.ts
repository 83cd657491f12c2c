import { describe, expect, it } from 'vitest';
import { getAllowedTransitions, jobStatuses, type JobActor, type JobPermissions, type JobStatus, type Participant } from '#shared/jobs.ts';
import { planJobActions, type JobAction, type JobFacts } from './job-actions.ts';

/** The people who open a job page: what they are to the job (the server's actors) and what they may do. */
const people: Record<string, { actors: JobActor[]; permissions: JobPermissions }> = {
  'title company': { actors: ['preparer'], permissions: { canEdit: true, canManageNotary: true, canBypassId: false, canCompleteDocuments: false, isParticipant: false } },
  notary: { actors: ['notary'], permissions: { canEdit: true, canManageNotary: false, canBypassId: true, canCompleteDocuments: true, isParticipant: false } },
  'notary who prepared it': {
    actors: ['preparer', 'notary'],
    permissions: { canEdit: true, canManageNotary: true, canBypassId: true, canCompleteDocuments: true, isParticipant: false },
  },
  admin: { actors: ['admin'], permissions: { canEdit: true, canManageNotary: true, canBypassId: true, canCompleteDocuments: true, isParticipant: false } },
  signer: { actors: [], permissions: { canEdit: false, canManageNotary: false, canBypassId: false, canCompleteDocuments: false, isParticipant: true } },
  witness: { actors: [], permissions: { canEdit: false, canManageNotary: false, canBypassId: false, canCompleteDocuments: false, isParticipant: true } },
};

const signer: Participant = {
  id: 'p1', name: 'Sam Signer', email: 'sam@example.test', role: 'signer', position: 0, hasAccount: true,
  isIdBypassed: false, idBypassReason: null, idBypassMethod: null, invitedAt: null, lastRemindedAt: null,
};

/** A job with a signer, a document and a notary but no date, as `person` sees it from the server. */
function jobAs(person: string, status: JobStatus, facts: Partial<JobFacts> = {}): JobFacts {
  const known = people[person];
  if (!known) throw new Error(`no such person in the table: ${person}`);
  const { actors, permissions } = known;
  return {
    id: 'job-1', status, permissions, participants: [signer], documentCount: 1, notaryId: 'notary-1', scheduledAt: null,
    ...facts,
    allowedTransitions: getAllowedTransitions(status, actors),
  };
}

/** A plan as people read it: the primary label, then the others ("(blocked)" when a precondition is missing). */
function labelOf(action: JobAction | null): string | null {
  if (!action) return null;
  return action.kind === 'transition' && action.blocker ? `${action.label} (blocked)` : action.label;
}
function read(job: JobFacts) {
  const plan = planJobActions(job);
  return { primary: labelOf(plan.primary), secondary: plan.secondary.map(labelOf) };
}

const workspace = 'Open signing workspace';
const notify = 'Notify participants';
const notifyNotary = 'Notify notary';

describe('the job page offers each role one primary action and only the moves the server allows', () => {
  it.each<[string, JobStatus, string | null, Array<string | null>]>([
    ['title company', 'draft', 'Mark ready', [workspace, notify, 'Cancel job']],
    ['title company', 'ready', workspace, ['Back to draft', 'Schedule (blocked)', notify, notifyNotary, 'Cancel job']],
    ['title company', 'scheduled', workspace, ['Unschedule', notify, notifyNotary, 'Cancel job']],
    ['title company', 'in_session', workspace, [notify]],
    ['title company', 'completed', 'Open the signed documents', [notify]],
    ['title company', 'cancelled', null, [notify]],
    ['notary', 'draft', 'Mark ready', [workspace, notify]],
    ['notary', 'ready', 'Start session', [workspace, 'Back to draft', 'Schedule (blocked)', notify, notifyNotary]],
    ['notary', 'scheduled', 'Start session', [workspace, 'Unschedule', notify, notifyNotary]],
    ['notary', 'in_session', workspace, ['Pause session', notify, 'Cancel job']],
    ['notary', 'completed', 'Open the signed documents', [notify]],
    ['notary who prepared it', 'ready', 'Start session', [workspace, 'Back to draft', 'Schedule (blocked)', notify, notifyNotary, 'Cancel job']],
    ['admin', 'draft', 'Mark ready', [workspace, notify, 'Cancel job']],
    ['admin', 'ready', workspace, ['Back to draft', 'Schedule (blocked)', notify, notifyNotary, 'Cancel job']],
    ['admin', 'in_session', workspace, [notify, 'Cancel job']],
    ['signer', 'draft', workspace, []],
    ['signer', 'ready', workspace, []],
    ['signer', 'in_session', workspace, []],
    ['signer', 'completed', 'Open the signed documents', []],
    ['signer', 'cancelled', null, []],
    ['witness', 'scheduled', workspace, []],
  ])('%s, %s job: primary %s, then %j', (person, status, primary, secondary) => {
    expect(read(jobAs(person, status))).toEqual({ primary, secondary });
  });

  it.each(jobStatuses)('never offers the title company, a signer or a witness "Start session" (%s job)', (status) => {
    for (const person of ['title company', 'signer', 'witness']) {
      const plan = planJobActions(jobAs(person, status));
      expect([plan.primary, ...plan.secondary].map((action) => action?.label)).not.toContain('Start session');
    }
  });

  it.each(Object.keys(people).flatMap((person) => jobStatuses.map((status) => [person, status] as const)))(
    'has at most one primary action and never repeats it among the others (%s, %s)',
    (person, status) => {
      const plan = planJobActions(jobAs(person, status));
      const labels = [plan.primary, ...plan.secondary].filter(Boolean).map((action) => action?.label);
      expect(new Set(labels).size).toBe(labels.length);
    },
  );

  it('makes the next move primary once its precondition is met: a date lets the title company schedule', () => {
    expect(read(jobAs('title company', 'ready', { scheduledAt: '2031-03-04T15:00:00.000Z' }))).toEqual({
      primary: 'Schedule',
      secondary: [workspace, 'Back to draft', notify, notifyNotary, 'Cancel job'],
    });
  });

  it('keeps a blocked next move among the others with the reason, so the page can say what is missing', () => {
    const plan = planJobActions(jobAs('title company', 'draft', { documentCount: 0 }));
    expect(labelOf(plan.primary)).toBe(workspace);
    expect(plan.secondary).toContainEqual(
      expect.objectContaining({ kind: 'transition', to: 'ready', label: 'Mark ready', blocker: 'Upload at least one document before marking the job ready.' }),
    );
  });

  it('offers no notary notification while the job has no notary', () => {
    const plan = planJobActions(jobAs('admin', 'ready', { notaryId: null }));
    expect(plan.secondary.map(labelOf)).not.toContain(notifyNotary);
    expect(labelOf(plan.primary)).toBe(workspace);
  });
});
