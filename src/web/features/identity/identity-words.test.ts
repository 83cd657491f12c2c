import { describe, expect, it } from 'vitest';
import { getIdentityStage, type IdentityCheck } from '#shared/identity.ts';
import { policyFor } from '#shared/identity-policies.ts';
import {
  describeKbaResult,
  describeKbaStanding,
  describePolicy,
  describeResumeLinkError,
  describeReviewCount,
  describeQuestionRules,
  formatCountdown,
  formatDuration,
  getDocumentSides,
  getLocalDeadline,
  getTimeAnnouncement,
  type PolicyLine,
} from './identity-words.ts';

function makeCheck(
  overrides: {
    status?: IdentityCheck['status'];
    credential?: Partial<IdentityCheck['credential']>;
    selfie?: Partial<IdentityCheck['selfie']>;
    kba?: Partial<IdentityCheck['kba']>;
  } = {},
): IdentityCheck {
  return {
    checkId: 'check-1',
    jobId: 'job-1',
    participantId: 'participant-1',
    personName: 'Ada Lovelace',
    policyCode: 'TX',
    status: overrides.status ?? 'in_progress',
    createdAt: '2026-11-23T10:00:00.000Z',
    expiresAt: '2026-11-24T10:00:00.000Z',
    credential: { status: 'pending', documentType: null, fields: null, checks: [], attempts: 0, required: true, ...overrides.credential },
    selfie: { status: 'pending', required: true, ...overrides.selfie },
    kba: {
      status: 'pending',
      attempts: 0,
      attemptsAllowed: 2,
      lastCorrect: null,
      lastTotal: null,
      retakeUntil: null,
      lockedUntil: null,
      isDevelopmentProvider: true,
      ...overrides.kba,
    },
    review: { decision: null, reason: null, reviewerName: null, reviewedAt: null },
    images: [],
    nextStep: 'Photograph your ID.',
  };
}

describe('getIdentityStage', () => {
  it('asks for the details when there is no check or it expired', () => {
    expect(getIdentityStage(null)).toBe('details');
    expect(getIdentityStage(makeCheck({ status: 'expired' }))).toBe('details');
  });

  it('goes ID photos, then selfie, then questions, then done', () => {
    expect(getIdentityStage(makeCheck())).toBe('credential');
    expect(getIdentityStage(makeCheck({ credential: { status: 'failed' } }))).toBe('credential');
    expect(getIdentityStage(makeCheck({ credential: { status: 'passed' } }))).toBe('selfie');
    expect(getIdentityStage(makeCheck({ credential: { status: 'passed' }, selfie: { status: 'received' } }))).toBe('questions');
    expect(getIdentityStage(makeCheck({ status: 'ready', credential: { status: 'passed' }, selfie: { status: 'received' }, kba: { status: 'passed' } }))).toBe(
      'done',
    );
  });

  it('skips a part the policy does not require', () => {
    expect(getIdentityStage(makeCheck({ credential: { required: false }, selfie: { required: false } }))).toBe('questions');
  });

  it('shows a lock and a rejection as their own ends', () => {
    expect(getIdentityStage(makeCheck({ status: 'locked', kba: { status: 'locked' } }))).toBe('locked');
    expect(getIdentityStage(makeCheck({ status: 'rejected' }))).toBe('rejected');
    expect(getIdentityStage(makeCheck({ status: 'confirmed' }))).toBe('done');
  });
});

describe('getDocumentSides', () => {
  it('asks for both sides of a card and the photo page of a passport', () => {
    expect(getDocumentSides('drivers_license')).toEqual(['front', 'back']);
    expect(getDocumentSides('id_card')).toEqual(['front', 'back']);
    expect(getDocumentSides('passport')).toEqual(['passport']);
  });
});

