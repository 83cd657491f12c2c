import { correctAnswersToPass, type KbaRule } from '#shared/identity-policies.ts';

/**
 * The knowledge-based questions of the identity step (decision 025) as pure rules: who
 * may start a quiz and when, which questions a retake shows, and how a quiz is scored. No I/O:
 * the service passes the stored attempts and the time.
 */

export interface KbaAttemptRecord {
  attempt: number;
  startedAt: Date;
  deadlineAt: Date;
  submittedAt: Date | null;
  passed: boolean | null;
  questionKeys: string[];
}

export type KbaStandingStatus = 'pending' | 'in_progress' | 'passed' | 'failed' | 'locked';

export interface KbaStanding {
  status: KbaStandingStatus;
  canStart: boolean;
  /** Why no quiz can start, in a sentence; null when one can. */
  reason: string | null;
  /** Attempts in the current cycle (a cycle begins anew when a lockout ends). */
  attemptsUsed: number;
  /** The first attempt and its retakes. */
  attemptsAllowed: number;
  /** When a retake is still possible in this cycle: it must start by this time. */
  retakeUntil: Date | null;
  /** When locked: the first moment a new quiz may start. */
  lockedUntil: Date | null;
  openAttempt: KbaAttemptRecord | null;
}

const hourMs = 60 * 60 * 1000;

type Outcome = { kind: 'passed' } | { kind: 'open' } | { kind: 'failed'; at: Date };

/**
 * An attempt's outcome at `now`. A submission after the deadline is a failure whatever its stored
 * result; an unsubmitted attempt fails at its deadline once `now` is past it; a submitted attempt
 * without a recorded result has not passed.
 */
function outcomeOf(attempt: KbaAttemptRecord, now: Date): Outcome {
  if (attempt.submittedAt) {
    if (attempt.submittedAt.getTime() > attempt.deadlineAt.getTime()) return { kind: 'failed', at: attempt.submittedAt };
    return attempt.passed === true ? { kind: 'passed' } : { kind: 'failed', at: attempt.submittedAt };
  }
  if (now.getTime() > attempt.deadlineAt.getTime()) return { kind: 'failed', at: attempt.deadlineAt };
  return { kind: 'open' };
}

interface Cycle {
  attempts: KbaAttemptRecord[];
  failures: Date[];
}

/**
 * When a cycle has ended without a pass, the moment it ended: the last failure when every attempt
 * is used, the end of the retake window when it passed with retakes unused. Null while the cycle
 * is still open at `at`.
 */
function cycleEndedAt(rule: KbaRule, cycle: Cycle, at: Date): { at: Date; isWindowLapsed: boolean } | null {
  const [firstFailure] = cycle.failures;
  const lastFailure = cycle.failures.at(-1);
  if (!firstFailure || !lastFailure) return null;
  if (cycle.attempts.length >= rule.retakes + 1 && cycle.failures.length === cycle.attempts.length) return { at: lastFailure, isWindowLapsed: false };
  const retakeUntil = new Date(firstFailure.getTime() + rule.retakeWindowHours * hourMs);
  const hasOpenAttempt = cycle.failures.length < cycle.attempts.length;
  if (!hasOpenAttempt && at.getTime() > retakeUntil.getTime()) return { at: retakeUntil, isWindowLapsed: true };
  return null;
}

/**
 * Where a person stands with the questions at `now`. The first attempt may start at any time;
 * after a failure, `retakes` more attempts may follow, each starting within `retakeWindowHours` of
 * the first failure. After the last failure (or when the retake window passes unused) no new quiz
 * starts for `lockoutHours`; then a new cycle begins and attempts are counted again. With
 * `lockoutHours` 0 there is no new quiz at all in this check.
 */
