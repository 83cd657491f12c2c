import type { Db } from '#server/db/client.ts';
import type { Ctx } from '#server/lib/context.ts';
import type { PaymentProvider } from '#server/providers/payment/payment-provider.ts';
import { reconcilePayments } from '#server/features/payments/payments.service.ts';

/**
 * Checks, now and then every `everyMs` (15 minutes by default), the payments a lost answer or a lost
 * webhook left held on a completed or cancelled job, and settles them (decision 050). Several
 * instances may run it at once: the same idempotency keys and forward-only updates keep it to one
 * capture and one record.
 */
export function startPaymentReconciler(deps: { db: Db; payment: PaymentProvider; log: Ctx['log'] }, everyMs = 15 * 60_000): () => void {
  const ctx = { db: deps.db, payment: deps.payment, log: deps.log, user: null, ipAddress: 'payment-reconciler', userAgent: null };
  let isRunning = false;
  const run = () => {
    if (isRunning) return;
    isRunning = true;
    void reconcilePayments(ctx)
      .catch((error: unknown) => deps.log.error({ err: error }, 'Checking held payments with the payment provider failed.'))
      .finally(() => {
        isRunning = false;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