describe('countdown words', () => {
  it('formats the clock in minutes and seconds, rounding up and never negative', () => {
    expect(formatCountdown(120_000)).toBe('2:00');
    expect(formatCountdown(119_001)).toBe('2:00');
    expect(formatCountdown(59_000)).toBe('0:59');
    expect(formatCountdown(4_200)).toBe('0:05');
    expect(formatCountdown(-3_000)).toBe('0:00');
  });

  it('says durations in words', () => {
    expect(formatDuration(120)).toBe('2 minutes');
    expect(formatDuration(60)).toBe('1 minute');
    expect(formatDuration(90)).toBe('1 minute 30 seconds');
    expect(formatDuration(1)).toBe('1 second');
  });

  it('announces the time left only at a few moments, and the end', () => {
    expect(getTimeAnnouncement(60_000)).toBe('1 minute left.');
    expect(getTimeAnnouncement(29_500)).toBe('30 seconds left.');
    expect(getTimeAnnouncement(45_000)).toBeNull();
    expect(getTimeAnnouncement(0)).toBe('The time is up. Your answers are being sent.');
  });

  it('tells the time limit before the clock starts', () => {
    expect(describeQuestionRules({ questionCount: 5, timeLimitSeconds: 120, passPercent: 80 }, 4)).toBe(
      'You will have 2 minutes to answer 5 questions about your own records, such as past addresses. You need 4 right answers to pass. The clock starts when you press Start the questions, and cannot be paused.',
    );
  });
});

describe('getLocalDeadline', () => {
  const received = Date.parse('2026-11-23T12:00:00.000Z');

  it('keeps the server’s deadline when it falls within the limit', () => {
    expect(getLocalDeadline({ deadlineAt: '2026-11-23T12:01:30.000Z', timeLimitSeconds: 120 }, received)).toBe(received + 90_000);
  });

  it('gives the whole limit when the clocks disagree', () => {
    expect(getLocalDeadline({ deadlineAt: '2026-11-23T12:10:00.000Z', timeLimitSeconds: 120 }, received)).toBe(received + 120_000);
    expect(getLocalDeadline({ deadlineAt: '2026-11-23T11:50:00.000Z', timeLimitSeconds: 120 }, received)).toBe(received + 120_000);
  });
});

describe('describeKbaStanding', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');

  it('says the last score, the tries left and the time a retake must start by', () => {
    const kba = makeCheck({
      kba: { status: 'failed', attempts: 1, attemptsAllowed: 2, lastCorrect: 3, lastTotal: 5, retakeUntil: '2026-11-24T12:00:00.000Z' },
    }).kba;
    expect(describeKbaStanding(kba, now, 'UTC')).toEqual([
      'Last time you answered 3 of 5 questions correctly.',
      'You have 1 try left.',
      'Start your next try before Nov 24, 2026, 12:00 PM.',
    ]);
  });

  it('says when a locked person may try again', () => {
    const kba = makeCheck({
      kba: { status: 'locked', attempts: 2, attemptsAllowed: 2, lastCorrect: 2, lastTotal: 5, lockedUntil: '2026-11-24T12:30:00.000Z' },
    }).kba;
    expect(describeKbaStanding(kba, now, 'UTC')).toEqual([
      'Last time you answered 2 of 5 questions correctly.',
      'You have used every try. You may answer new questions after Nov 24, 2026, 12:30 PM.',
    ]);
  });

  it('says nothing before the first try', () => {
    expect(describeKbaStanding(makeCheck().kba, now, 'UTC')).toEqual([]);
  });

  it('never says "Last time" under the result of a try, which already gives that score', () => {
    const kba = makeCheck({
      kba: { status: 'failed', attempts: 1, attemptsAllowed: 2, lastCorrect: 3, lastTotal: 5, retakeUntil: '2026-11-24T12:00:00.000Z' },
    }).kba;
    expect(describeKbaStanding(kba, now, 'UTC', { isAfterTry: true })).toEqual(['You have 1 try left.', 'Start your next try before Nov 24, 2026, 12:00 PM.']);
  });

  it('never says "Last time" before a first try, whatever score the check carries', () => {
    const kba = makeCheck({ kba: { status: 'in_progress', attempts: 0, attemptsAllowed: 2, lastCorrect: 0, lastTotal: 5 } }).kba;
    expect(describeKbaStanding(kba, now, 'UTC').join(' ')).not.toContain('Last time');
  });
});

