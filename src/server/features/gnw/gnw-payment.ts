import { and, count, eq, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import { gnwSteps, type GnwFinalize, type GnwJob, type gnwJobInputSchema, type gnwPreauthInputSchema, type GnwStep } from '#shared/gnw.ts';
import { paymentNotConfiguredMessage } from '#shared/payments.ts';
import { formatCents } from '#shared/pricing.ts';
import { documents, instantRequests, jobs } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findNotarizedDocuments } from '#server/features/notarization/notarization.service.ts';
import { getJobPayment, holdJobPayment, settlePaymentOfCompletedJob } from '#server/features/payments/payments.service.ts';
import { describeGnwRequest, getOwnGnwRequest, type GnwRequestRow } from './gnw-describe.ts';
import { estimateGnwRequest, pricesNotSet } from './gnw-estimate.ts';

/**
 * Notarize Now's money (decision 051): `preauth` holds the estimate on the person's card through the
 * payment provider (decision 050), `finalize` settles it once after the notary has sealed the job.
 */

const notReady = (message: string) => new AppError(409, 'gnw_not_ready', message);

/** The later of two wizard steps: paying never sends the person back. */
function laterStep(a: GnwStep, b: GnwStep): GnwStep {
  return gnwSteps.indexOf(a) >= gnwSteps.indexOf(b) ? a : b;
}

/**
 * A provider that can charge a person: Stripe. Not configured is 503; the invoice provider bills a
 * title company, and an instant job belongs to none, so it is refused with a sentence (409).
 */
function assertCardPayment(ctx: Ctx): void {
  if (!ctx.payment) {
    throw new AppError(
      503,
      'payment_not_configured',
      `${paymentNotConfiguredMessage} Notarize Now cannot take your payment yet, so nothing was charged. Please try again later.`,
    );
  }
  if (ctx.payment.kind !== 'stripe') {
    throw new AppError(
      409,
      'payment_not_configured',
      'This platform takes payment only by a title company’s invoice, and a Notarize Now notarization belongs to no company, so it cannot take your payment. Nothing was charged.',
    );
  }
}

/**
 * POST /api/gnw/preauth {jobId, paymentMethod}: with the documents uploaded and the person's state
 * chosen, the estimate is held on the card (the payments service's hold, its idempotency key per
 * attempt), kept on the request, and the wizard moves on to the notary. A card already holding the
 * estimate answers the job as it is (a double click is not an error).
 */
export async function preauthorizeGnwJob(ctx: Ctx, input: z.output<typeof gnwPreauthInputSchema>): Promise<GnwJob> {
  const request = await getOwnGnwRequest(ctx, input.jobId);
  if ((await getJobPayment(ctx, request.jobId)).current) return describeGnwRequest(ctx, request);
  if (request.status !== 'setup') throw notReady(`This request is ${request.status}; there is nothing to authorise now.`);
  assertCardPayment(ctx);
  const [signing] = await ctx.db
    .select({ documents: count() })
    .from(documents)
    .where(and(eq(documents.jobId, request.jobId), eq(documents.tag, 'signing')));
  if (!signing?.documents) throw notReady('Upload the document you need notarized before paying.');
  if (!request.signerState) throw notReady('Choose the state you are in before paying: its fee cap and rules apply to your notarization.');
  const estimate = await estimateGnwRequest(ctx.db, request);
  if (!estimate) throw pricesNotSet();

  let isHeldNow = true;
  try {
    await holdJobPayment(ctx, request.jobId, input.paymentMethod ? { paymentMethod: input.paymentMethod } : {}, { amountCents: estimate.totalCents });
  } catch (error) {
    // A second click raced the first: the first one's hold stands, and is the answer.
    if (!(error instanceof AppError && error.code === 'payment_exists')) throw error;
    isHeldNow = false;
  }
  const updated = await ctx.db.transaction(async (tx) => {
    const locked = await getOwnGnwRequest({ ...ctx, db: tx }, request.jobId, { forUpdate: true });
    const [row] = await tx
      .update(instantRequests)
      .set({
        ...(isHeldNow ? { estimateCents: estimate.totalCents } : {}),
        step: laterStep(locked.step, 'notary'),
        updatedAt: new Date(),
      })
      .where(eq(instantRequests.id, locked.id))
      .returning();
    if (!row) throw new Error('instant request update returned no row');
    if (isHeldNow)
      await appendAuditEvent({ ...ctx, db: tx }, { jobId: request.jobId, action: 'gnw.preauthorized', data: { amountCents: estimate.totalCents } });
    return row;
  });
  return describeGnwRequest(ctx, updated);
}

