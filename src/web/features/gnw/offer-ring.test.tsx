import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { GnwOffer } from '#shared/gnw.ts';
import { OfferDialogView } from './offer-ring.tsx';
import {
  answerOffer,
  createRingState,
  findCrossedSecond,
  getRingDeadline,
  getSecondsLeft,
  goneMessage,
  ringReducer,
  type AnswerOutcome,
  type RingState,
} from './offer-ring-state.ts';
import { playOfferTone, resetOfferTone } from './offer-sound.ts';

const offeredAt = Date.parse('2026-12-01T15:00:00.000Z');

function offer(overrides: Partial<GnwOffer> = {}): GnwOffer {
  return {
    id: '0b7c9a52-4d0e-4c8e-9f51-2f0b7a1c3d4e',
    kind: 'notary',
    isTest: false,
    jobId: '6f1f6c2e-3b7a-4f5e-9a0b-1c2d3e4f5a6b',
    act: 'acknowledgment',
    actLabel: 'Acknowledgment',
    signerState: 'TX',
    stateName: 'Texas',
    documentCount: 2,
    signerCount: 3,
    witnessesRequested: 1,
    offeredAt: new Date(offeredAt).toISOString(),
    expiresAt: new Date(offeredAt + 30_000).toISOString(),
    ...overrides,
  };
}

/** The state after ticks at the given seconds after the offer was made, from a ring opened as it was made. */
function tickThrough(state: RingState, seconds: number[]): RingState[] {
  const seen: RingState[] = [];
  let current = state;
  for (const second of seconds) {
    current = ringReducer(current, { type: 'tick', now: offeredAt + second * 1000 });
    seen.push(current);
  }
  return seen;
}