describe('describeKbaResult', () => {
  it('says the score and whether it passed, and when the time ran out', () => {
    expect(describeKbaResult({ passed: true, correct: 5, total: 5, timedOut: false })).toBe('You answered 5 of 5 questions correctly: you passed.');
    expect(describeKbaResult({ passed: false, correct: 2, total: 5, timedOut: true })).toBe(
      'The time ran out before your answers were sent. You answered 2 of 5 questions correctly: you did not pass.',
    );
  });
});

describe('describeReviewCount', () => {
  it('counts the people waiting for the notary first, then the unfinished ones', () => {
    expect(
      describeReviewCount([
        { check: { status: 'ready' }, bypass: null },
        { check: { status: 'in_progress' }, bypass: null },
      ]),
    ).toBe('1 to review');
    expect(
      describeReviewCount([
        { check: null, bypass: null },
        { check: { status: 'expired' }, bypass: null },
      ]),
    ).toBe('2 not finished');
    expect(
      describeReviewCount([
        { check: { status: 'confirmed' }, bypass: null },
        { check: null, bypass: { method: 'personal_knowledge', reason: 'Known' } },
      ]),
    ).toBe('all decided');
    expect(describeReviewCount([])).toBe('none needed');
  });
});

/** The line of a label; a label the policy does not say fails the test. */
function lineOf(lines: PolicyLine[], label: string): PolicyLine {
  const line = lines.find((candidate) => candidate.label === label);
  if (!line) throw new Error(`No line "${label}"`);
  return line;
}

describe('describePolicy', () => {
  it('says Texas’s rules in words, each with its citation', () => {
    const lines = describePolicy(policyFor('TX'));
    expect(lineOf(lines, 'Pass mark')).toEqual({ label: 'Pass mark', value: '80%: 4 of 5 right', citation: '1 Tex. Admin. Code § 87.70(b)' });
    expect(lineOf(lines, 'Retakes').value).toBe('1 retake, within 24 hours of the first failed try');
    expect(lineOf(lines, 'Time limit').value).toBe('2 minutes');
    expect(lineOf(lines, 'Journal')).toEqual({
      label: 'Journal',
      value: 'The journal must not hold the ID’s number',
      citation: '1 Tex. Admin. Code § 87.50(a)',
    });
    expect(lineOf(lines, 'Records kept')).toEqual({ label: 'Records kept', value: '5 years', citation: 'Tex. Gov’t Code § 406.108' });
    expect(lines.every((line) => line.citation.length > 0)).toBe(true);
  });

  it('says a state without a lockout or a journal rule has none recorded', () => {
    const lines = describePolicy(policyFor('VA'));
    expect(lineOf(lines, 'Lockout').value).toBe('None recorded');
    expect(lineOf(lines, 'Journal').citation).toBe('No citation recorded');
    expect(lineOf(lines, 'New questions on a retake').value).toBe('At least 40% of the questions are new');
  });
});

describe('describeResumeLinkError', () => {
  it('keeps the server’s sentence, and says expired and unknown links in words otherwise', () => {
    expect(describeResumeLinkError(410, 'This link expired at 3:15 PM.')).toBe('This link expired at 3:15 PM.');
    expect(describeResumeLinkError(410, null)).toBe('This link has expired. On your computer, press Continue on your phone again for a new link.');
    expect(describeResumeLinkError(404, null)).toMatch(/^This link is not known\./);
    expect(describeResumeLinkError(0, null)).toMatch(/could not be reached/);
  });
});
