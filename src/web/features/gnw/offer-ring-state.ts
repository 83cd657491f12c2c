import type { GnwOffer } from '#shared/gnw.ts';
import { gnwApi } from '#web/api/gnw.ts';
import { ApiError } from '#web/lib/api-client.ts';

/**
 * The offer ring's rules (decision 051), apart from React so they can be tested: when the offer's
 * time runs out on this screen, what the countdown says and announces, and what each answer leads to.
 */

/** A screen reader hears the time left at these seconds (politely), not every second. */
export const announcedSeconds = [20, 10, 5] as const;
/** How long the closing sentence (taken, moved on, recorded) stays before the dialog closes by itself. */
export const closingDelayMs = 4_000;

/**
 * When the offer stops ringing on this screen. The server's `expiresAt` read on this computer's clock,
 * but never later than the offer's full ringing time after it first appeared here: a clock that runs
 * behind the server's would otherwise show more time than the notary has.
 */
export function getRingDeadline(offer: Pick<GnwOffer, 'offeredAt' | 'expiresAt'>, seenAt: number): number {
  const expiresAt = Date.parse(offer.expiresAt);
  const offeredAt = Date.parse(offer.offeredAt);
  if (Number.isNaN(expiresAt)) return seenAt;
  if (Number.isNaN(offeredAt) || offeredAt > expiresAt) return expiresAt;
  return Math.min(expiresAt, seenAt + (expiresAt - offeredAt));
}

/** Whole seconds left, rounded up (0 once the deadline has passed). */
export function getSecondsLeft(deadline: number, now: number): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/** "27 seconds left", "1 second left". */
export function describeSecondsLeft(seconds: number): string {
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'} left`;
}

/** The announced second passed between two ticks (the lowest one, when a slow tick skipped several), else null. */
export function findCrossedSecond(previous: number, current: number): number | null {
  const crossed = announcedSeconds.filter((second) => current <= second && second < previous);
  return crossed.length ? Math.min(...crossed) : null;
}

export type RingPhase = 'open' | 'answering' | 'accepted' | 'recorded' | 'declined' | 'gone' | 'expired';

export interface RingState {
  offer: GnwOffer;
  deadline: number;
  secondsLeft: number;
  phase: RingPhase;
  /** The answer being sent while `phase` is 'answering'. */
  choice: 'accept' | 'decline' | null;
  /** The closing sentence (accepted, recorded, gone, expired). */
  message: string | null;
  /** A failed answer that can be tried again while time is left. */
  error: string | null;
  /** What the polite live region says: the time at 20, 10 and 5 s, then the closing sentence. */
  announcement: string;
  /** Where an accepted offer goes: the job's lobby. */
  sessionPath: string | null;
}

export type AnswerOutcome =
  | { kind: 'accepted'; message: string; sessionPath: string }
  | { kind: 'recorded'; message: string }
  | { kind: 'declined' }
  | { kind: 'gone'; message: string }
  | { kind: 'failed'; message: string };

export type RingAction =
  | { type: 'tick'; now: number }
  | { type: 'answer'; choice: 'accept' | 'decline' }
  | { type: 'answered'; outcome: AnswerOutcome }
  /** The offer left the notary's list before they answered: taken, withdrawn or expired on the server. */
  | { type: 'withdrawn' };

export const goneMessage = 'This request was taken or withdrawn.';

export function getExpiredMessage(offer: Pick<GnwOffer, 'isTest' | 'kind'>): string {
  if (offer.isTest) return 'Time ran out on this test offer. Nothing was recorded.';
  return `Time ran out: the request moved on to the next ${offer.kind === 'witness' ? 'witness' : 'notary'}.`;
}

/** The dialog's title. */
export function getRingTitle(offer: Pick<GnwOffer, 'isTest' | 'kind'>): string {
  const title = offer.kind === 'witness' ? 'A notarization needs a witness' : 'A notarization is waiting';
  return offer.isTest ? `Test offer: ${title.charAt(0).toLowerCase()}${title.slice(1)}` : title;
}

/** Whether the dialog has done its work and only shows its closing sentence (or closes at once). */
export function isRingClosing(phase: RingPhase): boolean {
  return phase !== 'open' && phase !== 'answering';
}

export function createRingState(offer: GnwOffer, now: number): RingState {
  const deadline = getRingDeadline(offer, now);
  const secondsLeft = getSecondsLeft(deadline, now);
  const state: RingState = { offer, deadline, secondsLeft, phase: 'open', choice: null, message: null, error: null, announcement: '', sessionPath: null };
  return secondsLeft === 0 ? expire(state) : state;
}

function expire(state: RingState): RingState {
  const message = getExpiredMessage(state.offer);
  return { ...state, secondsLeft: 0, phase: 'expired', choice: null, message, announcement: message };
}

function close(state: RingState, phase: RingPhase, message: string | null, sessionPath: string | null = null): RingState {
  return { ...state, phase, choice: null, message, error: null, announcement: message ?? state.announcement, sessionPath };
}

export function ringReducer(state: RingState, action: RingAction): RingState {
  switch (action.type) {
    case 'tick': {
      if (isRingClosing(state.phase)) return state;
      const secondsLeft = getSecondsLeft(state.deadline, action.now);
      if (secondsLeft === state.secondsLeft) return state;
      // An answer on its way when time runs out is left to the server, which says whether it counted.
      if (secondsLeft === 0 && state.phase === 'open') return expire(state);
      const crossed = findCrossedSecond(state.secondsLeft, secondsLeft);
      const announcement = crossed === null ? state.announcement : `${describeSecondsLeft(crossed)} to answer.`;
      return { ...state, secondsLeft, announcement };
    }
    case 'answer':
      if (state.phase !== 'open') return state;
      return { ...state, phase: 'answering', choice: action.choice, error: null };
    case 'answered': {
      if (state.phase !== 'answering') return state;
      const { outcome } = action;
      if (outcome.kind === 'accepted') return close(state, 'accepted', outcome.message, outcome.sessionPath);
      if (outcome.kind === 'recorded') return close(state, 'recorded', outcome.message);
      if (outcome.kind === 'declined') return close(state, 'declined', null);
      if (outcome.kind === 'gone') return close(state, 'gone', outcome.message);
      if (state.secondsLeft === 0) return expire(state);
      return { ...state, phase: 'open', choice: null, error: outcome.message };
    }
    case 'withdrawn':
      if (state.phase !== 'open') return state;
      // Gone from the list in its last seconds: the server's clock ran it out a moment before this one.
      return state.secondsLeft <= 2 ? expire(state) : close(state, 'gone', goneMessage);
  }
}

/** Sends the notary's answer and says what came of it; a 409 offer_gone is the request taken or withdrawn. */
export async function answerOffer(offer: Pick<GnwOffer, 'id' | 'isTest'>, choice: 'accept' | 'decline'): Promise<AnswerOutcome> {
  try {
    if (choice === 'decline') {
      await gnwApi.declineOffer(offer.id);
      return { kind: 'declined' };
    }
    const answer = await gnwApi.acceptOffer(offer.id);
    if (!offer.isTest && answer.sessionPath) return { kind: 'accepted', message: answer.message, sessionPath: answer.sessionPath };
    return { kind: 'recorded', message: answer.message };
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'offer_gone' || error.status === 404)) {
      return choice === 'decline' ? { kind: 'declined' } : { kind: 'gone', message: goneMessage };
    }
    const detail = error instanceof Error ? error.message : 'The answer could not be sent.';
    return { kind: 'failed', message: `${choice === 'accept' ? 'Accepting' : 'Declining'} did not go through: ${detail}` };
  }
}
