import { and, count, desc, eq } from 'drizzle-orm';
import { formatCents, priceQuantity } from '#shared/pricing.ts';
import { paymentNotConfiguredMessage, type HoldPaymentInput, type JobPayment, type Payment, type PaymentConfig } from '#shared/payments.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, jobParticipants, jobs, payments, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { PaymentProviderError, type PaymentState } from '#server/providers/payment/payment-provider.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { completionPrices } from '#server/features/pricing/pricing.service.ts';
import { companyNameOf, findLivePayment, liveStatuses, requirePayment, toPayment, type PaymentJob, type PaymentRow } from './payment-rows.ts';
import { reconcileJobPayment } from './payment-settlement.ts';

// What other features call (a feature's service is its public API): settling a payment after a job's completion or cancellation.
export { reconcilePayments, releasePaymentOfCancelledJob, receiveStripeWebhook, settlePaymentOfCompletedJob, type PaymentCtx } from './payment-settlement.ts';

/** GET /api/payments/config: who takes payment here, or that nobody does. */
export function getPaymentConfig(ctx: Ctx): PaymentConfig {
  if (!ctx.payment) return { configured: false, message: paymentNotConfiguredMessage };
  if (ctx.payment.kind !== 'stripe') return { configured: true, provider: ctx.payment.kind, message: ctx.payment.description };
  // Stripe.js in the browser needs the account's publishable key (decision 051's card form); it is public by design.
  const publishableKey = ctx.config.payment?.kind === 'stripe' ? ctx.config.payment.publishableKey : null;
  return { configured: true, provider: 'stripe', message: ctx.payment.description, publishableKey };
}

const jobHidden = () => notFound('No job with that id, or you may not see its payment.');

/**
 * The job, if this person may act on its payment: `pay` (hold) is for the job's creator and the
 * title staff of its company; `read` also for administrators, billing and finance. Someone who may
 * see the job but not its payment gets 403; anyone else 404, never a hint that the job exists.
 */
export async function getJobForPayment(ctx: Ctx, jobId: string, purpose: 'pay' | 'read'): Promise<PaymentJob> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(jobId)) throw jobHidden();
  const [job] = await ctx.db
    .select({ id: jobs.id, title: jobs.title, status: jobs.status, companyId: jobs.companyId, createdBy: jobs.createdBy })
    .from(jobs)
    .where(eq(jobs.id, jobId));
  if (!job) throw jobHidden();
  if (purpose === 'read' && hasAnyRole(user, ['admin', 'billing', 'finance'])) return job;
  const memberships = job.companyId
    ? await ctx.db
        .select({ role: titleCompanyMembers.role })
        .from(titleCompanyMembers)
        .where(and(eq(titleCompanyMembers.companyId, job.companyId), eq(titleCompanyMembers.userId, user.id)))
    : [];
  const isTitleStaff = user.roles.includes('title') && memberships.some((membership) => membership.role === 'title');
  // A company job belongs to its company: its creator keeps it only while still a member (decision 043).
  const isCreator = job.createdBy === user.id && (!job.companyId || memberships.length > 0);
  if (isCreator || isTitleStaff) return job;
  // Whoever may see the job learns why they may not act; anyone else learns nothing.
  await getJobAccess(ctx, jobId).catch(() => {
    throw jobHidden();
  });
  throw forbidden(
    purpose === 'pay'
      ? 'Only the job’s creator or its title company’s title staff may pay for it.'
      : 'Only the job’s creator, its title company’s title staff, administrators, billing and finance may see its payment.',
  );
}

/**
 * What the job would be charged if it completed now, from the prices charges are made from
 * (decision 048): its company's own amounts over the defaults, each counting the job's signers,
 * witnesses and acts. A job is booked for at least one act, each signing document being one; the
 * notarial fee is estimated as if every output will be a notarial act.
 */
