import type { GnwCancelInput, GnwJob } from '#shared/gnw.ts';
import { formatCents } from '#shared/pricing.ts';
import { gnwApi } from '#web/api/gnw.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { describeCancelOutcome } from './setup-view.ts';

/**
 * Cancelling a Notarize Now job (decision 051): one question that says what happens to the hold;
 * when the server answers 409 no_show_fee_applies (a booked time that has passed or is within 15
 * minutes), a second question with the fee, and only then the cancel with acceptFee.
 */
export interface CancelQuestion {
  title: string;
  description: string;
  confirmLabel: string;
  cancelLabel: string;
}

type CancelJob = Pick<GnwJob, 'jobId' | 'payment' | 'cancelFeeCents' | 'booking'>;

/** The fee the server named: in the error's detail when it gives one, else the job's own cancel fee. */
export function readNoShowFeeCents(error: ApiError, job: Pick<GnwJob, 'cancelFeeCents'>): number | null {
  const data = error.data as { detail?: unknown } | null;
  const detail = data && typeof data === 'object' && data.detail && typeof data.detail === 'object' ? (data.detail as Record<string, unknown>) : {};
  for (const name of ['feeCents', 'amountCents', 'noShowFeeCents', 'cancelFeeCents']) {
    const value = detail[name];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return job.cancelFeeCents && job.cancelFeeCents > 0 ? job.cancelFeeCents : null;
}

export function firstCancelQuestion(job: CancelJob): CancelQuestion {
  return { title: 'Cancel this notarization?', description: describeCancelOutcome(job), confirmLabel: 'Cancel the notarization', cancelLabel: 'Keep it' };
}

export function feeCancelQuestion(feeCents: number | null, serverMessage: string): CancelQuestion {
  const fee = feeCents === null ? 'the no-show fee' : `the ${formatCents(feeCents)} no-show fee`;
  return {
    title: `Cancel and pay ${fee}?`,
    description: `${serverMessage} If you cancel now, ${fee} is taken from your card and the rest of the hold is released.`,
    confirmLabel: feeCents === null ? 'Cancel and pay the fee' : `Cancel and pay ${formatCents(feeCents)}`,
    cancelLabel: 'Keep my booking',
  };
}

/** Asks, cancels, and asks again for a late cancel's fee; the cancelled job, or null when the person kept it. */
export async function cancelGnwJob(
  job: CancelJob,
  ask: (question: CancelQuestion) => Promise<boolean>,
  cancel: (input: GnwCancelInput) => Promise<GnwJob> = gnwApi.cancel,
): Promise<GnwJob | null> {
  if (!(await ask(firstCancelQuestion(job)))) return null;
  try {
    return await cancel({ jobId: job.jobId });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'no_show_fee_applies') throw error;
    if (!(await ask(feeCancelQuestion(readNoShowFeeCents(error, job), error.message)))) return null;
    return cancel({ jobId: job.jobId, acceptFee: true });
  }
}
