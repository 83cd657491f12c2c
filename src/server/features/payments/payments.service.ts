import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { formatCents, priceQuantity } from '#shared/pricing.ts';
import { paymentNotConfiguredMessage, type HoldPaymentInput, type JobPayment, type Payment, type PaymentConfig } from '#shared/payments.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, jobCharges, jobParticipants, jobs, payments, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { PaymentProviderError, type PaymentProvider, type PaymentState } from '#server/providers/payment/payment-provider.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { companyRows, defaultRows, mergePrices } from '#server/features/pricing/pricing.service.ts';

type PaymentRow = typeof payments.$inferSelect;
type PaymentJob = Pick<typeof jobs.$inferSelect, 'id' | 'title' | 'status' | 'companyId' | 'createdBy'>;

/** A job has at most one of these at a time (the payments_live_job index). */
const liveStatuses = ['held', 'captured', 'invoiced'] as const;

function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    jobId: row.jobId,
    provider: row.provider,
    status: row.status,
    amountCents: row.amountCents,
    capturedCents: row.capturedCents,
    currency: row.currency,
    externalId: row.externalId,
    failureMessage: row.failureMessage,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /api/payments/config: who takes payment here, or that nobody does. */
export function getPaymentConfig(ctx: Ctx): PaymentConfig {
  if (!ctx.payment) return { configured: false, message: paymentNotConfiguredMessage };
  return { configured: true, provider: ctx.payment.kind, message: ctx.payment.description };
}

function requirePayment(ctx: Ctx): PaymentProvider {
  if (!ctx.payment) {
    throw new AppError(
      503,
      'payment_not_configured',
      `${paymentNotConfiguredMessage} Nothing was charged; an administrator sets PAYMENT_PROVIDER (stripe or invoice).`,
    );
  }
  return ctx.payment;
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
  const prices = mergePrices(await defaultRows(db), job.companyId ? await companyRows(db, job.companyId) : []);
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

async function findLivePayment(db: DbOrTx, jobId: string): Promise<PaymentRow | null> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.jobId, jobId), inArray(payments.status, [...liveStatuses])));
  return row ?? null;
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

async function companyNameOf(db: DbOrTx, companyId: string | null): Promise<string | null> {
  if (!companyId) return null;
  const [company] = await db.select({ name: titleCompanies.name }).from(titleCompanies).where(eq(titleCompanies.id, companyId));
  return company ? toSingleLine(company.name) : null;
}

/**
 * POST /api/jobs/{id}/payment/hold: the job's estimated charges are held on the card (Stripe) or
 * noted as to be invoiced. The call to the provider is made outside any transaction; its key is the
 * job's n-th attempt, so a resent request (a double click, a retry after a lost answer) reuses the
 * same hold instead of making a second one.
 */
export async function holdJobPayment(ctx: Ctx, jobId: string, input: HoldPaymentInput): Promise<{ payment: Payment; message: string }> {
  const job = await getJobForPayment(ctx, jobId, 'pay');
  const provider = requirePayment(ctx);
  if (job.status === 'completed' || job.status === 'cancelled') throw conflict(`This job is ${job.status}; there is nothing to hold for it.`);
  const live = await findLivePayment(ctx.db, jobId);
  if (live) throw paymentExists(live);
  const companyName = await companyNameOf(ctx.db, job.companyId);
  if (provider.kind === 'invoice' && !job.companyId) {
    throw conflict('This job belongs to no title company, so there is no company invoice to put its charges on.');
  }
  const amountCents = await estimateJobCharges(ctx.db, job);
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
export async function syncJobPayment(ctx: Ctx, jobId: string): Promise<JobPayment> {
  const job = await getJobForPayment(ctx, jobId, 'read');
  await reconcileJobPayment(ctx, requirePayment(ctx), job);
  return getJobPayment(ctx, jobId);
}

async function reconcileJobPayment(ctx: PaymentCtx, provider: PaymentProvider, job: Pick<PaymentJob, 'id' | 'status'>): Promise<void> {
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
