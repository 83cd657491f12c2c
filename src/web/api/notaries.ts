import { queryOptions, useQuery } from '@tanstack/react-query';
import { notaryOptionListSchema } from '#shared/jobs.ts';
import { notaryListSchema } from '#shared/notaries.ts';
import { api } from '#web/lib/api.ts';

/**
 * Query keys of notaries: the admin lists under `all` (a decision refreshes them together); a
 * profile, its title companies and the picker's lookup each stand apart.
 */
export const notaryKeys = {
  all: ['notaries'] as const,
  pending: () => [...notaryKeys.all, 'pending'] as const,
  search: (params: string) => [...notaryKeys.all, 'search', params] as const,
  /** A notary's profile by id, or 'me' for the signed-in notary's own. */
  profile: (notaryId: string) => ['notary-profile', notaryId] as const,
  titleCompanies: (notaryId: string) => ['notary-title-companies', notaryId] as const,
  lookup: (params: string) => ['notary-options', params] as const,
};

/** GET /api/notary/pending: the notaries waiting for an administrator's decision. */
export function pendingNotariesQueryOptions() {
  return queryOptions({ queryKey: notaryKeys.pending(), queryFn: () => api.get('/api/notary/pending', notaryListSchema) });
}

/** Approved notaries whose name, county or state match the search (GET /api/notary/lookup). */
export function useNotaryLookup(search: string, enabled: boolean) {
  const params = new URLSearchParams({ q: search.trim(), limit: '10' });
  return useQuery({
    queryKey: notaryKeys.lookup(params.toString()),
    queryFn: () => api.get(`/api/notary/lookup?${params.toString()}`, notaryOptionListSchema),
    enabled,
    retry: false,
    placeholderData: (previous) => previous,
  });
}
