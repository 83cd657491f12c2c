import { describe, expect, it } from 'vitest';
import type { Participant } from '#shared/jobs.ts';
import { describeIdentity, getIdentityAction } from './participant-identity.ts';

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
  identityState: 'not_started',
};

describe('the identity column follows the person’s live state', () => {
  it.each([
    ['not_started', 'Not started'],
    ['in_progress', 'In progress'],
    ['ready', 'Ready for the notary to confirm'],
    ['confirmed', 'Confirmed by the notary'],
    ['rejected', 'Rejected by the notary'],
    ['not_required', 'No identity step for this role'],
  ] as const)('%s reads "%s"', (identityState, words) => {
    expect(describeIdentity({ ...signer, identityState })).toBe(words);
  });

  it('says how and why a waived step was waived', () => {
    expect(
      describeIdentity({ ...signer, identityState: 'waived', isIdBypassed: true, idBypassMethod: 'personal_knowledge', idBypassReason: 'My neighbour' }),
    ).toBe('Waived: the notary knows the person personally (My neighbour)');
    expect(describeIdentity({ ...signer, identityState: 'waived', isIdBypassed: true, idBypassReason: 'No ID to hand' })).toBe(
      'Waived: identity not proven (No ID to hand)',
    );
  });

  it('offers "Bypass ID" only while the step is not done, and nothing once confirmed or on a completed job', () => {
    expect(getIdentityAction(signer, 'ready', true)).toBe('waive');
    expect(getIdentityAction({ ...signer, identityState: 'ready' }, 'in_session', true)).toBeNull();
    expect(getIdentityAction({ ...signer, identityState: 'confirmed' }, 'in_session', true)).toBeNull();
    expect(getIdentityAction({ ...signer, identityState: 'confirmed' }, 'completed', true)).toBeNull();
    expect(getIdentityAction({ ...signer, identityState: 'not_started' }, 'completed', true)).toBeNull();
    expect(getIdentityAction({ ...signer, identityState: 'waived', isIdBypassed: true }, 'ready', true)).toBe('require');
    expect(getIdentityAction({ ...signer, identityState: 'not_required', role: 'observer' }, 'ready', true)).toBeNull();
    expect(getIdentityAction(signer, 'ready', false)).toBeNull();
  });
});
