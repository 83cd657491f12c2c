import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { CanEnter, Job, JobStatus } from '#shared/jobs.ts';
import { jobQueryOptions } from '#web/api/jobs.ts';
import { canEnterQueryOptions } from './api/session-queries.ts';
import { SessionStepStrip } from './session-step-strip.tsx';

const jobId = 'job-1';

function jobIn(status: JobStatus): Job {
  return {
    id: jobId,
    title: 'Deed of trust',
    notarizationType: 'acknowledgment',
    status,
    scheduledAt: null,
    notaryName: 'Noor Notary',
    companyName: null,
    participantCount: 1,
    documentCount: 1,
    createdAt: '2031-02-03T16:00:00.000Z',
    updatedAt: '2031-02-03T16:00:00.000Z',
    version: 1,
    notaryId: 'notary-1',
    companyId: null,
    createdBy: 'notary-1',
    participants: [],
    permissions: { canEdit: false, canManageNotary: false, canBypassId: false, canCompleteDocuments: false, isParticipant: true },
    idBypassMethods: [],
    allowedTransitions: [],
    jobTypeName: null,
    jobTypeDocumentTags: [],
    notaryInstructions: null,
  };
}

/** What can-enter answers a person: their role, their identity step and their place in the open session. */
function placeOf(
  role: string | null,
  facts: { identity?: Partial<CanEnter['identity']>; sessionId?: string | null; lobbyState?: CanEnter['session']['lobbyState'] } = {},
): CanEnter {
  return {
    canEnter: false,
    role,
    reasons: [],
    notices: [],
    session: {
      sessionId: facts.sessionId ?? null,
      sessionStatus: facts.sessionId ? 'active' : null,
      participantId: null,
      lobbyState: facts.lobbyState ?? null,
      recording: null,
    },
    identity: { required: role === 'signer', satisfied: false, checkId: null, status: null, policyCode: 'VA', ...facts.identity },
  };
}

/** The strip as the workspace shows it, for a job and what can-enter says about the person. */
function renderStrip(status: JobStatus, place: CanEnter): string {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(jobQueryOptions(jobId).queryKey, jobIn(status));
  queryClient.setQueryData(canEnterQueryOptions(jobId).queryKey, place);
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[`/signing/${jobId}`]}>
        <SessionStepStrip jobId={jobId} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the live-session strip above the signing workspace', () => {
  it('sends a signer of a ready job who has not proven their identity to the identity step', () => {
    const html = renderStrip('ready', placeOf('signer'));
    expect(html).toContain('aria-label="Your live session"');
    expect(html).toContain('Before the session, prove your identity: photos of your ID, a photo of your face and a few questions.');
    expect(html).toMatch(/<a class="button primary" href="\/session\/job-1"[^>]*>Prove your identity<\/a>/);
    expect(html).not.toContain('urgent');
  });

  it('says “Continue proving your identity” to a signer halfway through it', () => {
    expect(renderStrip('ready', placeOf('signer', { identity: { status: 'in_progress' } }))).toMatch(
      /href="\/session\/job-1"[^>]*>Continue proving your identity<\/a>/,
    );
  });

  it('asks a signer who has proven their identity to enter, urgently, once the notary has opened the room', () => {
    const html = renderStrip('in_session', placeOf('signer', { identity: { satisfied: true, status: 'confirmed' }, sessionId: 'session-1' }));
    expect(html).toContain('class="session-step-strip urgent"');
    expect(html).toContain('The notary has opened the session: enter now.');
    expect(html).toMatch(/href="\/session\/job-1"[^>]*>Enter the session room<\/a>/);
  });

  it('sends a signer already admitted, and a notary whose room is open, back to the room', () => {
    const signer = renderStrip('in_session', placeOf('signer', { identity: { satisfied: true }, sessionId: 'session-1', lobbyState: 'admitted' }));
    expect(signer).toMatch(/href="\/session\/job-1"[^>]*>Return to the session room<\/a>/);
    const notary = renderStrip('in_session', placeOf('notary', { sessionId: 'session-1' }));
    expect(notary).toContain('The session room is open: go back to it to let people in.');
    expect(notary).toMatch(/href="\/session\/job-1"[^>]*>Return to the session room<\/a>/);
  });

  it('offers the notary of a ready job to open the room', () => {
    const html = renderStrip('ready', placeOf('notary'));
    expect(html).toMatch(/href="\/session\/job-1"[^>]*>Open the session room<\/a>/);
    expect(html).not.toContain('urgent');
  });

  it('shows nothing on a completed job, or to someone who takes no part in the session', () => {
    expect(renderStrip('completed', placeOf('signer', { identity: { satisfied: true } }))).toBe('');
    expect(renderStrip('in_session', placeOf(null, { sessionId: 'session-1' }))).toBe('');
  });
});
