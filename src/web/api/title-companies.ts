import { queryOptions } from '@tanstack/react-query';
import {
  companyAgentListSchema,
  defaultNotarySchema,
  jobTypeListSchema,
  myCompaniesSchema,
  titleCompanyListSchema,
  titleCompanyPageSchema,
  titleCompanySchema,
  type TitleCompanyStatus,
} from '#shared/title-companies.ts';
import { api } from '#web/lib/api.ts';
import { toQueryString } from '#web/lib/query-string.ts';

/**
 * Query keys of title companies. Everything about one company sits under its `company(id)` key, so
 * a change to the company (its facts, default notary, agents or job types) refreshes all of it, and
 * `all` refreshes every list and company at once.
 */
export const titleCompanyKeys = {
  all: ['title-companies'] as const,
  pending: () => [...titleCompanyKeys.all, 'pending'] as const,
  list: (params: string) => [...titleCompanyKeys.all, 'list', params] as const,
  mine: () => [...titleCompanyKeys.all, 'mine'] as const,
  company: (companyId: string) => [...titleCompanyKeys.all, 'company', companyId] as const,
  agents: (companyId: string) => [...titleCompanyKeys.company(companyId), 'agents'] as const,
  jobTypes: (companyId: string) => [...titleCompanyKeys.company(companyId), 'job-types'] as const,
  defaultNotary: (companyId: string) => [...titleCompanyKeys.company(companyId), 'default-notary'] as const,
};

/** GET /api/title-companies/pending: the title companies waiting for an administrator's decision. */
export function pendingTitleCompaniesQueryOptions() {
  return queryOptions({ queryKey: titleCompanyKeys.pending(), queryFn: () => api.get('/api/title-companies/pending', titleCompanyListSchema) });
}

/** GET /api/title-companies: every company for administrators, by status and name, a page at a time. */
export function titleCompanyPageQueryOptions(query: { q?: string; status?: TitleCompanyStatus; page: number; pageSize: number }) {
  const params = toQueryString(query);
  return queryOptions({
    queryKey: titleCompanyKeys.list(params),
    queryFn: () => api.get(`/api/title-companies?${params}`, titleCompanyPageSchema),
    placeholderData: (previous) => previous,
  });
}

/** GET /api/title-companies/mine: the companies the signed-in title staff member or agent works for. */
export function myCompaniesQueryOptions(enabled = true) {
  return queryOptions({ queryKey: titleCompanyKeys.mine(), queryFn: () => api.get('/api/title-companies/mine', myCompaniesSchema), enabled, retry: false });
}

/** GET /api/title-companies/{id}: the company's facts and what the viewer may do with it. */
export function companyQueryOptions(companyId: string) {
  return queryOptions({
    queryKey: [...titleCompanyKeys.company(companyId), 'facts'] as const,
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId)}`, titleCompanySchema),
    retry: false,
  });
}

/** GET /api/title-companies/{id}/agents: its title staff and agents, with invitations not yet accepted. */
export function companyAgentsQueryOptions(companyId: string) {
  return queryOptions({
    queryKey: titleCompanyKeys.agents(companyId),
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId)}/agents`, companyAgentListSchema),
    retry: false,
  });
}

/** GET /api/title-companies/{id}/job-types: the company's named job templates. */
export function companyJobTypesQueryOptions(companyId: string | null) {
  return queryOptions({
    queryKey: titleCompanyKeys.jobTypes(companyId ?? ''),
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId ?? '')}/job-types`, jobTypeListSchema),
    enabled: Boolean(companyId),
    retry: false,
  });
}

/** GET /api/title-companies/{id}/default-notary: the notary new jobs of the company get unless another is chosen. */
export function companyDefaultNotaryQueryOptions(companyId: string | null) {
  return queryOptions({
    queryKey: titleCompanyKeys.defaultNotary(companyId ?? ''),
    queryFn: () => api.get(`/api/title-companies/${encodeURIComponent(companyId ?? '')}/default-notary`, defaultNotarySchema),
    enabled: Boolean(companyId),
    retry: false,
  });
}