export async function estimateJobCharges(db: DbOrTx, job: Pick<PaymentJob, 'id' | 'companyId'>): Promise<number> {
  const prices = await completionPrices(db, job.companyId);
  const people = await db.select({ role: jobParticipants.role }).from(jobParticipants).where(eq(jobParticipants.jobId, job.id));
  const [signing] = await db
    .select({ documents: count() })
    .from(documents)
    .where(and(eq(documents.jobId, job.id), eq(documents.tag, 'signing')));
  const counts = {
    acts: Math.max(signing?.documents ?? 0, 1),
    signers: people.filter((person) => person.role === 'signer').length,
    witnesses: people.filter((person) => person.role === 'witness').length,
  };
  return prices.reduce((sum, price) => sum + priceQuantity(price.unit, counts) * price.amountCents, 0);
}

const paymentExists = (row: PaymentRow) =>
  new AppError(
    409,
    'payment_exists',
    row.status === 'held'
      ? `${formatCents(row.amountCents)} is already held on a card for this job.`
      : row.status === 'invoiced'
        ? 'This job is already to be paid by invoice.'
        : 'This job is already paid.',
    { paymentId: row.id, status: row.status },
  );

/**
 * POST /api/jobs/{id}/payment/hold: the job's estimated charges are held on the card (Stripe) or
 * noted as to be invoiced. The call to the provider is made outside any transaction; its key is the
 * job's n-th attempt, so a resent request (a double click, a retry after a lost answer) reuses the
 * same hold instead of making a second one.
 */
export async function holdJobPayment(
  ctx: Ctx,
  jobId: string,
  input: HoldPaymentInput,
  options: { amountCents?: number } = {},
): Promise<{ payment: Payment; message: string }> {
  const job = await getJobForPayment(ctx, jobId, 'pay');
  const provider = requirePayment(ctx);
  if (job.status === 'completed' || job.status === 'cancelled') throw conflict(`This job is ${job.status}; there is nothing to hold for it.`);
  const live = await findLivePayment(ctx.db, jobId);
  if (live) throw paymentExists(live);
  const companyName = await companyNameOf(ctx.db, job.companyId);
  if (provider.kind === 'invoice' && !job.companyId) {
    throw conflict('This job belongs to no title company, so there is no company invoice to put its charges on.');
  }
  // A caller with an estimate of its own (Notarize Now's, which counts the witnesses the platform will provide) holds that.
  const amountCents = options.amountCents ?? (await estimateJobCharges(ctx.db, job));
  if (amountCents <= 0) throw conflict('No price applies to this job, so there is nothing to hold. Prices are set on the Prices page.');
  const [attempts] = await ctx.db.select({ made: count() }).from(payments).where(eq(payments.jobId, jobId));
  const idempotencyKey = `job-${jobId}-hold-${(attempts?.made ?? 0) + 1}`;
  const base = { jobId, companyId: job.companyId, provider: provider.kind, amountCents, idempotencyKey, createdBy: ctx.user?.id ?? null };

  let state: PaymentState;
  try {
    state = await provider.hold({
      jobId,
      amountCents,
      ...(input.paymentMethod ? { paymentMethod: input.paymentMethod } : {}),
      idempotencyKey,
      description: `Notarization: ${toSingleLine(job.title)}`.slice(0, 200),
    });
  } catch (error) {
    // A refusal is on record (a declined card); a call without an answer is not: its retry reuses the key.
    if (error instanceof PaymentProviderError && !error.isOutcomeUnknown) {
      const failureMessage = typeof error.detail === 'string' ? error.detail : error.message;
      await recordFailedHold(ctx, { ...base, externalId: error.externalId, failureMessage });
    }
    throw error;
  }

  const status = provider.kind === 'invoice' ? ('invoiced' as const) : ('held' as const);
  try {
    const row = await ctx.db.transaction(async (tx) => {
      // The job may have been cancelled (or completed) while the provider answered: its release ran and found no hold, so this one is not kept.
      const [current] = await tx.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId)).for('update');
      if (current?.status === 'completed' || current?.status === 'cancelled') throw new JobEndedDuringHold(current.status);
      const [inserted] = await tx
        .insert(payments)
        .values({ ...base, externalId: state.externalId, amountCents: state.amountCents, status })
        .returning();
      if (!inserted) throw new Error('payment insert returned no row');
      await appendAuditEvent(
        { ...ctx, db: tx },
        { jobId, action: 'payment.held', data: { paymentId: inserted.id, provider: provider.kind, amountCents: inserted.amountCents, companyName } },
      );
      return inserted;
    });
    const message =
      status === 'held'
        ? `${formatCents(row.amountCents)} is held on the card until the notarization completes; only what the job is charged then is taken, and nothing if it is cancelled.`
        : `The charges of this job (about ${formatCents(row.amountCents)}) will go on ${companyName ?? 'the title company'}’s next invoice once the notarization completes.`;
    return { payment: toPayment(row), message };
  } catch (error) {
    if (error instanceof JobEndedDuringHold) {
      if (state.externalId) {
        await provider.release({ externalId: state.externalId, idempotencyKey: `${idempotencyKey}:release` }).catch((releaseError: unknown) => {
          ctx.log.error({ err: releaseError, jobId, externalId: state.externalId }, 'the card hold of a job ended meanwhile could not be released');
        });
      }
      throw conflict(`This job was ${error.jobStatus} while the card was being authorised, so nothing is held for it.`);
    }
    if (!isUniqueViolation(error)) throw error;
    // Another request held first. With the same key it is the same hold (nothing to undo); a hold of ours that is not the live one is let go.
    const winner = await findLivePayment(ctx.db, jobId);
    if (state.externalId && winner?.externalId !== state.externalId) {
      await provider.release({ externalId: state.externalId, idempotencyKey: `${idempotencyKey}:release` }).catch((releaseError: unknown) => {
        ctx.log.error({ err: releaseError, jobId, externalId: state.externalId }, 'a duplicate card hold could not be released');
      });
    }
    if (winner) throw paymentExists(winner);
    throw error;
  }
}

