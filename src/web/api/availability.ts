import { queryOptions } from '@tanstack/react-query';
import { availabilityStatusSchema } from '#shared/availability.ts';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';

/** Query keys of a notary's availability: the dashboard's on-line status and the weekly slots share the root. */
export const availabilityKeys = {
  all: ['availability'] as const,
  status: () => [...availabilityKeys.all, 'status'] as const,
  slots: () => [...availabilityKeys.all, 'slots'] as const,
};

/**
 * The live availability of the signed-in notary or witness (the sidebar's switch, the heartbeat and
 * the offer ring read the same query); a 403 (not a notary or witness, or not yet approved) is not retried.
 */
export function availabilityStatusQueryOptions() {
  return queryOptions({
    queryKey: availabilityKeys.status(),
    queryFn: () => api.get('/api/notary-availability/status', availabilityStatusSchema),
    retry: (failures, error) => !(error instanceof ApiError && error.status === 403) && failures < 2,
  });
}
