import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatDateTime } from '#shared/dates.ts';
import { jobPaymentSchema, type Payment, type PaymentConfig } from '#shared/payments.ts';
import { formatCents } from '#shared/pricing.ts';
import { hasAnyRole, type RoleBearer } from '#shared/roles.ts';
import { jobPaymentQueryOptions, paymentConfigQueryOptions } from '#web/api/payments.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

/** What happened to the money, in a sentence. */
function describePayment(payment: Payment): string {
  const amount = formatCents(payment.amountCents);
  switch (payment.status) {
    case 'held':
      return `${amount} is held on a card until the notarization completes; only what the job is charged then is taken.`;
    case 'captured':
      return `${formatCents(payment.capturedCents ?? payment.amountCents)} was taken from the card held for this job.`;
    case 'released':
      return `The ${amount} held on the card was released: nothing was taken.`;
    case 'invoiced':
      return payment.capturedCents === null
        ? 'The charges go on the title company’s invoice.'
        : `${formatCents(payment.capturedCents)} goes on the title company’s invoice.`;
    case 'failed':
      return `The payment failed${payment.failureMessage ? `: ${payment.failureMessage.replace(/[.!]+$/, '')}` : ''}.`;
  }
}

/** With no payment recorded: what the platform does about paying for this job. */
function describeNoPayment(config: PaymentConfig, hasCompany: boolean): string {
  if (!config.configured) {
    return hasCompany
      ? 'Payment by card is not configured on this platform; the job’s charges go on its title company’s invoice.'
      : 'Payment is not configured on this platform: nothing is charged for this job.';
  }
  if (config.provider === 'invoice' || hasCompany) return 'The job’s charges go on its title company’s invoice when it completes.';
  return 'No card is held for this job.';
}

/**
 * The job's payment, for those who may see its charges: a card held, taken or released, or the
 * company's invoice; billing staff may check a held card with Stripe again. Nothing for anyone else.
 */
export function JobPaymentCard({ jobId, hasCompany, user }: { jobId: string; hasCompany: boolean; user: RoleBearer }) {
  const queryClient = useQueryClient();
  const payment = useQuery(jobPaymentQueryOptions(jobId));
  const config = useQuery(paymentConfigQueryOptions());
  const { error, notice, run } = useActionStatus();
  if (payment.error instanceof ApiError && (payment.error.status === 404 || payment.error.status === 403)) return null;
  const current = payment.data?.current ?? null;
  const canCheck = current?.status === 'held' && current.provider === 'stripe' && hasAnyRole(user, ['admin', 'billing', 'finance']);
  const check = () =>
    run(async () => {
      const answer = await api.post(`/api/jobs/${encodeURIComponent(jobId)}/payment/sync`, {}, jobPaymentSchema);
      queryClient.setQueryData(jobPaymentQueryOptions(jobId).queryKey, answer);
    }, 'The payment was checked with Stripe.');
  return (
    <section className="card stack" aria-labelledby="job-payment-title">
      <h2 id="job-payment-title">Payment</h2>
      <FormAlert message={payment.error?.message ?? error} />
      <FormAlert message={notice} tone="success" />
      {payment.isPending ? <p role="status">Loading the payment…</p> : null}
      {current ? (
        <>
          <p>{describePayment(current)}</p>
          <p className="muted">Last changed {formatDateTime(current.updatedAt)}.</p>
        </>
      ) : null}
      {payment.data && !current && config.data ? <p>{describeNoPayment(config.data, hasCompany)}</p> : null}
      {canCheck ? (
        <div className="actions">
          <button type="button" className="button" onClick={() => void check()}>
            Check the card with Stripe
          </button>
        </div>
      ) : null}
    </section>
  );
}
