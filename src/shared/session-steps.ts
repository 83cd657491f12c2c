import type { JobStatus } from './jobs.ts';

/**
 * Where a person goes next for the live session of a job.
 * Every page that shows an open job (the job page, the dashboard, the bell, the workspace) asks
 * this one rule, so each person is offered the same next step everywhere: prove their identity,
 * open or enter the session room, or go back to it. The session entry page (/session/:jobId) then
 * shows the identity step, the device check and consent, or the lobby, and sends an admitted
 * person straight on to the room.
 */

/** The job statuses in which a live session may be open or opened. */
export const sessionStatuses: readonly JobStatus[] = ['ready', 'scheduled', 'in_session'];

export type SessionRole = 'notary' | 'signer' | 'witness' | 'observer';

export interface SessionStepFacts {
  jobId: string;
  status: JobStatus;
  /** What the person is in the session (can-enter's role); null when they take no part in it. */
  role: string | null;
  /** The person's identity step, when known (can-enter): required and not satisfied means it comes first. */
  identity?: { required: boolean; satisfied: boolean; status: string | null } | null;
  /** The person's place in the open session, when known (can-enter). */
  place?: { sessionId: string | null; lobbyState: string | null } | null;
}

export interface SessionStep {
  /** The button's words. */
  label: string;
  /** Where it leads: always the session entry page, which knows the rest. */
  href: string;
  /** What waits for the person, in a sentence. */
  sentence: string;
  /** True when the session is live and the person is expected in it now. */
  isUrgent: boolean;
}

export function sessionEntryPath(jobId: string): string {
  return `/session/${encodeURIComponent(jobId)}`;
}

function isSessionRole(role: string | null): role is SessionRole {
  return role === 'notary' || role === 'signer' || role === 'witness' || role === 'observer';
}

/** The person's next step for the job's live session, or null when there is none (closed job, not taking part). */
export function getSessionStep(facts: SessionStepFacts): SessionStep | null {
  if (!sessionStatuses.includes(facts.status) || !isSessionRole(facts.role)) return null;
  const href = sessionEntryPath(facts.jobId);
  const place = facts.place ?? null;
  const isOpen = Boolean(place?.sessionId);
  const isLive = facts.status === 'in_session';
  if (place?.lobbyState === 'admitted' && isOpen) {
    return { label: 'Return to the session room', href, sentence: 'You are in the live session: go back to the room.', isUrgent: true };
  }
  if (place?.lobbyState === 'waiting' && isOpen) {
    return { label: 'Return to the waiting room', href, sentence: 'You are waiting for the notary to let you in.', isUrgent: true };
  }
  const identity = facts.identity ?? null;
  if (facts.role !== 'notary' && identity?.required && !identity.satisfied) {
    if (identity.status === 'rejected' || identity.status === 'locked') {
      return {
        label: 'See what to do about your identity',
        href,
        sentence: 'Your identity could not be proven this way: the session page says what you can do now.',
        isUrgent: false,
      };
    }
    const sentence =
      identity.status === 'in_progress'
        ? 'Finish proving your identity: you enter the session once it is done.'
        : 'Before the session, prove your identity: photos of your ID, a photo of your face and a few questions.';
    return { label: identity.status === 'in_progress' ? 'Continue proving your identity' : 'Prove your identity', href, sentence, isUrgent: isOpen };
  }
  if (facts.role === 'notary') {
    if (isOpen) return { label: 'Return to the session room', href, sentence: 'The session room is open: go back to it to let people in.', isUrgent: true };
    return {
      label: 'Open the session room',
      href,
      sentence: 'Open the room, check your camera, let the signers in, then start the notarization there.',
      isUrgent: isLive,
    };
  }
  if (isOpen || isLive) return { label: 'Enter the session room', href, sentence: 'The notary has opened the session: enter now.', isUrgent: true };
  return {
    label: 'Get ready for the session',
    href,
    sentence: 'The notary has not opened the session yet. Check your camera and microphone now; the page lets you in when the notary opens it.',
    isUrgent: false,
  };
}
