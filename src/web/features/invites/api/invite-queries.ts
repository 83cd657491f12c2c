import { queryOptions } from '@tanstack/react-query';
import { inviteSummarySchema } from '#shared/invites.ts';
import { api } from '#web/lib/api.ts';

export const inviteKeys = {
  byToken: (token: string) => ['invite', token] as const,
};

/** GET /api/invites/{token}: what an invitation link offers, before the person claims it. */
export function inviteQueryOptions(token: string) {
  return queryOptions({
    queryKey: inviteKeys.byToken(token),
    queryFn: () => api.get(`/api/invites/${encodeURIComponent(token)}`, inviteSummarySchema),
    retry: false,
  });
}
