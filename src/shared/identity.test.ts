import { describe, expect, it } from 'vitest';
import { describeNextStep, getIdentityStage, nextStepSentences, type IdentityProgress } from './identity.ts';

function progress(
  overrides: {
    status?: IdentityProgress['status'];
    credential?: Partial<IdentityProgress['credential']>;
    selfie?: Partial<IdentityProgress['selfie']>;
    kba?: Partial<IdentityProgress['kba']>;
  } = {},
): IdentityProgress {
  return {
    status: overrides.status ?? 'in_progress',
    credential: { required: true, status: 'pending', ...overrides.credential },
    selfie: { required: true, status: 'pending', ...overrides.selfie },
    kba: { status: 'pending', lockedUntil: null, ...overrides.kba },
  };
}

const allPassed = { credential: { status: 'passed' }, selfie: { status: 'received' }, kba: { status: 'passed' } } as const;

describe('getIdentityStage', () => {
  it('starts over with the details when there is no check or it expired', () => {
    expect(getIdentityStage(null)).toBe('details');
    expect(getIdentityStage(progress({ status: 'expired', ...allPassed }))).toBe('details');
  });

  it('asks for each required part in turn: ID photos, selfie, questions', () => {
    expect(getIdentityStage(progress())).toBe('credential');
    expect(getIdentityStage(progress({ credential: { status: 'failed' } }))).toBe('credential');
    expect(getIdentityStage(progress({ credential: { status: 'passed' } }))).toBe('selfie');
    expect(getIdentityStage(progress({ credential: { status: 'passed' }, selfie: { status: 'received' }, kba: { status: 'in_progress' } }))).toBe('questions');
    expect(getIdentityStage(progress({ credential: { required: false }, selfie: { required: false } }))).toBe('questions');
  });

  it('ends at done once ready or confirmed, and at a lock or a rejection otherwise', () => {
    expect(getIdentityStage(progress({ status: 'ready', ...allPassed }))).toBe('done');
    expect(getIdentityStage(progress({ status: 'confirmed', ...allPassed }))).toBe('done');
    expect(getIdentityStage(progress({ status: 'rejected', ...allPassed }))).toBe('rejected');
    expect(getIdentityStage(progress({ status: 'locked', kba: { status: 'locked' } }))).toBe('locked');
    expect(getIdentityStage(progress({ kba: { status: 'locked' } }))).toBe('locked');
  });
});

describe('describeNextStep', () => {
  it('names the end a check reached', () => {
    expect(describeNextStep(progress({ status: 'expired' }))).toBe(nextStepSentences.expired);
    expect(describeNextStep(progress({ status: 'confirmed', ...allPassed }))).toBe('The notary confirmed your identity.');
    expect(describeNextStep(progress({ status: 'ready', ...allPassed }))).toBe('Your identity step is complete. The notary will look at it in the session.');
    expect(describeNextStep(progress({ status: 'rejected' }))).toBe('The notary did not accept your identity proof. The notary will tell you what to do next.');
  });

  it('says when a locked quiz may be taken again, or that it may not', () => {
    const lockedUntil = '2026-11-24T12:30:00.000Z';
    expect(describeNextStep(progress({ status: 'locked', kba: { status: 'locked', lockedUntil } }))).toBe(
      'You answered the questions wrongly too often. You can try again after 24 November 2026 at 12:30:00 UTC.',
    );
    expect(describeNextStep(progress({ status: 'locked', kba: { status: 'failed' } }))).toBe(
      'You answered the questions wrongly too often. Ask the notary about another way to prove your identity.',
    );
  });

  it('asks for the part that comes next, new ID photos after a refused ID', () => {
    expect(describeNextStep(progress())).toBe('Take photos of your government photo ID.');
    expect(describeNextStep(progress({ credential: { status: 'failed' } }))).toBe('Your ID could not be accepted. Take new photos of it.');
    expect(describeNextStep(progress({ credential: { status: 'passed' } }))).toBe('Take a photo of your face.');
    expect(describeNextStep(progress({ credential: { status: 'passed' }, selfie: { status: 'received' } }))).toBe('Answer a few questions about yourself.');
    expect(describeNextStep(progress({ credential: { status: 'passed' }, selfie: { status: 'received' }, kba: { status: 'in_progress' } }))).toBe(
      'Answer the questions before the time runs out.',
    );
    expect(describeNextStep(progress({ credential: { required: false }, selfie: { required: false }, kba: { status: 'failed' } }))).toBe(
      'Answer a few questions about yourself.',
    );
  });
});
