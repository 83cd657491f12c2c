import { queryOptions } from '@tanstack/react-query';
import { webhookDeliveryPageSchema, webhookEndpointListSchema } from '#shared/webhooks.ts';
import { api } from '#web/lib/api.ts';

/** Query keys of a company's webhooks: its endpoints, and each endpoint's delivery log by page. */
export const webhookKeys = {
  all: ['webhooks'] as const,
  endpoints: (companyId: string) => [...webhookKeys.all, 'company', companyId] as const,
  deliveries: (endpointId: string) => [...webhookKeys.all, 'deliveries', endpointId] as const,
  deliveryPage: (endpointId: string, page: number) => [...webhookKeys.deliveries(endpointId), page] as const,
};

/** GET /api/title-companies/{id}/webhooks: the company's endpoints (its title staff only). */
export function webhookEndpointsQueryOptions(companyId: string) {
  return queryOptions({
    queryKey: webhookKeys.endpoints(companyId),
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId)}/webhooks`, webhookEndpointListSchema),
    retry: false,
  });
}

/** GET /api/title-companies/webhooks/{endpointId}/deliveries: one page of the delivery log, refreshed while a delivery waits. */
export function webhookDeliveriesQueryOptions(endpointId: string, page: number) {
  return queryOptions({
    queryKey: webhookKeys.deliveryPage(endpointId, page),
    queryFn: () => api.get(`/api/title-companies/webhooks/${encodeURIComponent(endpointId)}/deliveries?page=${page}&pageSize=10`, webhookDeliveryPageSchema),
    placeholderData: (previous) => previous,
    refetchInterval: (query) => (query.state.data?.items.some((delivery) => delivery.status === 'pending') ? 2000 : 15_000),
  });
}
