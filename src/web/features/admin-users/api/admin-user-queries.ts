import { queryOptions } from '@tanstack/react-query';
import { accountAuditSchema, adminUserPageSchema } from '#shared/admin-users.ts';
import type { ApprovalStatus } from '#shared/auth.ts';
import { adminNotaryCertificatesSchema } from '#shared/notaries.ts';
import type { Role } from '#shared/roles.ts';
import { api } from '#web/lib/api.ts';
import { toQueryString } from '#web/lib/query-string.ts';

/** Query keys of the administrators' Users page: the lists under `lists`, one account's history under its own key. */
export const adminUserKeys = {
  all: ['admin-users'] as const,
  lists: () => [...adminUserKeys.all, 'list'] as const,
  list: (params: string) => [...adminUserKeys.lists(), params] as const,
  audit: (userId: string) => [...adminUserKeys.all, 'audit', userId] as const,
  certificates: (userId: string) => [...adminUserKeys.all, 'certificates', userId] as const,
};

export const adminUserPageSize = 20;

/** GET /api/admin/users: accounts by name or email, role and status, newest first, a page at a time. */
export function adminUsersQueryOptions(query: { q?: string; role?: Role; status?: ApprovalStatus; page: number }) {
  const params = toQueryString({ q: query.q, role: query.role, status: query.status, page: query.page, pageSize: adminUserPageSize });
  return queryOptions({
    queryKey: adminUserKeys.list(params),
    queryFn: () => api.get(`/api/admin/users?${params}`, adminUserPageSchema),
    placeholderData: (previous) => previous,
  });
}

/** GET /api/admin/users/{id}/audit: what administrators changed on this account, newest first. */
export function accountAuditQueryOptions(userId: string) {
  return queryOptions({
    queryKey: adminUserKeys.audit(userId),
    queryFn: () => api.get(`/api/admin/users/${encodeURIComponent(userId)}/audit`, accountAuditSchema),
    retry: false,
  });
}

/** GET /api/admin/users/{id}/certificates: the notary's platform certificates, newest first. */
export function notaryCertificatesQueryOptions(userId: string) {
  return queryOptions({
    queryKey: adminUserKeys.certificates(userId),
    queryFn: () => api.get(`/api/admin/users/${encodeURIComponent(userId)}/certificates`, adminNotaryCertificatesSchema),
    retry: false,
  });
}
