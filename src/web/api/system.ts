import { queryOptions } from '@tanstack/react-query';
import { publicConfigSchema } from '#shared/system.ts';
import { api } from '#web/lib/api.ts';

export const systemKeys = {
  publicConfig: () => ['public-config'] as const,
};

/** GET /api/system/config: the public settings, read once a page load (they change only with a restart). */
export function publicConfigQueryOptions() {
  return queryOptions({ queryKey: systemKeys.publicConfig(), queryFn: () => api.get('/api/system/config', publicConfigSchema), staleTime: Infinity });
}