/** A stand-in for the server: answers fetch by method and path, and records what was asked. */
function stubServer(answers: Record<string, { status: number; body: unknown }>) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://app.test').pathname;
      calls.push(`${init.method ?? 'GET'} ${path}`);
      const answer = answers[`${init.method ?? 'GET'} ${path}`] ?? { status: 404, body: { error: 'not_found', message: 'Not found.' } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

const acceptPath = `POST /api/gnw/offers/${offer().id}/accept`;
const declinePath = `POST /api/gnw/offers/${offer().id}/decline`;

beforeEach(() => {
  vi.stubGlobal('sessionStorage', { getItem: () => null });
  vi.stubGlobal('localStorage', { getItem: () => null });
  vi.stubGlobal('window', { location: { port: '3000' } });
});

describe('the ring’s countdown', () => {
  it('counts down from the offer’s 30 seconds, never more than it rang for on a clock that runs behind', () => {
    expect(getRingDeadline(offer(), offeredAt)).toBe(offeredAt + 30_000);
    // Seen 5 s after it was made: 25 s left.
    expect(getSecondsLeft(getRingDeadline(offer(), offeredAt + 5_000), offeredAt + 5_000)).toBe(25);
    // This computer's clock 60 s behind the server's: still at most 30 s, not 90.
    const behind = offeredAt - 60_000;
    expect(getSecondsLeft(getRingDeadline(offer(), behind), behind)).toBe(30);
    expect(getSecondsLeft(offeredAt + 29_100, offeredAt)).toBe(30);
    expect(getSecondsLeft(offeredAt, offeredAt + 1)).toBe(0);
  });

  it('shows every second and announces only 20, 10 and 5 seconds left', () => {
    const opened = createRingState(offer(), offeredAt);
    expect(opened).toMatchObject({ phase: 'open', secondsLeft: 30, announcement: '' });
    const seconds = Array.from({ length: 29 }, (_, index) => index + 1);
    const states = tickThrough(opened, seconds);
    expect(states.map((state) => state.secondsLeft)).toEqual(seconds.map((second) => 30 - second));
    const announcements = [...new Set(states.map((state) => state.announcement))].filter(Boolean);
    expect(announcements).toEqual(['20 seconds left to answer.', '10 seconds left to answer.', '5 seconds left to answer.']);
    expect(findCrossedSecond(12, 4)).toBe(5);
    expect(findCrossedSecond(4, 3)).toBeNull();
  });

  it('says the request moved on and closes when the countdown reaches 0', () => {
    const [last] = tickThrough(createRingState(offer(), offeredAt), [30]);
    expect(last).toMatchObject({ phase: 'expired', secondsLeft: 0, message: 'Time ran out: the request moved on to the next notary.' });
    expect(last?.announcement).toBe(last?.message);
    const html = renderToStaticMarkup(<OfferDialogView state={last!} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />);
    expect(html).toContain('Time ran out: the request moved on to the next notary.');
    expect(html).toContain('>Close</button>');
    expect(html).not.toContain('Accept');
    // A witness's offer moves on to the next witness; an offer already run out when first seen opens closed.
    expect(createRingState(offer({ kind: 'witness' }), offeredAt + 31_000)).toMatchObject({
      phase: 'expired',
      message: 'Time ran out: the request moved on to the next witness.',
    });
  });
});

describe('the ring’s answers', () => {
  it('shows the open offer as an alert dialog with the act, the state, the counts and the time left', () => {
    const state = ringReducer(createRingState(offer(), offeredAt), { type: 'tick', now: offeredAt + 3_000 });
    const html = renderToStaticMarkup(<OfferDialogView state={state} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />);
    expect(html).toContain('role="alertdialog"');
    expect(html).toMatch(/<h2 id="[^"]+">A notarization is waiting<\/h2>/);
    for (const text of ['Acknowledgment', 'Texas', '<dt>Documents</dt><dd>2</dd>', '<dt>Signers</dt><dd>3</dd>', '<dt>Witnesses requested</dt><dd>1</dd>']) {
      expect(html).toContain(text);
    }
    expect(html).toContain('<p role="timer" class="offer-seconds">27 seconds left</p>');
    expect(html).toContain('>Accept</button>');
    expect(html).toContain('>Decline</button>');
  });

  it('accepts: the answer’s lobby is where the notary goes', async () => {
    const calls = stubServer({ [acceptPath]: { status: 200, body: { message: 'The job is yours.', jobId: offer().jobId, sessionPath: '/session/job-1' } } });
    const outcome = await answerOffer(offer(), 'accept');
    expect(calls).toEqual([acceptPath]);
    expect(outcome).toEqual({ kind: 'accepted', message: 'The job is yours.', sessionPath: '/session/job-1' });
    const answering = ringReducer(createRingState(offer(), offeredAt), { type: 'answer', choice: 'accept' });
    const html = renderToStaticMarkup(<OfferDialogView state={answering} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />);
    expect(html).toMatch(/<button type="button" class="button primary" disabled="">Accepting…<\/button>/);
    expect(ringReducer(answering, { type: 'answered', outcome })).toMatchObject({ phase: 'accepted', sessionPath: '/session/job-1' });
  });

  it('says the request was taken or withdrawn when the server answers 409 offer_gone, or when it leaves the list', async () => {
    stubServer({ [acceptPath]: { status: 409, body: { error: 'offer_gone', message: 'This offer is no longer open.' } } });
    const outcome = await answerOffer(offer(), 'accept');
    expect(outcome).toEqual({ kind: 'gone', message: goneMessage });
    const answering = ringReducer(createRingState(offer(), offeredAt), { type: 'answer', choice: 'accept' });
    const gone = ringReducer(answering, { type: 'answered', outcome });
    expect(gone).toMatchObject({ phase: 'gone', message: 'This request was taken or withdrawn.', announcement: 'This request was taken or withdrawn.' });
    const html = renderToStaticMarkup(<OfferDialogView state={gone} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />);
    expect(html).toContain('This request was taken or withdrawn.');
    expect(html).not.toContain('role="timer"');
    // Withdrawn while ringing (the next poll no longer lists it).
    expect(ringReducer(createRingState(offer(), offeredAt), { type: 'withdrawn' })).toMatchObject({ phase: 'gone', message: goneMessage });
  });

  it('declines, and a decline the server no longer needs closes the same way', async () => {
    stubServer({ [declinePath]: { status: 200, body: { message: 'Declined.', jobId: null, sessionPath: null } } });
    expect(await answerOffer(offer(), 'decline')).toEqual({ kind: 'declined' });
    stubServer({ [declinePath]: { status: 409, body: { error: 'offer_gone', message: 'This offer is no longer open.' } } });
    const outcome = await answerOffer(offer(), 'decline');
    expect(outcome).toEqual({ kind: 'declined' });
    const answering = ringReducer(createRingState(offer(), offeredAt), { type: 'answer', choice: 'decline' });
    expect(ringReducer(answering, { type: 'answered', outcome })).toMatchObject({ phase: 'declined', sessionPath: null });
  });

  it('keeps the offer open with the reason when an answer fails and time is left', async () => {
    stubServer({ [acceptPath]: { status: 503, body: { error: 'service_unavailable', message: 'The server is busy.' } } });
    const outcome: AnswerOutcome = await answerOffer(offer(), 'accept');
    expect(outcome).toEqual({ kind: 'failed', message: 'Accepting did not go through: The server is busy.' });
    const answering = ringReducer(createRingState(offer(), offeredAt), { type: 'answer', choice: 'accept' });
    const after = ringReducer(answering, { type: 'answered', outcome });
    expect(after).toMatchObject({ phase: 'open', error: 'Accepting did not go through: The server is busy.' });
    const html = renderToStaticMarkup(<OfferDialogView state={after} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />);
    expect(html).toContain('role="alert">Accepting did not go through: The server is busy.</p>');
  });

  it('says a test offer comes from an administrator, and accepting it only records the answer', async () => {
    const test = offer({ isTest: true, jobId: null, stateName: null, signerState: null });
    const html = renderToStaticMarkup(
      <OfferDialogView state={createRingState(test, offeredAt)} onAccept={() => undefined} onDecline={() => undefined} onClose={() => undefined} />,
    );
    expect(html).toContain('Test offer: a notarization is waiting');
    expect(html).toContain('This is a test from an administrator. Accepting only records your answer');
    expect(html).toContain('<dt>State</dt><dd>Not given</dd>');
    expect(html).toContain('>Accept test offer</button>');
    // Even an answer carrying a path does not take a test's notary anywhere.
    stubServer({ [acceptPath]: { status: 200, body: { message: 'Test offer accepted: recorded.', jobId: null, sessionPath: '/session/x' } } });
    const outcome = await answerOffer(test, 'accept');
    expect(outcome).toEqual({ kind: 'recorded', message: 'Test offer accepted: recorded.' });
    const recorded = ringReducer(ringReducer(createRingState(test, offeredAt), { type: 'answer', choice: 'accept' }), { type: 'answered', outcome });
    expect(recorded).toMatchObject({ phase: 'recorded', sessionPath: null, message: 'Test offer accepted: recorded.' });
    expect(ringReducer(createRingState(test, offeredAt + 31_000), { type: 'tick', now: offeredAt + 32_000 }).message).toBe(
      'Time ran out on this test offer. Nothing was recorded.',
    );
  });
});

describe('the ring’s chime', () => {
  beforeEach(() => resetOfferTone());

  it('plays two short tones through Web Audio', async () => {
    const started: number[] = [];
    class RunningContext {
      state = 'running';
      currentTime = 0;
      destination = {};
      resume = async () => undefined;
      createGain = () => ({ gain: { setValueAtTime: () => undefined, exponentialRampToValueAtTime: () => undefined }, connect: () => undefined });
      createOscillator = () => ({
        type: '',
        frequency: { setValueAtTime: (value: number) => started.push(value) },
        connect: () => undefined,
        start: () => undefined,
        stop: () => undefined,
      });
    }
    expect(await playOfferTone({ AudioContext: RunningContext } as unknown as typeof globalThis)).toBe(true);
    expect(started).toEqual([880, 1175]);
  });

  it('stays silent, without an error, when the browser blocks sound or has no Web Audio', async () => {
    class BlockedContext {
      state = 'suspended';
      resume = () => new Promise(() => undefined);
    }
    expect(await playOfferTone({ AudioContext: BlockedContext } as unknown as typeof globalThis)).toBe(false);
    resetOfferTone();
    expect(await playOfferTone({} as typeof globalThis)).toBe(false);
    resetOfferTone();
    class ThrowingContext {
      constructor() {
        throw new Error('NotAllowedError');
      }
    }
    expect(await playOfferTone({ AudioContext: ThrowingContext } as unknown as typeof globalThis)).toBe(false);
  });
});
