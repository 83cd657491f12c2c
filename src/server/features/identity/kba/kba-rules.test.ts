import { describe, expect, it } from 'vitest';
import { correctAnswersToPass, identityPolicies, policyFor, type KbaRule } from '#shared/identity-policies.ts';
import { chooseQuestionKeys, kbaStanding, scoreAttempt, type KbaAttemptRecord } from './kba-rules.ts';

const hourMs = 60 * 60 * 1000;
const start = new Date('2026-03-02T15:00:00.000Z');
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

/** A small seeded generator, so a failing case can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function attempt(rule: KbaRule, number: number, startedAt: Date, result: { after: number; passed: boolean } | 'open'): KbaAttemptRecord {
  const deadlineAt = at(startedAt, rule.timeLimitSeconds * 1000);
  return {
    attempt: number,
    startedAt,
    deadlineAt,
    submittedAt: result === 'open' ? null : at(startedAt, result.after),
    passed: result === 'open' ? null : result.passed,
    questionKeys: ['birth_year', 'birth_month', 'city', 'zip_code', 'state'],
  };
}

/** `count` failed attempts, one an hour from `from`, each submitted a minute after it started. */
function failures(rule: KbaRule, count: number, from: Date, firstNumber = 1): KbaAttemptRecord[] {
  return Array.from({ length: count }, (_, index) => attempt(rule, firstNumber + index, at(from, index * hourMs), { after: 60_000, passed: false }));
}

const quizKey = ['q1', 'q2', 'q3', 'q4', 'q5'].map((questionKey) => ({ questionKey, correctChoiceId: `${questionKey}-right` }));
/** Answers to every question, the first `right` of them correct. */
const answersWith = (right: number) =>
  quizKey.map((entry, index) => ({ questionId: entry.questionKey, choiceId: index < right ? entry.correctChoiceId : `${entry.questionKey}-wrong` }));

const pool = Array.from({ length: 12 }, (_, index) => `key_${index + 1}`);
const firstQuiz = pool.slice(0, 5);

