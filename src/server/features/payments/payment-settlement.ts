import { and, eq, inArray, sql } from 'drizzle-orm';
import { jobCharges, jobs, payments } from '#server/db/schema/index.ts';
import type { DbOrTx } from '#server/db/client.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { PaymentProviderError, type PaymentProvider, type PaymentState } from '#server/providers/payment/payment-provider.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { companyNameOf, findLivePayment, requirePayment, type PaymentJob, type PaymentRow } from './payment-rows.ts';

/**
 * After a payment is held (payments.service.ts): what the provider says of it recorded, forward only,
 * and what is owed done after the job's transaction has committed: a completed job's hold captured,
 * a cancelled job's released; by a call, by Stripe's webhook, by sync or by the reconciler (decision 050).
 */

type Source = 'call' | 'webhook' | 'sync';

/** What settling a payment needs: a request's context, or the reconciler's (no person, the system acts). */
export type PaymentCtx = Pick<Ctx, 'db' | 'payment' | 'log' | 'user' | 'ipAddress' | 'userAgent'>;

/**
 * Records what the provider says of a payment, forward only: a hold may become captured, released or
 * failed, an invoiced payment released; nothing leaves a final state, and a state already recorded
 * records nothing (so a webhook delivered twice, or after our own call, changes the row once).
 * Returns the row as it is now, and whether this call changed it.
 */
async function applyState(
  ctx: PaymentCtx,
  row: PaymentRow,
  state: PaymentState,
  source: Source,
  extra: Record<string, unknown> = {},
): Promise<{ row: PaymentRow; isChanged: boolean }> {
  const next = state.status === 'captured' || state.status === 'released' || state.status === 'failed' ? state.status : null;
  const isAllowed = row.status === 'held' ? next !== null : row.status === 'invoiced' && next === 'released';
  if (!next || !isAllowed) return { row, isChanged: false };
  return ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(payments)
      .set({
        status: next,
        capturedCents: next === 'captured' ? state.capturedCents : row.capturedCents,
        failureMessage: next === 'failed' ? (state.failureMessage ?? 'The payment failed.') : null,
        updatedAt: new Date(),
      })
      .where(and(eq(payments.id, row.id), eq(payments.status, row.status)))
      .returning();
    if (!updated) {
      const [now] = await tx.select().from(payments).where(eq(payments.id, row.id));
      return { row: now ?? row, isChanged: false };
    }
    const facts = { paymentId: row.id, provider: row.provider, amountCents: row.amountCents, source, ...extra };
    await appendAuditEvent(
      { ...ctx, db: tx },
      next === 'captured'
        ? { jobId: row.jobId, action: 'payment.captured', data: { ...facts, capturedCents: updated.capturedCents } }
        : next === 'released'
          ? { jobId: row.jobId, action: 'payment.released', data: facts }
          : { jobId: row.jobId, action: 'payment.failed', data: { ...facts, step: 'capture', message: updated.failureMessage } },
    );
    return { row: updated, isChanged: true };
  });
}

/** A call to the provider that failed: on record and audited; the payment stays as it was unless the provider refused for good. */
async function recordCallFailure(
  ctx: PaymentCtx,
  row: PaymentRow,
  step: 'capture' | 'release',
  error: unknown,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const message = error instanceof AppError ? (typeof error.detail === 'string' ? `${error.message} (${error.detail})` : error.message) : String(error);
  const isFinal = step === 'capture' && error instanceof PaymentProviderError && !error.isOutcomeUnknown;
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(payments)
      .set({ failureMessage: message, updatedAt: new Date(), ...(isFinal ? { status: 'failed' as const } : {}) })
      .where(and(eq(payments.id, row.id), eq(payments.status, row.status)));
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        jobId: row.jobId,
        action: 'payment.failed',
        data: { paymentId: row.id, provider: row.provider, step, amountCents: row.amountCents, message, isOutcomeUnknown: !isFinal, ...extra },
      },
    );
  });
}

