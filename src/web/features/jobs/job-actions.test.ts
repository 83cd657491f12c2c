import { describe, expect, it } from 'vitest';
import { getAllowedTransitions, jobStatuses, type JobActor, type JobPermissions, type JobStatus, type Participant } from '#shared/jobs.ts';
import { getSessionStep } from '#shared/session-steps.ts';
import { planJobActions, type JobAction, type JobFacts, type JobViewer } from './job-actions.ts';

/** The people who open a job page: what they are to the job (the server's actors) and what they may do. */
const people: Record<string, { actors: JobActor[]; permissions: JobPermissions }> = {
  'title company': {
    actors: ['preparer'],
    permissions: { canEdit: true, canManageNotary: true, canBypassId: false, canCompleteDocuments: false, isParticipant: false },
  },
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
  id: 'p1',
  name: 'Sam Signer',
  email: 'sam@example.test',
  role: 'signer',
  position: 0,
  hasAccount: true,
  isIdBypassed: false,
  idBypassReason: null,
  idBypassMethod: null,
  invitedAt: null,
  lastRemindedAt: null,
};

/** A job with a signer, a document and a notary but no date, as `person` sees it from the server. */
function jobAs(person: string, status: JobStatus, facts: Partial<JobFacts> = {}): JobFacts {
  const known = people[person];
  if (!known) throw new Error(`no such person in the table: ${person}`);
  const { actors, permissions } = known;
  return {
    id: 'job-1',
    status,
    permissions,
    participants: [signer],
    documentCount: 1,
    notaryId: 'notary-1',
    scheduledAt: null,
    ...facts,
    allowedTransitions: getAllowedTransitions(status, actors),
  };
}

/** A plan as people read it: the primary label, then the others ("(blocked)" when a precondition is missing). */
function labelOf(action: JobAction | null): string | null {
  if (!action) return null;
  return action.kind === 'transition' && action.blocker ? `${action.label} (blocked)` : action.label;
}
/** Who looks at the job: their id and their session step as can-enter would give it (a signer has not proven their identity yet, no session is open). */
function viewerOf(
  person: string,
  job: JobFacts,
  facts: { sessionId?: string | null; lobbyState?: string | null; identitySatisfied?: boolean } = {},
): JobViewer {
  const role = person.startsWith('notary') ? 'notary' : person === 'signer' || person === 'witness' ? person : null;
  const id = role === 'notary' ? 'notary-1' : role ? 'person-1' : 'someone-else';
  const identity =
    role === 'signer' ? { required: true, satisfied: facts.identitySatisfied ?? false, status: null } : { required: false, satisfied: true, status: null };
  return {
    id,
    sessionStep: getSessionStep({
      jobId: job.id,
      status: job.status,
      role,
      identity,
      place: { sessionId: facts.sessionId ?? null, lobbyState: facts.lobbyState ?? null },
    }),
  };
}
function read(job: JobFacts, person = 'title company') {
  const plan = planJobActions(job, viewerOf(person, job));
  return { primary: labelOf(plan.primary), secondary: plan.secondary.map(labelOf) };
}

const workspace = 'Open signing workspace';
const notify = 'Notify participants';
const notifyNotary = 'Notify notary';
const openRoom = 'Open the session room';
const proveIdentity = 'Prove your identity';