describe.each(identityPolicies.map((policy) => [policy.code, policy.kba] as const))('the %s row', (_code, rule) => {
  const deadline = at(start, rule.timeLimitSeconds * 1000);

  it('passes a quiz at exactly the mark: 4 of 5', () => {
    expect(correctAnswersToPass(rule, 5)).toBe(4);
    expect(scoreAttempt(rule, quizKey, answersWith(4), at(start, 30_000), deadline)).toEqual({ correct: 4, total: 5, passed: true, timedOut: false });
  });

  it('fails a quiz just below the mark: 3 of 5', () => {
    expect(scoreAttempt(rule, quizKey, answersWith(3), at(start, 30_000), deadline)).toEqual({ correct: 3, total: 5, passed: false, timedOut: false });
  });

  it(`accepts answers sent exactly at the ${rule.timeLimitSeconds} s limit and fails them 1 ms later`, () => {
    expect(scoreAttempt(rule, quizKey, answersWith(5), deadline, deadline)).toEqual({ correct: 5, total: 5, passed: true, timedOut: false });
    expect(scoreAttempt(rule, quizKey, answersWith(5), at(deadline, 1), deadline)).toEqual({ correct: 0, total: 5, passed: false, timedOut: true });
  });

  it('lets the first quiz start at any time', () => {
    const standing = kbaStanding(rule, [], start);
    expect(standing).toMatchObject({
      status: 'pending',
      canStart: true,
      reason: null,
      attemptsUsed: 0,
      attemptsAllowed: rule.retakes + 1,
      retakeUntil: null,
      lockedUntil: null,
      openAttempt: null,
    });
  });

  it('keeps an unsubmitted quiz open up to its deadline and counts it failed once the deadline passes', () => {
    const open = attempt(rule, 1, start, 'open');
    const during = kbaStanding(rule, [open], deadline);
    expect(during).toMatchObject({ status: 'in_progress', canStart: false, attemptsUsed: 1, openAttempt: open });
    expect(during.reason).toContain(deadline.toISOString());

    const after = kbaStanding(rule, [open], at(deadline, 1));
    expect(after).toMatchObject({ status: 'failed', canStart: true, attemptsUsed: 1, openAttempt: null });
    // The timed-out attempt failed at its deadline: the retake window runs from there.
    expect(after.retakeUntil).toEqual(at(deadline, rule.retakeWindowHours * hourMs));
  });

  it('counts a submission after the deadline as failed even if it was stored as passed, and one exactly at it as passed', () => {
    const late = attempt(rule, 1, start, { after: rule.timeLimitSeconds * 1000 + 1, passed: true });
    expect(kbaStanding(rule, [late], at(start, hourMs))).toMatchObject({ status: 'failed', canStart: true });
    const onTime = attempt(rule, 1, start, { after: rule.timeLimitSeconds * 1000, passed: true });
    expect(kbaStanding(rule, [onTime], at(start, hourMs))).toMatchObject({ status: 'passed', canStart: false });
  });

  it('reports a passed quiz as passed and starts no other', () => {
    const history = [...failures(rule, 1, start), attempt(rule, 2, at(start, 2 * hourMs), { after: 60_000, passed: true })];
    const standing = kbaStanding(rule, history, at(start, 3 * hourMs));
    expect(standing).toMatchObject({ status: 'passed', canStart: false, attemptsUsed: 2 });
    expect(standing.reason).toEqual(expect.stringMatching(/\.$/));
  });

  it(`allows a retake up to ${rule.retakeWindowHours} h after the first failure and refuses it after`, () => {
    const [first] = failures(rule, 1, start);
    const failedAt = first!.submittedAt!;
    const windowEnd = at(failedAt, rule.retakeWindowHours * hourMs);

    const within = kbaStanding(rule, [first!], windowEnd);
    expect(within).toMatchObject({ status: 'failed', canStart: true, reason: null, attemptsUsed: 1, retakeUntil: windowEnd, lockedUntil: null });

    const late = kbaStanding(rule, [first!], at(windowEnd, 1));
    expect(late.canStart).toBe(false);
    expect(late.reason).toContain(`The time for a retake ended at ${windowEnd.toISOString()}`);
    if (rule.lockoutHours > 0) {
      expect(late).toMatchObject({ status: 'locked', lockedUntil: at(windowEnd, rule.lockoutHours * hourMs) });
    } else {
      expect(late).toMatchObject({ status: 'failed', lockedUntil: null });
      expect(late.reason).toContain('no new quiz can start in this identity check');
    }
  });

  it('counts a retake that started inside the window even when it ends after the window', () => {
    const [first] = failures(rule, 1, start);
    const windowEnd = at(first!.submittedAt!, rule.retakeWindowHours * hourMs);
    const retake = attempt(rule, 2, windowEnd, 'open');
    const standing = kbaStanding(rule, [first!, retake], at(windowEnd, 60_000));
    expect(standing).toMatchObject({ status: 'in_progress', canStart: false, attemptsUsed: 2, openAttempt: retake });
  });

  it(`after ${rule.retakes + 1} failures ${rule.lockoutHours > 0 ? `locks for ${rule.lockoutHours} h, then allows a new quiz` : 'starts no new quiz in this check'}`, () => {
    const history = failures(rule, rule.retakes + 1, start);
    const lastFailure = history.at(-1)!.submittedAt!;
    const justAfter = kbaStanding(rule, history, at(lastFailure, 1));
    expect(justAfter.canStart).toBe(false);
    expect(justAfter.attemptsUsed).toBe(rule.retakes + 1);
    expect(justAfter.reason).toContain(`failed ${rule.retakes + 1} times`);

    if (rule.lockoutHours === 0) {
      expect(justAfter).toMatchObject({ status: 'failed', lockedUntil: null, retakeUntil: null });
      expect(kbaStanding(rule, history, at(lastFailure, 30 * 24 * hourMs))).toMatchObject({ status: 'failed', canStart: false });
      return;
    }
    const lockedUntil = at(lastFailure, rule.lockoutHours * hourMs);
    expect(justAfter).toMatchObject({ status: 'locked', lockedUntil, retakeUntil: null });
    expect(justAfter.reason).toContain(lockedUntil.toISOString());
    expect(kbaStanding(rule, history, at(lockedUntil, -1))).toMatchObject({ status: 'locked', canStart: false });

    const afterLockout = kbaStanding(rule, history, lockedUntil);
    expect(afterLockout).toMatchObject({ status: 'pending', canStart: true, reason: null, attemptsUsed: 0, lockedUntil: null });

    // The new cycle counts its attempts from the lockout's end and gives the retakes again.
    const newCycle = [...history, ...failures(rule, 1, lockedUntil, rule.retakes + 2)];
    const afterNewFailure = kbaStanding(rule, newCycle, at(lockedUntil, 2 * 60_000));
    expect(afterNewFailure).toMatchObject({ status: 'failed', canStart: true, attemptsUsed: 1, attemptsAllowed: rule.retakes + 1 });
  });

  it('refuses a new quiz while one is open', () => {
    const history = [...failures(rule, 1, start), attempt(rule, 2, at(start, 2 * hourMs), 'open')];
    const standing = kbaStanding(rule, history, at(start, 2 * hourMs + 1000));
    expect(standing).toMatchObject({ status: 'in_progress', canStart: false, attemptsUsed: 2 });
    expect(standing.retakeUntil).toEqual(rule.retakes >= 2 ? at(start, 60_000 + rule.retakeWindowHours * hourMs) : null);
  });

  it(`replaces at least ${rule.minReplacedPercent}% of the first quiz's questions on each retake`, () => {
    const requiredNew = Math.ceil((rule.minReplacedPercent * 5) / 100);
    for (let seed = 1; seed <= 200; seed += 1) {
      const random = seededRandom(seed);
      for (let retake = 1; retake <= rule.retakes; retake += 1) {
        const keys = chooseQuestionKeys(rule, pool, firstQuiz, random);
        expect(keys).toHaveLength(rule.questionCount);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys.every((key) => pool.includes(key))).toBe(true);
        expect(keys.filter((key) => !firstQuiz.includes(key)).length).toBeGreaterThanOrEqual(requiredNew);
      }
    }
  });

  it('meets the turnover with a pool holding exactly the new questions it needs, and refuses one short of them', () => {
    const requiredNew = Math.ceil((rule.minReplacedPercent * 5) / 100);
    const fresh = ['fresh_1', 'fresh_2', 'fresh_3', 'fresh_4', 'fresh_5'].slice(0, requiredNew);
    for (const random of [() => 0, () => 0.999_999, seededRandom(7)]) {
      const keys = chooseQuestionKeys(rule, [...firstQuiz, ...fresh], firstQuiz, random);
      expect(keys).toHaveLength(5);
      expect(keys.filter((key) => firstQuiz.includes(key)).length).toBe(5 - requiredNew);
      expect([...keys].filter((key) => fresh.includes(key)).sort()).toEqual([...fresh].sort());
    }
    expect(() => chooseQuestionKeys(rule, [...firstQuiz, ...fresh.slice(1)], firstQuiz, seededRandom(1))).toThrow(
      `A retake needs ${requiredNew} questions not asked before, but the identity data gave only ${requiredNew - 1} new ones.`,
    );
  });
});

