import { describe, expect, it } from 'vitest';
import {
  describeNotaryJob,
  describeWaitingJob,
  getDayWindow,
  getHomeKind,
  getNotificationHref,
  summarizePendingApprovals,
  summarizeStatusCounts,
} from './role-home.ts';

const none = { draft: 0, ready: 0, scheduled: 0, in_session: 0, completed: 0, cancelled: 0 };
const job = { id: 'j1', title: 'Refinance closing', status: 'ready' as const, scheduledAt: null, isInvitation: false };
const formatDate = (iso: string) => `<${iso}>`;

describe('role homes', () => {
  it.each([
    [{ roles: ['signer'] }, 'signer'],
    [{ roles: ['witness'] }, 'signer'],
    [{ roles: ['notary'] }, 'notary'],
    [{ roles: ['title'] }, 'title'],
    [{ roles: ['title_agent'] }, 'title'],
    [{ roles: ['admin', 'notary'] }, 'admin'],
    [{ roles: ['observer'] }, null],
    [{ roles: ['billing'] }, 'billing'],
    [{ roles: ['finance'] }, 'billing'],
    [{ roles: ['notary'], status: 'pending' }, null],
  ])('gives %j the %s home', (user, kind) => {
    expect(getHomeKind(user)).toBe(kind);
  });

  it('takes the viewer’s own day, midnight to midnight, as the window of today’s sessions', () => {
    const now = new Date(2031, 2, 4, 15, 30);
    const { scheduledFrom, scheduledTo } = getDayWindow(now);
    expect(new Date(scheduledFrom)).toEqual(new Date(2031, 2, 4));
    expect(new Date(scheduledTo)).toEqual(new Date(2031, 2, 5));
  });

  it('tells a signer what each waiting job needs, and where to go', () => {
    expect(describeWaitingJob({ ...job, isInvitation: true }, formatDate)).toEqual({
      sentence: 'You are invited to this job. Open it to accept the invitation.',
      action: { label: 'Open the invitation', name: 'Open the invitation: Refinance closing', href: '/jobs/detail?jobId=j1' },
    });
    expect(describeWaitingJob({ ...job, status: 'in_session' }, formatDate)).toEqual({
      sentence: 'The session is live: join it now to sign.',
      action: { label: 'Enter the session room', name: 'Enter the session room: Refinance closing', href: '/session/j1' },
    });
    const scheduled = describeWaitingJob({ ...job, status: 'scheduled', scheduledAt: '2031-03-04T15:00:00Z' }, formatDate);
    expect(scheduled.sentence).toBe('Your session is scheduled for <2031-03-04T15:00:00Z>. Prove your identity and check your camera before it.');
    expect(scheduled.action.href).toBe('/session/j1');
    expect(describeWaitingJob(job, formatDate)).toEqual({
      sentence: 'The documents are ready. Prove your identity and check your camera now; you enter when the notary opens the session.',
      action: { label: 'Get ready for the session', name: 'Get ready for the session: Refinance closing', href: '/session/j1' },
    });
  });

  it('tells a notary what each of their jobs needs', () => {
    expect(describeNotaryJob({ ...job, status: 'in_session' }, formatDate).action).toEqual({
      label: 'Return to the session room',
      name: 'Return to the session room: Refinance closing',
      href: '/session/j1',
    });
    expect(describeNotaryJob(job, formatDate)).toEqual({
      sentence: 'Ready for you: review the documents and start or schedule the session.',
      action: { label: 'Review the job', name: 'Review the job: Refinance closing', href: '/jobs/detail?jobId=j1' },
    });
    expect(describeNotaryJob({ ...job, status: 'scheduled', scheduledAt: 'T' }, formatDate).sentence).toBe('Scheduled for <T>.');
    expect(describeNotaryJob({ ...job, status: 'completed' }, formatDate).sentence).toBe('Completed.');
  });

  it('links each notice of the bell where its person must go next', () => {
    const item = { jobId: 'j1', title: 'Refinance closing', message: '', isBlocking: false, at: '' };
    expect(getNotificationHref({ ...item, kind: 'session_live' })).toBe('/session/j1');
    expect(getNotificationHref({ ...item, kind: 'session_open' })).toBe('/session/j1');
    expect(getNotificationHref({ ...item, kind: 'job_ready' })).toBe('/session/j1');
    expect(getNotificationHref({ ...item, kind: 'session_scheduled' })).toBe('/session/j1');
    expect(getNotificationHref({ ...item, kind: 'ready_for_notary' })).toBe('/jobs/detail?jobId=j1');
    expect(getNotificationHref({ ...item, kind: 'job_invitation' })).toBe('/jobs/detail?jobId=j1');
  });

  it('sums up the jobs by status in a sentence, the open ones first', () => {
    expect(summarizeStatusCounts(none)).toBe('You have no jobs yet. Use New Signing Request to create one.');
    expect(summarizeStatusCounts({ ...none, draft: 2, in_session: 1, completed: 4 })).toBe('You have 2 drafts to finish and 1 session in progress.');
    expect(summarizeStatusCounts({ ...none, ready: 1, scheduled: 2, draft: 1 })).toBe(
      'You have 1 draft to finish, 1 job ready for its session and 2 sessions scheduled.',
    );
    expect(summarizeStatusCounts({ ...none, completed: 1 })).toBe('Your one job needs nothing more now.');
    expect(summarizeStatusCounts({ ...none, completed: 2, cancelled: 1 })).toBe('None of your 3 jobs needs anything more now.');
  });

  it('says how many accounts wait for an administrator', () => {
    expect(summarizePendingApprovals(0, 0)).toBe('No one is waiting for approval.');
    expect(summarizePendingApprovals(1, 0)).toBe('1 notary is waiting for your approval.');
    expect(summarizePendingApprovals(2, 1)).toBe('2 notaries and 1 title company are waiting for your approval.');
    expect(summarizePendingApprovals(0, 3)).toBe('3 title companies are waiting for your approval.');
  });
});