export function kbaStanding(rule: KbaRule, attempts: KbaAttemptRecord[], now: Date): KbaStanding {
  const attemptsAllowed = rule.retakes + 1;
  const sorted = [...attempts].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.attempt - b.attempt);
  const base = { attemptsAllowed, retakeUntil: null, lockedUntil: null, openAttempt: null };

  let cycle: Cycle = { attempts: [], failures: [] };
  let openAttempt: KbaAttemptRecord | null = null;
  for (const attempt of sorted) {
    const ended = cycleEndedAt(rule, cycle, attempt.startedAt);
    // An attempt that starts after the lockout begins a new cycle. One that starts earlier (which
    // the service never allows) still counts in the cycle it broke into.
    if (ended && rule.lockoutHours > 0 && attempt.startedAt.getTime() >= ended.at.getTime() + rule.lockoutHours * hourMs) {
      cycle = { attempts: [], failures: [] };
    }
    cycle.attempts.push(attempt);
    const outcome = outcomeOf(attempt, now);
    if (outcome.kind === 'passed') {
      return {
        ...base,
        status: 'passed',
        canStart: false,
        reason: 'The questions were answered correctly: no new quiz is needed.',
        attemptsUsed: cycle.attempts.length,
      };
    }
    if (outcome.kind === 'failed') cycle.failures.push(outcome.at);
    else openAttempt = attempt;
  }

  if (openAttempt) {
    const firstFailure = cycle.failures[0];
    const isRetakeLeft = cycle.attempts.length < attemptsAllowed;
    return {
      ...base,
      status: 'in_progress',
      canStart: false,
      reason: `A quiz is already open: answer it by ${openAttempt.deadlineAt.toISOString()}.`,
      attemptsUsed: cycle.attempts.length,
      retakeUntil: firstFailure && isRetakeLeft ? new Date(firstFailure.getTime() + rule.retakeWindowHours * hourMs) : null,
      openAttempt,
    };
  }

  const [firstFailure] = cycle.failures;
  if (!firstFailure) return { ...base, status: 'pending', canStart: true, reason: null, attemptsUsed: 0 };

  const ended = cycleEndedAt(rule, cycle, now);
  if (!ended) {
    return {
      ...base,
      status: 'failed',
      canStart: true,
      reason: null,
      attemptsUsed: cycle.attempts.length,
      retakeUntil: new Date(firstFailure.getTime() + rule.retakeWindowHours * hourMs),
    };
  }

  const why = ended.isWindowLapsed
    ? `The time for a retake ended at ${ended.at.toISOString()}`
    : `The questions were failed ${cycle.failures.length} ${cycle.failures.length === 1 ? 'time' : 'times'}, as many as the policy allows`;
  if (rule.lockoutHours === 0) {
    return { ...base, status: 'failed', canStart: false, reason: `${why}: no new quiz can start in this identity check.`, attemptsUsed: cycle.attempts.length };
  }
  const lockedUntil = new Date(ended.at.getTime() + rule.lockoutHours * hourMs);
  if (now.getTime() < lockedUntil.getTime()) {
    return {
      ...base,
      status: 'locked',
      canStart: false,
      reason: `${why}: a new quiz can start at ${lockedUntil.toISOString()}.`,
      attemptsUsed: cycle.attempts.length,
      lockedUntil,
    };
  }
  // The lockout is over: a new cycle begins with no attempt yet.
  return { ...base, status: 'pending', canStart: true, reason: null, attemptsUsed: 0 };
}

/** Fisher–Yates with the given source of numbers in [0, 1). */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index -= 1) {
    const other = Math.min(index, Math.floor(random() * (index + 1)));
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}

/**
 * The keys of a quiz's questions, picked at random from `poolKeys`. On a retake, at least
 * `minReplacedPercent` of `previousKeys` (rounded up) is replaced by questions not in it; questions
 * the person has not seen are preferred beyond that minimum. Throws when the pool is too small.
 * `previousKeys` is the quiz the turnover is measured against (Virginia: the first quiz of the
 * cycle; elsewhere the previous quiz).
 */
export function chooseQuestionKeys(rule: KbaRule, poolKeys: string[], previousKeys: string[] | null, random: () => number): string[] {
  const pool = [...new Set(poolKeys)];
  const count = rule.questionCount;
  if (pool.length < count) {
    throw new Error(`A quiz needs ${count} questions, but the identity data gave only ${pool.length}.`);
  }
  const previous = new Set(previousKeys ?? []);
  const requiredNew = Math.ceil((rule.minReplacedPercent * previous.size) / 100 - 1e-9);
  const unseen = shuffle(
    pool.filter((key) => !previous.has(key)),
    random,
  );
  const seen = shuffle(
    pool.filter((key) => previous.has(key)),
    random,
  );
  const neededNew = Math.min(requiredNew, count);
  if (unseen.length < neededNew) {
    throw new Error(`A retake needs ${neededNew} questions not asked before, but the identity data gave only ${unseen.length} new ones.`);
  }
  return shuffle([...unseen, ...seen].slice(0, count), random);
}

export type KbaAnswer = { choiceId: string } & ({ questionId: string } | { questionKey: string });

export interface KbaScore {
  correct: number;
  total: number;
  passed: boolean;
  timedOut: boolean;
}

/**
 * Scores a quiz. Unanswered questions are wrong, answers to questions not in the quiz are ignored,
 * and only the first answer to a question counts. Answers submitted after the deadline count for
 * nothing: the attempt fails as timed out. Submitting exactly at the deadline is in time.
 */
export function scoreAttempt(
  rule: KbaRule,
  key: { questionKey: string; correctChoiceId: string }[],
  answers: KbaAnswer[],
  submittedAt: Date,
  deadlineAt: Date,
): KbaScore {
  const correctChoices = new Map<string, string>();
  for (const entry of key) if (!correctChoices.has(entry.questionKey)) correctChoices.set(entry.questionKey, entry.correctChoiceId);
  const total = correctChoices.size;
  if (total === 0) throw new Error('A quiz without questions cannot be scored.');
  const timedOut = submittedAt.getTime() > deadlineAt.getTime();
  if (timedOut) return { correct: 0, total, passed: false, timedOut };

  const chosen = new Map<string, string>();
  for (const answer of answers) {
    const questionKey = 'questionKey' in answer ? answer.questionKey : answer.questionId;
    if (correctChoices.has(questionKey) && !chosen.has(questionKey)) chosen.set(questionKey, answer.choiceId);
  }
  let correct = 0;
  for (const [questionKey, choiceId] of chosen) if (correctChoices.get(questionKey) === choiceId) correct += 1;
  return { correct, total, passed: correct >= correctAnswersToPass(rule, total), timedOut };
}