describe('the job page offers each role one primary action and only the moves the server allows', () => {
  it.each<[string, JobStatus, string | null, Array<string | null>]>([
    ['title company', 'draft', 'Mark ready', [workspace, notify, 'Cancel job']],
    ['title company', 'ready', workspace, ['Back to draft', 'Schedule (blocked)', notify, notifyNotary, 'Cancel job']],
    ['title company', 'scheduled', workspace, ['Unschedule', notify, notifyNotary, 'Cancel job']],
    ['title company', 'in_session', workspace, [notify]],
    ['title company', 'completed', 'Open the signed documents', [notify]],
    ['title company', 'cancelled', null, [notify]],
    ['notary', 'draft', 'Mark ready', [workspace, notify]],
    ['notary', 'ready', openRoom, [workspace, 'Back to draft', 'Schedule (blocked)', notify]],
    ['notary', 'scheduled', openRoom, [workspace, 'Unschedule', notify]],
    ['notary', 'in_session', openRoom, [workspace, 'Pause session', notify, 'Cancel job']],
    ['notary', 'completed', 'Open the signed documents', [notify]],
    ['notary who prepared it', 'ready', openRoom, [workspace, 'Back to draft', 'Schedule (blocked)', notify, 'Cancel job']],
    ['admin', 'draft', 'Mark ready', [workspace, notify, 'Cancel job']],
    ['admin', 'ready', workspace, ['Back to draft', 'Schedule (blocked)', notify, notifyNotary, 'Cancel job']],
    ['admin', 'in_session', workspace, [notify, 'Cancel job']],
    ['signer', 'draft', workspace, []],
    ['signer', 'ready', proveIdentity, [workspace]],
    ['signer', 'in_session', proveIdentity, [workspace]],
    ['signer', 'completed', 'Open the signed documents', []],
    ['signer', 'cancelled', null, []],
    ['witness', 'scheduled', 'Get ready for the session', [workspace]],
  ])('%s, %s job: primary %s, then %j', (person, status, primary, secondary) => {
    expect(read(jobAs(person, status), person)).toEqual({ primary, secondary });
  });

  it.each(jobStatuses)('never offers anyone a "Start session" that does not lead to the room: the room starts the act (%s job)', (status) => {
    for (const person of Object.keys(people)) {
      const job = jobAs(person, status);
      const plan = planJobActions(job, viewerOf(person, job));
      expect([plan.primary, ...plan.secondary].map((action) => action?.label)).not.toContain('Start session');
    }
  });

  it('leads the notary into the room from the job page, and back to it once they are in', () => {
    const job = jobAs('notary', 'ready');
    expect(planJobActions(job, viewerOf('notary', job)).primary).toMatchObject({ kind: 'session', label: openRoom, href: '/session/job-1' });
    const open = jobAs('notary', 'in_session');
    expect(planJobActions(open, viewerOf('notary', open, { sessionId: 's1', lobbyState: 'admitted' })).primary).toMatchObject({
      label: 'Return to the session room',
      href: '/session/job-1',
    });
  });

  it('leads the signer to the identity step while the job is ready, then into the room the notary opened', () => {
    const job = jobAs('signer', 'ready');
    expect(planJobActions(job, viewerOf('signer', job)).primary).toMatchObject({ kind: 'session', label: proveIdentity, href: '/session/job-1' });
    expect(planJobActions(job, viewerOf('signer', job, { identitySatisfied: true, sessionId: 's1' })).primary).toMatchObject({
      label: 'Enter the session room',
      href: '/session/job-1',
    });
    expect(planJobActions(job, viewerOf('signer', job, { identitySatisfied: true, sessionId: 's1', lobbyState: 'admitted' })).primary).toMatchObject({
      label: 'Return to the session room',
    });
  });

  it('never offers the notary a notification to themselves', () => {
    for (const status of ['ready', 'scheduled'] as const) {
      const job = jobAs('notary', status);
      const plan = planJobActions(job, viewerOf('notary', job));
      expect([plan.primary, ...plan.secondary].map(labelOf)).not.toContain(notifyNotary);
    }
  });

  it.each(Object.keys(people).flatMap((person) => jobStatuses.map((status) => [person, status] as const)))(
    'has at most one primary action and never repeats it among the others (%s, %s)',
    (person, status) => {
      const job = jobAs(person, status);
      const plan = planJobActions(job, viewerOf(person, job));
      const labels = [plan.primary, ...plan.secondary].filter(Boolean).map((action) => action?.label);
      expect(new Set(labels).size).toBe(labels.length);
    },
  );

  it('makes the next move primary once its precondition is met: a date lets the title company schedule', () => {
    expect(read(jobAs('title company', 'ready', { scheduledAt: '2031-03-04T15:00:00.000Z' }), 'title company')).toEqual({
      primary: 'Schedule',
      secondary: [workspace, 'Back to draft', notify, notifyNotary, 'Cancel job'],
    });
  });

  it('keeps a blocked next move among the others with the reason, so the page can say what is missing', () => {
    const plan = planJobActions(jobAs('title company', 'draft', { documentCount: 0 }), { id: 'someone-else', sessionStep: null });
    expect(labelOf(plan.primary)).toBe(workspace);
    expect(plan.secondary).toContainEqual(
      expect.objectContaining({ kind: 'transition', to: 'ready', label: 'Mark ready', blocker: 'Upload at least one document before marking the job ready.' }),
    );
  });

  it('offers no notary notification while the job has no notary', () => {
    const plan = planJobActions(jobAs('admin', 'ready', { notaryId: null }), { id: 'admin-1', sessionStep: null });
    expect(plan.secondary.map(labelOf)).not.toContain(notifyNotary);
    expect(labelOf(plan.primary)).toBe(workspace);
  });

  it('offers a cancellation as a no-show, last, once a waiting job’s session time has passed, and not before', () => {
    const at = '2026-11-27T15:00:00Z';
    const job = jobAs('title company', 'scheduled', { scheduledAt: at });
    const before = planJobActions(job, { id: 'title-1', sessionStep: null }, Date.parse(at) - 60_000);
    expect(before.secondary.map(labelOf)).not.toContain('Cancel as a no-show');
    const after = planJobActions(job, { id: 'title-1', sessionStep: null }, Date.parse(at) + 15 * 60_000);
    expect(after.secondary.map(labelOf).slice(-2)).toEqual(['Cancel job', 'Cancel as a no-show']);
    const signerView = planJobActions(jobAs('signer', 'scheduled', { scheduledAt: at }), { id: 'p1', sessionStep: null }, Date.parse(at) + 60_000);
    expect(signerView.secondary.map(labelOf)).not.toContain('Cancel as a no-show');
  });
});
