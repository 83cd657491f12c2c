import { queryOptions } from '@tanstack/react-query';
import { jobPaymentSchema, paymentConfigSchema } from '#shared/payments.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { api } from '#web/lib/api.ts';

/** Query keys of payments that belong to no job: how payments are taken here. A job's payment is under `jobKeys.detail`. */
export const paymentKeys = {
  all: ['payments'] as const,
  config: () => [...paymentKeys.all, 'config'] as const,
};

/** GET /api/payments/config: which provider takes payments here, or that none does. */
export function paymentConfigQueryOptions() {
  return queryOptions({
    queryKey: paymentKeys.config(),
    queryFn: () => api.get('/api/payments/config', paymentConfigSchema),
    staleTime: 60_000,
    retry: false,
  });
}

/** GET /api/jobs/{id}/payment: the job's payment and earlier attempts, for those who may see its charges. */
export function jobPaymentQueryOptions(jobId: string) {
  return queryOptions({
    queryKey: [...jobKeys.detail(jobId), 'payment'] as const,
    queryFn: () => api.get(`/api/jobs/${encodeURIComponent(jobId)}/payment`, jobPaymentSchema),
    retry: false,
  });
}
