import { queryOptions } from '@tanstack/react-query';
import { mfaStatusSchema } from '#shared/mfa.ts';
import { api } from '#web/lib/api.ts';

export const authKeys = {
  me: () => ['me'] as const,
  mfaStatus: () => ['mfa-status'] as const,
  notaryCertificate: () => ['notary-certificate'] as const,
};

/** GET /api/auth/mfa/status: whether the person has a second factor, read by the settings and the sign-in steps. */
export function mfaStatusQueryOptions() {
  return queryOptions({ queryKey: authKeys.mfaStatus(), queryFn: () => api.get('/api/auth/mfa/status', mfaStatusSchema) });
}
