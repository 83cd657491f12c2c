import { queryOptions } from '@tanstack/react-query';
import { companyPriceListSchema, jobChargesSchema, priceListSchema } from '#shared/pricing.ts';
import { titleCompanySearchPageSchema } from '#shared/title-companies.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { api } from '#web/lib/api.ts';
import { toQueryString } from '#web/lib/query-string.ts';

/** Query keys of prices: the defaults, and each company's list; `all` refreshes every one. */
export const pricingKeys = {
  all: ['pricing'] as const,
  defaults: () => [...pricingKeys.all, 'defaults'] as const,
  company: (companyId: string) => [...pricingKeys.all, 'company', companyId] as const,
  companySearch: (q: string) => [...pricingKeys.all, 'company-search', q] as const,
};

/** GET /api/admin/pricing/defaults */
export function defaultPricesQueryOptions() {
  return queryOptions({ queryKey: pricingKeys.defaults(), queryFn: () => api.get('/api/admin/pricing/defaults', priceListSchema), retry: false });
}

/** GET /api/admin/pricing/company/{id}: the company's own prices where set, else the defaults. */
export function companyPricesQueryOptions(companyId: string | null) {
  return queryOptions({
    queryKey: pricingKeys.company(companyId ?? ''),
    queryFn: () => api.get(`/api/admin/pricing/company/${encodeURIComponent(companyId ?? '')}`, companyPriceListSchema),
    enabled: Boolean(companyId),
    retry: false,
  });
}

/** GET /api/title-companies/search: approved, open companies by name, city or state. */
export function companySearchQueryOptions(q: string) {
  return queryOptions({
    queryKey: pricingKeys.companySearch(q),
    queryFn: () => api.get(`/api/title-companies/search?${toQueryString({ q, page: 1, pageSize: 8 })}`, titleCompanySearchPageSchema),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

/** GET /api/jobs/{id}/charges: what a completed job was charged, for administrators and its company's title staff. */
export function jobChargesQueryOptions(jobId: string, enabled: boolean) {
  return queryOptions({
    queryKey: [...jobKeys.detail(jobId), 'charges'] as const,
    queryFn: () => api.get(`/api/jobs/${encodeURIComponent(jobId)}/charges`, jobChargesSchema),
    enabled,
    retry: false,
  });
}
