import { gnwStepLabels, gnwSteps, type GnwJob, type GnwStep } from '#shared/gnw.ts';
import { formatCents } from '#shared/pricing.ts';

/**
 * Which screen of /gnw/setup a person sees (decision 051): read from the job alone, so the page
 * resumes where they left off on any device. One screen, one obvious next step.
 */
export type SetupView = 'documents' | 'needs' | 'payment' | 'choose-lane' | 'slots' | 'searching' | 'unmatched' | 'matched' | 'booked' | 'done' | 'cancelled';

export function getSetupView(job: Pick<GnwJob, 'status' | 'jobStatus' | 'step' | 'lane' | 'payment'>): SetupView {
  // The job sealed: the request completes at finalize, which the done screen asks for.
  if (job.jobStatus === 'completed' && job.status !== 'cancelled') return 'done';
  switch (job.status) {
    case 'cancelled':
      return 'cancelled';
    case 'completed':
      return 'done';
    case 'searching':
      return 'searching';
    case 'unmatched':
      // Switched to a scheduled time with the hold kept: the person picks a time next.
      return job.lane === 'scheduled' ? 'slots' : 'unmatched';
    case 'matched':
      return 'matched';
    case 'booked':
      return 'booked';
    case 'setup':
      break;
  }
  if (job.step === 'documents') return 'documents';
  if (job.step === 'needs') return 'needs';
  // Past the payment step only with the amount held: a notary is never looked for without it.
  if (job.step === 'payment' || job.payment?.status !== 'held') return 'payment';
  return job.lane === 'scheduled' ? 'slots' : 'choose-lane';
}

/** The wizard step a view belongs to: what the stepper marks as current. */
export function getViewStep(view: SetupView): GnwStep {
  switch (view) {
    case 'documents':
    case 'needs':
    case 'payment':
      return view;
    case 'choose-lane':
    case 'slots':
    case 'searching':
    case 'unmatched':
      return 'notary';
    case 'matched':
    case 'booked':
    case 'cancelled':
      return 'session';
    case 'done':
      return 'done';
  }
}

/** The heading of each view: focus moves to it when the view changes. */
export const setupViewHeadings: Record<SetupView, string> = {
  documents: gnwStepLabels.documents,
  needs: gnwStepLabels.needs,
  payment: gnwStepLabels.payment,
  'choose-lane': gnwStepLabels.notary,
  slots: 'Pick a time',
  searching: 'Finding your notary…',
  unmatched: 'No notary has accepted yet',
  matched: 'Your notary accepted',
  booked: 'Your session is booked',
  done: 'Your documents are notarized',
  cancelled: 'This notarization was cancelled',
};

export interface StepperItem {
  step: GnwStep;
  label: string;
  state: 'done' | 'current' | 'upcoming';
}

/** The stepper: every step, those before the current one done. */
export function getStepperItems(current: GnwStep): StepperItem[] {
  const index = gnwSteps.indexOf(current);
  return gnwSteps.map((step, position) => ({
    step,
    label: gnwStepLabels[step],
    state: position < index ? 'done' : position === index ? 'current' : 'upcoming',
  }));
}

/** Whether the person may still cancel (before the session): not once it is done or cancelled. */
export function canCancel(job: Pick<GnwJob, 'status' | 'jobStatus' | 'cancelFeeCents'>): boolean {
  if (job.status === 'completed' || job.status === 'cancelled') return false;
  if (job.jobStatus === 'in_session' || job.jobStatus === 'completed' || job.jobStatus === 'cancelled') return false;
  return job.cancelFeeCents !== null;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "You are next in line." / "You are number 3 in line." */
export function describePlace(place: number): string {
  return place <= 1 ? 'You are next in line.' : `You are number ${place} in line.`;
}

export function describeNotariesOnline(count: number): string {
  if (count <= 0) return 'No notary is online right now; we keep asking as notaries come online.';
  return `${plural(count, 'notary is', 'notaries are')} online now.`;
}

/** An honest wait: the median of recent matches, or that there are too few to say. */
export function describeTypicalWait(seconds: number | null): string {
  if (seconds === null) return 'No estimate yet: too few recent matches to say how long it usually takes.';
  if (seconds < 60) return `A notary usually accepts within about ${plural(Math.max(seconds, 1), 'second', 'seconds')}.`;
  return `A notary usually accepts within about ${plural(Math.round(seconds / 60), 'minute', 'minutes')}.`;
}

/** What happens to the money held on the card, in a sentence. */
export function describeHold(payment: GnwJob['payment']): string {
  if (!payment) return 'Nothing has been held on a card yet.';
  const amount = formatCents(payment.amountCents);
  switch (payment.status) {
    case 'held':
      return `${amount} is held on your card. Only the final amount is taken when your notarization is complete; the rest of the hold is released.`;
    case 'captured':
      return `${formatCents(payment.capturedCents ?? payment.amountCents)} was taken from your card.`;
    case 'released':
      return `The ${amount} held on your card was released: nothing was taken.`;
    default:
      return `The payment is ${payment.status}.`;
  }
}

/** What cancelling now does to the hold (the first question of the cancel dialog). */
export function describeCancelOutcome(job: Pick<GnwJob, 'payment' | 'cancelFeeCents' | 'booking'>): string {
  const parts: string[] = [];
  if (job.booking) parts.push(`Your booked time (${job.booking.label}) is given up.`);
  const fee = job.cancelFeeCents ?? 0;
  if (job.payment?.status === 'held') {
    const held = formatCents(job.payment.amountCents);
    parts.push(
      fee > 0
        ? `It is late to cancel: the ${formatCents(fee)} no-show fee is taken from the ${held} held on your card, and the rest is released.`
        : `The ${held} held on your card is released: nothing is taken.`,
    );
  } else {
    parts.push('Nothing has been charged.');
  }
  return parts.join(' ');
}
