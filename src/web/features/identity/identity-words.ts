import { bypassMethodNames, type DocumentType, type IdentityCheck, type IdentityCheckStatus, type KbaQuestions } from '#shared/identity.ts';
import { correctAnswersToPass, type IdentityPolicy, type KbaRule } from '#shared/identity-policies.ts';

/**
 * The identity step in words: pure functions of the check, the clock and the policy, shared by the
 * signer's step and the notary's review. Which part comes next is decided once, with the server's
 * next-step sentence, by getIdentityStage in #shared/identity.ts.
 */

/** The sides to photograph for a type of document. */
export function getDocumentSides(documentType: DocumentType): ('front' | 'back' | 'passport')[] {
  return documentType === 'passport' ? ['passport'] : ['front', 'back'];
}

export const sideNames: Record<'front' | 'back' | 'passport' | 'selfie', string> = {
  front: 'Front of the card',
  back: 'Back of the card',
  passport: 'Passport photo page',
  selfie: 'Selfie',
};

/** "2 minutes", "90 seconds", "1 minute 30 seconds". */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  const minuteWords = minutes === 1 ? '1 minute' : `${minutes} minutes`;
  const secondWords = rest === 1 ? '1 second' : `${rest} seconds`;
  if (minutes === 0) return secondWords;
  return rest === 0 ? minuteWords : `${minuteWords} ${secondWords}`;
}

/** The clock shown while the questions run: "1:59", "0:05"; never below 0:00. */
export function formatCountdown(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Moments a screen reader is told the time left (announcing every second would drown the questions). */
const announcedSeconds = [60, 30, 10];

/** The sentence to announce at this many milliseconds left, or null between the announced moments. */
export function getTimeAnnouncement(milliseconds: number): string | null {
  const seconds = Math.ceil(milliseconds / 1000);
  if (seconds <= 0) return 'The time is up. Your answers are being sent.';
  return announcedSeconds.includes(seconds) ? `${formatDuration(seconds)} left.` : null;
}

/**
 * When the questions' time runs out, on this browser's clock. The server's deadline is used when
 * it falls within the time limit from now (a page reloaded mid-quiz gets less time); a clock that
 * disagrees with the server's by more than that gets the whole limit, and the server decides.
 */
export function getLocalDeadline(questions: Pick<KbaQuestions, 'deadlineAt' | 'timeLimitSeconds'>, receivedAtMs: number): number {
  const full = questions.timeLimitSeconds * 1000;
  const byServer = Date.parse(questions.deadlineAt) - receivedAtMs;
  return receivedAtMs + (Number.isFinite(byServer) && byServer > 0 && byServer <= full ? byServer : full);
}

/** What the person is told before the clock starts. */
export function describeQuestionRules(rule: Pick<KbaRule, 'questionCount' | 'timeLimitSeconds' | 'passPercent'>, correctToPass: number): string {
  return (
    `You will have ${formatDuration(rule.timeLimitSeconds)} to answer ${rule.questionCount} questions about your own records, such as past addresses. ` +
    `You need ${correctToPass} right answers to pass. The clock starts when you press Start the questions, and cannot be paused.`
  );
}

/** A date and time as people read it: "Nov 24, 2026, 3:15 PM". */
export function formatWhen(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZone });
}

/**
 * Where the person stands with the questions: tries left, the time a retake must start by, a lockout.
 * The last score ("Last time you answered…") is said only before a retake: under a try's result
 * (`isAfterTry`) the result already gives it, and before a first try there is no last time.
 */
export function describeKbaStanding(
  kba: IdentityCheck['kba'],
  nowMs: number,
  timeZone?: string,
  { isAfterTry = false }: { isAfterTry?: boolean } = {},
): string[] {
  const sentences: string[] = [];
  if (!isAfterTry && kba.attempts > 0 && kba.lastCorrect !== null && kba.lastTotal !== null)
    sentences.push(`Last time you answered ${kba.lastCorrect} of ${kba.lastTotal} questions correctly.`);
  if (kba.status === 'locked' || (kba.lockedUntil && Date.parse(kba.lockedUntil) > nowMs)) {
    sentences.push(
      kba.lockedUntil
        ? `You have used every try. You may answer new questions after ${formatWhen(kba.lockedUntil, timeZone)}.`
        : 'You have used every try. Ask the notary how to go on.',
    );
    return sentences;
  }
  if (kba.status === 'passed') return sentences;
  const left = Math.max(0, kba.attemptsAllowed - kba.attempts);
  if (kba.attempts > 0) sentences.push(left === 0 ? 'You have no tries left.' : left === 1 ? 'You have 1 try left.' : `You have ${left} tries left.`);
  if (kba.retakeUntil && left > 0 && kba.attempts > 0) sentences.push(`Start your next try before ${formatWhen(kba.retakeUntil, timeZone)}.`);
  return sentences;
}

/** The result of one go at the questions, in a sentence. */
export function describeKbaResult(result: { passed: boolean; correct: number; total: number; timedOut: boolean }): string {
  const score = `You answered ${result.correct} of ${result.total} questions correctly`;
  if (result.passed) return `${score}: you passed.`;
  return result.timedOut ? `The time ran out before your answers were sent. ${score}: you did not pass.` : `${score}: you did not pass.`;
}

