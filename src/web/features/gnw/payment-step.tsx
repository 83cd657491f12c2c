import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import type { GnwJob } from '#shared/gnw.ts';
import { cardPaymentNotConfiguredMessage, paymentNotConfiguredMessage } from '#shared/payments.ts';
import { formatCents } from '#shared/pricing.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { paymentConfigQueryOptions } from '#web/api/payments.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { describeHold } from './setup-view.ts';

// Its own chunk: Stripe's types and the card form load only when a card is asked for.
const CardForm = lazy(() => import('./card-form.tsx').then((module) => ({ default: module.CardForm })));

/**
 * Payment: the estimate held on a card through Stripe (decision 051). Without Stripe (no provider,
 * or invoices, which cannot charge a person) the step says payment is not configured and offers nothing.
 */
export function PaymentStep({ job }: { job: GnwJob }) {
  const queryClient = useQueryClient();
  const config = useQuery(paymentConfigQueryOptions());
  const { error, run } = useActionStatus();
  const amountCents = job.estimate?.totalCents ?? null;
  const setJob = (next: GnwJob) => queryClient.setQueryData(gnwKeys.job(job.jobId), next);

  if (job.payment?.status === 'held') {
    return (
      <div className="stack">
        <p>{describeHold(job.payment)}</p>
        <FormAlert message={error} />
        <div className="actions">
          <button
            type="button"
            className="button primary gnw-primary"
            onClick={() => void run(async () => setJob(await gnwApi.updateJob(job.jobId, { step: 'notary' })))}
          >
            Next: your notary
          </button>
        </div>
      </div>
    );
  }
  if (config.isPending) return <p role="status">Checking how payment is taken…</p>;
  if (config.error) return <FormAlert message={`How payment is taken could not be read: ${config.error.message}`} />;
  if (!config.data.configured || config.data.provider !== 'stripe') return <FormAlert message={paymentNotConfiguredMessage} tone="info" />;
  if (!config.data.publishableKey) return <FormAlert message={cardPaymentNotConfiguredMessage} tone="info" />;

  return (
    <div className="stack">
      <p>
        {amountCents === null ? 'The estimated amount' : <strong>{formatCents(amountCents)}</strong>} will be held on your card now. Only the final amount is
        taken when your notarization is complete; the rest of the hold is released. If you cancel before the session, the hold is released.
      </p>
      {job.payment?.status === 'failed' ? <FormAlert message="The last card did not go through. Try again, or use another card." /> : null}
      <FormAlert message={error} />
      <Suspense fallback={<p role="status">Loading the card form…</p>}>
        <CardForm
          publishableKey={config.data.publishableKey}
          amountCents={amountCents}
          onPaymentMethod={async (paymentMethod) => {
            // A decline comes back as the server's sentence (402 card_declined), shown by the card form.
            setJob(await gnwApi.preauth({ jobId: job.jobId, paymentMethod }));
          }}
        />
      </Suspense>
    </div>
  );
}
