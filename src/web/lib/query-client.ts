import { notifyManager, QueryClient, type InvalidateOptions, type InvalidateQueryFilters } from '@tanstack/react-query';

/**
 * TanStack Query's client, with one change to invalidateQueries: a query still on its first read
 * (no data yet) is read again too. TanStack reuses such a read instead of starting another (it
 * cancels and restarts only a query that has data), and that read may have been answered before
 * the change that invalidates it: a job's documents list, read as its page opened, stayed empty
 * after an upload that finished first (decision 067).
 *
 * Such a read is cancelled in the same tick as the invalidation. One the invalidation reads again
 * (an enabled observer watches it) is cancelled silently, as TanStack cancels a query with data: its
 * waiters take the new read's answer. One it does not read again (no observer, or only disabled
 * ones) is put back as it was before the read, and read when next watched.
 */
export class PageQueryClient extends QueryClient {
  override invalidateQueries(filters?: InvalidateQueryFilters, options?: InvalidateOptions): Promise<void> {
    // An invalidation that reads nothing again would leave them with no read at all.
    const refetchType = filters?.refetchType ?? filters?.type ?? 'active';
    if (refetchType === 'none') return super.invalidateQueries(filters, options);
    return notifyManager.batch(() => {
      const cache = this.getQueryCache();
      const readAgain = new Set(cache.findAll({ ...filters, type: refetchType }).filter((query) => !query.isDisabled()));
      for (const query of cache.findAll(filters)) {
        if (query.state.data !== undefined || query.state.fetchStatus !== 'fetching') continue;
        void query.cancel(readAgain.has(query) ? { silent: true } : { revert: true });
      }
      return super.invalidateQueries(filters, options);
    });
  }
}

/** The page's one query client (main.tsx). */
export function createQueryClient(): QueryClient {
  return new PageQueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
}