/** The total of what the job was charged at completion (job_charges), in cents. */
async function chargedTotal(db: DbOrTx, jobId: string): Promise<number> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${jobCharges.amountCents}), 0)` })
    .from(jobCharges)
    .where(eq(jobCharges.jobId, jobId));
  return Number(row?.total ?? 0);
}

/** Takes what a completed job was charged from its hold (at most the hold), or notes it as invoiced. */
async function captureCompletedJob(ctx: PaymentCtx, provider: PaymentProvider, row: PaymentRow, source: Source): Promise<void> {
  const chargedCents = await chargedTotal(ctx.db, row.jobId);
  if (row.status === 'invoiced') {
    if (row.capturedCents !== null) return;
    await ctx.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(payments)
        .set({ capturedCents: chargedCents, updatedAt: new Date() })
        .where(and(eq(payments.id, row.id), eq(payments.status, 'invoiced'), sql`${payments.capturedCents} is null`))
        .returning();
      if (!updated) return;
      const companyName = await companyNameOf(tx, row.companyId);
      await appendAuditEvent(
        { ...ctx, db: tx },
        {
          jobId: row.jobId,
          action: 'payment.captured',
          data: { paymentId: row.id, provider: row.provider, amountCents: row.amountCents, capturedCents: chargedCents, chargedCents, companyName, source },
        },
      );
    });
    return;
  }
  if (chargedCents <= 0) {
    // Nothing was charged (no price applied): the hold is let go rather than captured at $0.
    await releaseHeldPayment(ctx, provider, row, source, { reason: 'nothing_charged' });
    return;
  }
  const amountCents = Math.min(chargedCents, row.amountCents);
  try {
    const state = await provider.capture({ externalId: row.externalId, amountCents, idempotencyKey: `${row.idempotencyKey}:capture` });
    await applyState(ctx, row, state, source, { chargedCents });
  } catch (error) {
    await recordCallFailure(ctx, row, 'capture', error, { chargedCents });
  }
}

async function releaseHeldPayment(
  ctx: PaymentCtx,
  provider: PaymentProvider,
  row: PaymentRow,
  source: Source,
  extra: Record<string, unknown> = {},
): Promise<void> {
  try {
    const state = await provider.release({ externalId: row.externalId, idempotencyKey: `${row.idempotencyKey}:release` });
    await applyState(ctx, row, { ...state, status: 'released' }, source, extra);
  } catch (error) {
    await recordCallFailure(ctx, row, 'release', error, extra);
  }
}

/** The live payment, and its provider when it is still the configured one (a payment is settled with whoever took it). */
async function findSettleable(ctx: PaymentCtx, jobId: string): Promise<{ row: PaymentRow; provider: PaymentProvider } | null> {
  const row = await findLivePayment(ctx.db, jobId);
  if (!row || row.status === 'captured') return null;
  if (!ctx.payment || ctx.payment.kind !== row.provider) {
    await recordCallFailure(
      ctx,
      row,
      'capture',
      new AppError(503, 'payment_not_configured', `This payment was made through ${row.provider}, which is no longer this platform’s payment provider.`),
    );
    return null;
  }
  return { row, provider: ctx.payment };
}

/**
 * After completeJob's transaction has committed: the hold is captured (at most what it holds) for the
 * charges just recorded. A failure is recorded and audited; it never undoes or fails the completion.
 */
export async function settlePaymentOfCompletedJob(ctx: PaymentCtx, jobId: string): Promise<void> {
  try {
    const found = await findSettleable(ctx, jobId);
    if (found) await captureCompletedJob(ctx, found.provider, found.row, 'call');
  } catch (error) {
    ctx.log.error({ err: error, jobId }, 'the payment of a completed job could not be settled');
  }
}

/** After a job's cancellation has committed: its hold is released (nothing invoiced). Never fails the cancellation. */
export async function releasePaymentOfCancelledJob(ctx: PaymentCtx, jobId: string): Promise<void> {
  try {
    const found = await findSettleable(ctx, jobId);
    if (!found) return;
    // A no-show fee was charged (decision 049): it is taken from the hold like a completed job's charges.
    if ((await chargedTotal(ctx.db, jobId)) > 0) {
      await captureCompletedJob(ctx, found.provider, found.row, 'call');
      return;
    }
    if (found.row.status === 'invoiced') {
      await applyState(ctx, found.row, { ...emptyState, status: 'released' }, 'call');
      return;
    }
    await releaseHeldPayment(ctx, found.provider, found.row, 'call');
  } catch (error) {
    ctx.log.error({ err: error, jobId }, 'the payment of a cancelled job could not be released');
  }
}

const emptyState: PaymentState = { externalId: null, status: 'pending', amountCents: 0, capturedCents: null, failureMessage: null };

/**
 * POST /api/jobs/{id}/payment/sync (administrators, billing, finance): the payment as Stripe has it
 * now is recorded (how a lost webhook or a lost answer is recovered), then what is still owed is done:
 * a completed job's hold captured, a cancelled job's released, with the same idempotency keys as before.
 */
export async function reconcileJobPayment(ctx: PaymentCtx, provider: PaymentProvider, job: Pick<PaymentJob, 'id' | 'status'>): Promise<void> {
  let row = await findLivePayment(ctx.db, job.id);
  if (row?.status === 'held' && row.provider === 'stripe' && row.externalId && provider.kind === 'stripe') {
    row = (await applyState(ctx, row, await provider.retrieve(row.externalId), 'sync')).row;
  }
  if (row && row.status !== 'captured' && (job.status === 'completed' || job.status === 'cancelled')) {
    if (job.status === 'completed') await settlePaymentOfCompletedJob(ctx, job.id);
    else await releasePaymentOfCancelledJob(ctx, job.id);
  }
}

/**
 * The reconciler's pass (tasks/payment-reconciler.ts): every payment still held for a job that is
 * completed or cancelled, and every invoiced one of a completed job not yet noted, is checked with
 * the provider and settled, as POST .../payment/sync does. Returns how many were looked at.
 */
export async function reconcilePayments(ctx: PaymentCtx): Promise<number> {
  const provider = ctx.payment;
  if (!provider) return 0;
  const due = await ctx.db
    .select({ id: jobs.id, status: jobs.status })
    .from(payments)
    .innerJoin(jobs, eq(jobs.id, payments.jobId))
    .where(
      and(
        eq(payments.provider, provider.kind),
        inArray(jobs.status, ['completed', 'cancelled']),
        sql`(${payments.status} = 'held' or (${payments.status} = 'invoiced' and (${payments.capturedCents} is null and ${jobs.status} = 'completed' or ${jobs.status} = 'cancelled')))`,
      ),
    )
    .limit(100);
  for (const job of due) {
    try {
      await reconcileJobPayment(ctx, provider, job);
    } catch (error) {
      ctx.log.error({ err: error, jobId: job.id }, 'a payment could not be checked with its provider');
    }
  }
  return due.length;
}

/**
 * POST /api/payments/stripe/webhook: a signed event from Stripe (400 unless its signature is this
 * platform's and fresh) about a PaymentIntent of ours updates that payment, forward only. Events about
 * anything else are acknowledged, so Stripe does not send them again.
 */
export async function receiveStripeWebhook(
  ctx: Ctx,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<{ received: true; handled: boolean; message: string }> {
  const provider = requirePayment(ctx);
  const event = provider.parseWebhook(rawBody, signature);
  if (!event?.state.externalId) return { received: true, handled: false, message: 'This platform does not act on that event; it was acknowledged.' };
  const [row] = await ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.provider, 'stripe'), eq(payments.externalId, event.state.externalId)));
  if (!row) return { received: true, handled: false, message: 'No payment of this platform has that PaymentIntent; the event was acknowledged.' };
  const { row: now, isChanged } = await applyState(ctx, row, event.state, 'webhook', { eventId: event.eventId });
  return {
    received: true,
    handled: true,
    message: isChanged ? `The payment is now ${now.status}.` : `The payment is ${now.status}; the event changed nothing.`,
  };
}