const statusWords: Record<IdentityCheckStatus, string> = {
  in_progress: 'Not finished: steps are left',
  ready: 'Every step passed: waiting for your review',
  confirmed: 'Confirmed',
  rejected: 'Rejected',
  locked: 'Locked: the questions were failed as often as allowed',
  expired: 'Expired: a new identity step is needed',
};

/** A check's status as the notary reads it. */
export function describeCheckStatus(status: IdentityCheckStatus): string {
  return statusWords[status];
}

/** The step's status for its owner, by part: "Done", "Not done", "Did not pass". */
export function describePartStatus(status: 'pending' | 'passed' | 'failed' | 'received' | 'in_progress' | 'locked'): string {
  switch (status) {
    case 'passed':
      return 'Passed';
    case 'received':
      return 'Received';
    case 'failed':
      return 'Did not pass';
    case 'in_progress':
      return 'Started';
    case 'locked':
      return 'Locked';
    default:
      return 'Not done yet';
  }
}

/** The badge beside the notary's Identity heading: how many wait for a decision, or that none do. */
export function describeReviewCount(items: ReadonlyArray<{ check: Pick<IdentityCheck, 'status'> | null; bypass: unknown }>): string {
  const waiting = items.filter((item) => !item.bypass && item.check?.status === 'ready').length;
  const unfinished = items.filter((item) => !item.bypass && (!item.check || item.check.status === 'in_progress' || item.check.status === 'expired')).length;
  if (waiting > 0) return waiting === 1 ? '1 to review' : `${waiting} to review`;
  if (unfinished > 0) return unfinished === 1 ? '1 not finished' : `${unfinished} not finished`;
  return items.length === 0 ? 'none needed' : 'all decided';
}

/** One rule of a state's policy in words, with where it comes from. */
export interface PolicyLine {
  label: string;
  value: string;
  citation: string;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? `1 ${one}` : `${count} ${many}`);

/** A state's identity rules as lines for the help page, each with its citation. */
export function describePolicy(policy: IdentityPolicy): PolicyLine[] {
  const { kba } = policy;
  const kbaLine = (label: string, value: string) => ({ label, value, citation: kba.citation });
  return [
    kbaLine('Questions', plural(kba.questionCount, 'question', 'questions')),
    kbaLine('Choices per question', plural(kba.choicesPerQuestion, 'choice', 'choices')),
    kbaLine('Pass mark', `${kba.passPercent}%: ${correctAnswersToPass(kba, kba.questionCount)} of ${kba.questionCount} right`),
    kbaLine('Time limit', formatDuration(kba.timeLimitSeconds)),
    kbaLine(
      'Retakes',
      kba.retakes === 0
        ? 'None'
        : `${plural(kba.retakes, 'retake', 'retakes')}, within ${plural(kba.retakeWindowHours, 'hour', 'hours')} of the first failed try`,
    ),
    kbaLine('New questions on a retake', `At least ${kba.minReplacedPercent}% of the questions are new`),
    kbaLine('Lockout', kba.lockoutHours === 0 ? 'None recorded' : `${plural(kba.lockoutHours, 'hour', 'hours')} after the last failed try`),
    { label: 'ID check (credential analysis)', value: policy.credentialAnalysisRequired ? 'Required' : 'Not required', citation: policy.credentialCitation },
    { label: 'Selfie', value: policy.selfieRequired ? 'Taken' : 'Not taken', citation: policy.selfieCitation },
    {
      label: 'Journal',
      value: policy.journalForbidsIdNumber ? 'The journal must not hold the ID’s number' : 'No rule on the ID’s number recorded',
      citation: policy.journalCitation ?? 'No citation recorded',
    },
    { label: 'Records kept', value: plural(policy.retentionYears, 'year', 'years'), citation: policy.retentionCitation },
    {
      label: 'Out of the recorded call',
      value: `The notary or a signer out of the recorded call for more than ${plural(policy.recordingInterruption.maxSeconds, 'second', 'seconds')} blocks the seal${policy.recordingInterruption.isPlatformRule ? ' (a platform rule: the state sets no number)' : ''}`,
      citation: `${policy.recordingInterruption.requirement} (${policy.recordingInterruption.citation})`,
    },
    {
      label: 'Instead of the identity step',
      value: policy.bypassMethods.length === 0 ? 'Nothing' : policy.bypassMethods.map((method) => bypassMethodNames[method]).join('; '),
      citation: policy.bypassCitation,
    },
  ];
}

/** Why a resume link did not open, in a sentence: the server's own sentence when it sent one. */
export function describeResumeLinkError(status: number, serverSentence: string | null): string {
  if (serverSentence) return serverSentence;
  if (status === 410) return 'This link has expired. On your computer, press Continue on your phone again for a new link.';
  if (status === 404) return 'This link is not known. Open the newest link from your email, or make a new one on your computer.';
  if (status === 0) return 'The server could not be reached. Check your phone’s connection, then reload this page.';
  return 'Your identity step could not be loaded. Reload this page, or make a new link on your computer.';
}
