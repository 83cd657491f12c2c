import { describe, expect, it } from 'vitest';
import type { GnwJob } from '#shared/gnw.ts';
import {
  canCancel,
  describeCancelOutcome,
  describeNotariesOnline,
  describePlace,
  describeTypicalWait,
  getSetupView,
  getStepperItems,
  getViewStep,
} from './setup-view.ts';

const held = { status: 'held', amountCents: 3900, capturedCents: null };
type ViewFacts = Parameters<typeof getSetupView>[0];
const facts = (overrides: Partial<ViewFacts>): ViewFacts => ({
  status: 'setup',
  jobStatus: 'draft',
  step: 'documents',
  lane: 'instant',
  payment: null,
  ...overrides,
});

describe('getSetupView', () => {
  it('shows the step the person reached while the job is in setup', () => {
    expect(getSetupView(facts({ step: 'documents' }))).toBe('documents');
    expect(getSetupView(facts({ step: 'needs' }))).toBe('needs');
    expect(getSetupView(facts({ step: 'payment' }))).toBe('payment');
    expect(getSetupView(facts({ step: 'notary', payment: held }))).toBe('choose-lane');
    expect(getSetupView(facts({ step: 'notary', lane: 'scheduled', payment: held }))).toBe('slots');
  });

  it('shows the last step once the job is sealed, while the request still says matched or booked (it completes at finalize)', () => {
    expect(getSetupView(facts({ status: 'matched', jobStatus: 'completed', step: 'session', payment: held }))).toBe('done');
    expect(getSetupView(facts({ status: 'booked', jobStatus: 'completed', step: 'session', lane: 'scheduled', payment: held }))).toBe('done');
    expect(getSetupView(facts({ status: 'matched', jobStatus: 'in_session', step: 'session', payment: held }))).toBe('matched');
  });

  it('never offers a notary before the amount is held on the card', () => {
    expect(getSetupView(facts({ step: 'notary', payment: null }))).toBe('payment');
    expect(getSetupView(facts({ step: 'notary', payment: { ...held, status: 'failed' } }))).toBe('payment');
  });

  it('follows the request’s status once the search or the booking has begun, whatever step was saved', () => {
    expect(getSetupView(facts({ status: 'searching', step: 'notary', payment: held }))).toBe('searching');
    expect(getSetupView(facts({ status: 'unmatched', step: 'notary', payment: held }))).toBe('unmatched');
    expect(getSetupView(facts({ status: 'unmatched', step: 'notary', lane: 'scheduled', payment: held }))).toBe('slots');
    expect(getSetupView(facts({ status: 'matched', step: 'session', payment: held }))).toBe('matched');
    expect(getSetupView(facts({ status: 'booked', step: 'session', lane: 'scheduled', payment: held }))).toBe('booked');
    expect(getSetupView(facts({ status: 'completed', step: 'session', payment: held }))).toBe('done');
    expect(getSetupView(facts({ status: 'cancelled', step: 'payment' }))).toBe('cancelled');
  });

  it('marks the steps before the current one done in the stepper', () => {
    expect(getViewStep('searching')).toBe('notary');
    expect(getViewStep('booked')).toBe('session');
    expect(getStepperItems(getViewStep('payment')).map((item) => `${item.label}:${item.state}`)).toEqual([
      'Your documents:done',
      'What you need:done',
      'Payment:current',
      'Your notary:upcoming',
      'Your session:upcoming',
      'Done:upcoming',
    ]);
  });
});

describe('the search sentences', () => {
  it('says the place in line, who is online and an honest wait', () => {
    expect(describePlace(1)).toBe('You are next in line.');
    expect(describePlace(3)).toBe('You are number 3 in line.');
    expect(describeNotariesOnline(0)).toBe('No notary is online right now; we keep asking as notaries come online.');
    expect(describeNotariesOnline(1)).toBe('1 notary is online now.');
    expect(describeNotariesOnline(4)).toBe('4 notaries are online now.');
    expect(describeTypicalWait(null)).toBe('No estimate yet: too few recent matches to say how long it usually takes.');
    expect(describeTypicalWait(45)).toBe('A notary usually accepts within about 45 seconds.');
    expect(describeTypicalWait(150)).toBe('A notary usually accepts within about 3 minutes.');
  });
});

describe('cancelling', () => {
  const job = (overrides: Partial<GnwJob>) =>
    ({ status: 'searching', jobStatus: 'ready', payment: held, cancelFeeCents: 0, booking: null, ...overrides }) as GnwJob;

  it('is offered before the session only', () => {
    expect(canCancel(job({}))).toBe(true);
    expect(canCancel(job({ jobStatus: 'in_session' }))).toBe(false);
    expect(canCancel(job({ status: 'completed' }))).toBe(false);
    expect(canCancel(job({ cancelFeeCents: null }))).toBe(false);
  });

  it('says what happens to the hold', () => {
    expect(describeCancelOutcome(job({}))).toBe('The $39.00 held on your card is released: nothing is taken.');
    expect(describeCancelOutcome(job({ payment: null }))).toBe('Nothing has been charged.');
    expect(
      describeCancelOutcome(
        job({
          cancelFeeCents: 2500,
          booking: { id: 'b', startsAt: '', endsAt: '', timeZone: 'UTC', notaryName: 'Nora', label: 'Tuesday, December 1, 9:30 AM CST' },
        }),
      ),
    ).toBe(
      'Your booked time (Tuesday, December 1, 9:30 AM CST) is given up. It is late to cancel: the $25.00 no-show fee is taken from the $39.00 held on your card, and the rest is released.',
    );
  });
});