describe('the figures of the table rows', () => {
  it('gives Texas a retake with at least 3 of 5 questions new', () => {
    const texas = policyFor('TX').kba;
    for (let seed = 1; seed <= 100; seed += 1) {
      const retake = chooseQuestionKeys(texas, pool, firstQuiz, seededRandom(seed));
      expect(retake.filter((key) => !firstQuiz.includes(key)).length).toBeGreaterThanOrEqual(3);
    }
    // With only 2 unseen questions in the pool, Texas refuses rather than reusing 3.
    expect(() => chooseQuestionKeys(texas, [...firstQuiz, 'new_1', 'new_2'], firstQuiz, seededRandom(1))).toThrow(/needs 3 questions not asked before/);
  });

  it('lets each Virginia retake reuse at most 3 of the first quiz’s 5 questions', () => {
    const virginia = policyFor('VA').kba;
    expect(virginia.retakes).toBe(2);
    for (let seed = 1; seed <= 100; seed += 1) {
      const random = seededRandom(seed);
      const smallPool = [...firstQuiz, 'new_1', 'new_2', 'new_3'];
      const second = chooseQuestionKeys(virginia, smallPool, firstQuiz, random);
      const third = chooseQuestionKeys(virginia, smallPool, firstQuiz, random);
      expect(second.filter((key) => firstQuiz.includes(key)).length).toBeLessThanOrEqual(3);
      expect(third.filter((key) => firstQuiz.includes(key)).length).toBeLessThanOrEqual(3);
    }
  });

  it('locks Texas and Florida for 24 h after the second failure, then allows a new quiz', () => {
    for (const code of ['TX', 'FL']) {
      const rule = policyFor(code).kba;
      const history = failures(rule, 2, start);
      const lastFailure = history[1]!.submittedAt!;
      expect(kbaStanding(rule, history, at(lastFailure, 23 * hourMs))).toMatchObject({
        status: 'locked',
        canStart: false,
        lockedUntil: at(lastFailure, 24 * hourMs),
      });
      expect(kbaStanding(rule, history, at(lastFailure, 24 * hourMs))).toMatchObject({ status: 'pending', canStart: true, attemptsUsed: 0 });
    }
  });

  it('ends Virginia’s questions after 3 failures with no lockout to wait out', () => {
    const rule = policyFor('VA').kba;
    const history = failures(rule, 3, start);
    const twoFailures = kbaStanding(rule, history.slice(0, 2), at(start, 2 * hourMs));
    expect(twoFailures).toMatchObject({ status: 'failed', canStart: true, attemptsUsed: 2, attemptsAllowed: 3 });
    const standing = kbaStanding(rule, history, at(start, 7 * 24 * hourMs));
    expect(standing).toMatchObject({ status: 'failed', canStart: false, attemptsUsed: 3, attemptsAllowed: 3, lockedUntil: null });
    expect(standing.reason).toBe('The questions were failed 3 times, as many as the policy allows: no new quiz can start in this identity check.');
  });

  it('gives the RULONA default 3 attempts within 48 h and a 24 h lockout', () => {
    const rule = policyFor('NE').kba;
    const history = failures(rule, 3, start);
    const lastFailure = history[2]!.submittedAt!;
    expect(kbaStanding(rule, history.slice(0, 2), at(start, 47 * hourMs))).toMatchObject({ status: 'failed', canStart: true });
    expect(kbaStanding(rule, history, at(lastFailure, 1000))).toMatchObject({ status: 'locked', lockedUntil: at(lastFailure, 24 * hourMs) });
  });
});