/** What happened to the money, as the person reads it when they finish. */
function describeCharge(payment: { status: string; amountCents: number; capturedCents: number | null; failureMessage: string | null } | null): {
  chargedCents: number;
  sentence: string;
} {
  if (!payment) return { chargedCents: 0, sentence: 'Nothing was charged.' };
  if (payment.status === 'captured') {
    const charged = payment.capturedCents ?? 0;
    const rest = payment.amountCents - charged;
    return {
      chargedCents: charged,
      sentence: `${formatCents(charged)} was charged to your card${rest > 0 ? `; the other ${formatCents(rest)} held on it was released` : ''}.`,
    };
  }
  if (payment.status === 'failed') {
    const reason = payment.failureMessage ? `: ${payment.failureMessage.replace(/[.!]+$/, '')}` : '';
    return { chargedCents: 0, sentence: `Your card could not be charged${reason}. Nothing was taken; we will contact you about the payment.` };
  }
  return { chargedCents: 0, sentence: `Nothing was charged; the ${formatCents(payment.amountCents)} held on your card was released.` };
}

/**
 * POST /api/gnw/finalize {jobId}: after the notary sealed the job (completed). The completion
 * captured the charges already (decision 050); a payment its capture left held (the answer was lost)
 * is captured here with the same idempotency key, so Stripe takes it once. The first finalize marks
 * the request completed and done; a retried one changes nothing and answers the same.
 */
export async function finalizeGnwJob(ctx: Ctx, input: z.output<typeof gnwJobInputSchema>): Promise<GnwFinalize> {
  let request: GnwRequestRow = await getOwnGnwRequest(ctx, input.jobId);
  const [job] = await ctx.db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, request.jobId));
  if (request.status === 'cancelled' || job?.status === 'cancelled') throw notReady('This request was cancelled; there is nothing to finish.');
  if (job?.status !== 'completed') {
    throw notReady('Your notarization is not complete yet: the notary seals your documents at the end of the session. Finish once they have.');
  }
  if (!request.finalizedAt) {
    let { current } = await getJobPayment(ctx, request.jobId);
    if (current?.status === 'held') {
      await settlePaymentOfCompletedJob(ctx, request.jobId);
      ({ current } = await getJobPayment(ctx, request.jobId));
    }
    if (current?.status === 'held') {
      throw new AppError(
        503,
        'payment_provider_unavailable',
        'Your payment could not be completed just now. You will not be charged twice; please try again in a minute.',
        undefined,
        { 'retry-after': '30' },
      );
    }
    const { attempts } = await getJobPayment(ctx, request.jobId);
    const { chargedCents } = describeCharge(current ?? attempts[0] ?? null);
    request = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(instantRequests)
        .set({ finalizedAt: new Date(), status: 'completed', step: 'done', updatedAt: new Date() })
        .where(and(eq(instantRequests.id, request.id), isNull(instantRequests.finalizedAt)))
        .returning();
      // Another finalize got there first: its record stands.
      if (!row) return getOwnGnwRequest({ ...ctx, db: tx }, request.jobId);
      await appendAuditEvent({ ...ctx, db: tx }, { jobId: request.jobId, action: 'gnw.finalized', data: { chargedCents } });
      return row;
    });
  }
  const { current, attempts } = await getJobPayment(ctx, request.jobId);
  const payment = current ?? attempts[0] ?? null;
  const charge = describeCharge(payment);
  const notarized = await findNotarizedDocuments(ctx, request.jobId);
  const documentWords =
    notarized.items.length === 1
      ? 'Your notarized document is ready to download.'
      : `Your ${notarized.items.length} notarized documents are ready to download.`;
  return {
    job: await describeGnwRequest(ctx, request),
    chargedCents: charge.chargedCents,
    message: `Your notarization is complete. ${charge.sentence} ${documentWords}`,
    documents: notarized.items.map((item) => ({ id: item.id, name: item.name, downloadUrl: item.downloadUrl })),
  };
}
