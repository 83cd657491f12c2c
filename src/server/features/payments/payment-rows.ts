import { and, eq, inArray } from 'drizzle-orm';
import { paymentNotConfiguredMessage, type Payment } from '#shared/payments.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { payments, titleCompanies, type jobs } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import type { PaymentProvider } from '#server/providers/payment/payment-provider.ts';

/** The payments table as the payment feature's files read it (decision 050). */

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentJob = Pick<typeof jobs.$inferSelect, 'id' | 'title' | 'status' | 'companyId' | 'createdBy'>;

/** A job has at most one of these at a time (the payments_live_job index). */
export const liveStatuses = ['held', 'captured', 'invoiced'] as const;

export function toPayment(row: PaymentRow): Payment {
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

export function requirePayment(ctx: Pick<Ctx, 'payment'>): PaymentProvider {
  if (!ctx.payment) {
    throw new AppError(
      503,
      'payment_not_configured',
      `${paymentNotConfiguredMessage} Nothing was charged; an administrator sets PAYMENT_PROVIDER (stripe or invoice).`,
    );
  }
  return ctx.payment;
}

export async function findLivePayment(db: DbOrTx, jobId: string): Promise<PaymentRow | null> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.jobId, jobId), inArray(payments.status, [...liveStatuses])));
  return row ?? null;
}

export async function companyNameOf(db: DbOrTx, companyId: string | null): Promise<string | null> {
  if (!companyId) return null;
  const [company] = await db.select({ name: titleCompanies.name }).from(titleCompanies).where(eq(titleCompanies.id, companyId));
  return company ? toSingleLine(company.name) : null;
}
