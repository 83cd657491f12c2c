import { bypassMethodNames, type ParticipantIdentityState } from '#shared/identity.ts';
import type { JobStatus, Participant } from '#shared/jobs.ts';

/** The identity column's words for each live state. */
const stateWords: Record<ParticipantIdentityState, string> = {
  not_required: 'No identity step for this role',
  not_started: 'Not started',
  in_progress: 'In progress',
  ready: 'Ready for the notary to confirm',
  confirmed: 'Confirmed by the notary',
  rejected: 'Rejected by the notary',
  locked: 'Questions failed: another way is needed',
  expired: 'Expired: to be done again',
  waived: 'Waived',
};

/** The identity column: the person's live state; a waiver says how the notary knows them, and why. */
export function describeIdentity(participant: Participant): string {
  const state = participant.identityState ?? (participant.role === 'observer' ? 'not_required' : participant.isIdBypassed ? 'waived' : 'not_started');
  if (state !== 'waived') return stateWords[state];
  const how = participant.idBypassMethod
    ? `Waived: ${bypassMethodNames[participant.idBypassMethod].replace(/^The notary/, 'the notary').replace(/^A credible/, 'a credible')}`
    : 'Waived: identity not proven';
  return participant.idBypassReason ? `${how} (${participant.idBypassReason})` : how;
}

/** States in which the notary may still identify the person another way. */
const waivableStates = new Set<ParticipantIdentityState>(['not_started', 'in_progress', 'rejected', 'locked', 'expired']);

/**
 * What the notary (or an admin) may still do about a person's identity: waive the step while it is
 * not done, require it again after a waiver; nothing once confirmed, ready, or the job is closed.
 */
export function getIdentityAction(participant: Participant, jobStatus: JobStatus, canBypassId: boolean): 'waive' | 'require' | null {
  if (!canBypassId || jobStatus === 'completed' || jobStatus === 'cancelled') return null;
  const state = participant.identityState ?? (participant.isIdBypassed ? 'waived' : 'not_started');
  if (state === 'waived') return 'require';
  return waivableStates.has(state) ? 'waive' : null;
}