describe('scoring a quiz', () => {
  const rule = policyFor('TX').kba;
  const deadline = at(start, 120_000);

  it('counts unanswered questions as wrong', () => {
    expect(scoreAttempt(rule, quizKey, answersWith(4).slice(0, 3), at(start, 1000), deadline)).toEqual({
      correct: 3,
      total: 5,
      passed: false,
      timedOut: false,
    });
  });

  it('ignores answers to questions that were not asked', () => {
    const answers = [...answersWith(3), { questionId: 'q9', choiceId: 'q9-right' }, { questionId: 'other', choiceId: 'q4-right' }];
    expect(scoreAttempt(rule, quizKey, answers, at(start, 1000), deadline)).toMatchObject({ correct: 3, passed: false });
  });

  it('counts only the first answer to a question', () => {
    const wrongThenRight = [...answersWith(3), { questionId: 'q4', choiceId: 'q4-right' }];
    expect(scoreAttempt(rule, quizKey, wrongThenRight, at(start, 1000), deadline)).toMatchObject({ correct: 3, passed: false });
    const rightThenWrong = [{ questionId: 'q5', choiceId: 'q5-right' }, ...answersWith(4)];
    expect(scoreAttempt(rule, quizKey, rightThenWrong, at(start, 1000), deadline)).toMatchObject({ correct: 5, passed: true });
  });

  it('accepts answers named by questionKey as well as questionId', () => {
    const answers = quizKey.map((entry) => ({ questionKey: entry.questionKey, choiceId: entry.correctChoiceId }));
    expect(scoreAttempt(rule, quizKey, answers, at(start, 1000), deadline)).toEqual({ correct: 5, total: 5, passed: true, timedOut: false });
  });

  it('refuses to score a quiz without questions', () => {
    expect(() => scoreAttempt(rule, [], [], at(start, 1000), deadline)).toThrow('A quiz without questions cannot be scored.');
  });
});

describe('choosing questions', () => {
  const rule = policyFor('TX').kba;

  it('picks distinct questions from the pool for a first quiz, in varying order', () => {
    const orders = new Set<string>();
    for (let seed = 1; seed <= 20; seed += 1) {
      const keys = chooseQuestionKeys(rule, [...pool, ...pool], null, seededRandom(seed));
      expect(keys).toHaveLength(5);
      expect(new Set(keys).size).toBe(5);
      orders.add(keys.join());
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  it('says so when the pool holds fewer questions than a quiz needs', () => {
    expect(() => chooseQuestionKeys(rule, ['a', 'b', 'c', 'd', 'd'], null, seededRandom(1))).toThrow(
      'A quiz needs 5 questions, but the identity data gave only 4.',
    );
  });

  it('prefers questions the person has not seen beyond the minimum', () => {
    const keys = chooseQuestionKeys(rule, pool, firstQuiz, seededRandom(3));
    expect(keys.filter((key) => firstQuiz.includes(key))).toEqual([]);
  });
});