/** The job was cancelled or completed between the hold's check and its record. */
class JobEndedDuringHold extends Error {
  constructor(readonly jobStatus: string) {
    super(`the job was ${jobStatus} during the hold`);
  }
}

async function recordFailedHold(
  ctx: Ctx,
  values: Omit<typeof payments.$inferInsert, 'status'> & { jobId: string; amountCents: number; failureMessage: string },
): Promise<void> {
  try {
    await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(payments)
        .values({ ...values, status: 'failed' })
        .returning();
      if (!row) throw new Error('payment insert returned no row');
      await appendAuditEvent(
        { ...ctx, db: tx },
        {
          jobId: values.jobId,
          action: 'payment.failed',
          data: { paymentId: row.id, provider: row.provider, step: 'hold', amountCents: row.amountCents, message: values.failureMessage },
        },
      );
    });
  } catch (error) {
    // The same refusal sent again (same key) is on record already.
    if (!isUniqueViolation(error)) throw error;
  }
}

/** GET /api/jobs/{id}/payment */
export async function getJobPayment(ctx: Ctx, jobId: string): Promise<JobPayment> {
  await getJobForPayment(ctx, jobId, 'read');
  const rows = await ctx.db.select().from(payments).where(eq(payments.jobId, jobId)).orderBy(desc(payments.createdAt), desc(payments.id));
  const current = rows.find((row) => (liveStatuses as readonly string[]).includes(row.status));
  return { jobId, current: current ? toPayment(current) : null, attempts: rows.map(toPayment) };
}

/**
 * POST /api/jobs/{id}/payment/sync (administrators, billing, finance): the payment as Stripe has it
 * now is recorded (how a lost webhook or a lost answer is recovered), then what is still owed is done:
 * a completed job's hold captured, a cancelled job's released, with the same idempotency keys as before.
 */
export async function syncJobPayment(ctx: Ctx, jobId: string): Promise<JobPayment> {
  const job = await getJobForPayment(ctx, jobId, 'read');
  await reconcileJobPayment(ctx, requirePayment(ctx), job);
  return getJobPayment(ctx, jobId);
}
