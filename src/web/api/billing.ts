import { queryOptions } from '@tanstack/react-query';
import { companyInvoicesSchema, invoiceDetailSchema, invoiceListSchema, ownBillingCompaniesSchema, type InvoiceFilter } from '#shared/billing.ts';
import { api } from '#web/lib/api.ts';
import { toQueryString } from '#web/lib/query-string.ts';

/** Query keys of invoices; `all` refreshes every list and invoice after a change. */
export const billingKeys = {
  all: ['billing'] as const,
  list: (status: InvoiceFilter, q: string, page: number) => [...billingKeys.all, 'list', status, q, page] as const,
  company: (companyId: string, page: number) => [...billingKeys.all, 'company', companyId, page] as const,
  invoice: (invoiceId: string, page: number) => [...billingKeys.all, 'invoice', invoiceId, page] as const,
  own: () => [...billingKeys.all, 'own'] as const,
};

/** GET /api/billing/invoices: billing staff. */
export function invoiceListQueryOptions(status: InvoiceFilter, q: string, page: number) {
  return queryOptions({
    queryKey: billingKeys.list(status, q, page),
    queryFn: () => api.get(`/api/billing/invoices?${toQueryString({ status, q: q || undefined, page })}`, invoiceListSchema),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

/** GET /api/billing/companies/{id}/invoices: billing staff, or the company's own title staff. */
export function companyInvoicesQueryOptions(companyId: string, page: number) {
  return queryOptions({
    queryKey: billingKeys.company(companyId, page),
    queryFn: () => api.get(`/api/billing/companies/${encodeURIComponent(companyId)}/invoices?${toQueryString({ page })}`, companyInvoicesSchema),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

/** GET /api/billing/invoices/{id} */
export function invoiceQueryOptions(invoiceId: string, page: number) {
  return queryOptions({
    queryKey: billingKeys.invoice(invoiceId, page),
    queryFn: () => api.get(`/api/billing/invoices/${encodeURIComponent(invoiceId)}?${toQueryString({ page })}`, invoiceDetailSchema),
    retry: false,
  });
}

/** GET /api/billing/company: the companies whose title staff the signed-in person is. */
export function ownBillingCompaniesQueryOptions() {
  return queryOptions({
    queryKey: billingKeys.own(),
    queryFn: () => api.get('/api/billing/company', ownBillingCompaniesSchema),
    retry: false,
  });
}

export const invoiceFileUrl = (invoiceId: string, kind: 'pdf' | 'csv') => `/api/billing/invoices/${encodeURIComponent(invoiceId)}/${kind}`;
