import { QueryClient, type InvalidateOptions, type InvalidateQueryFilters } from '@tanstack/react-query';

/**
 * TanStack Query's client, with one change to invalidateQueries: a query still on its first read
 * (no data yet) is read again too. TanStack reuses such a read instead of starting another (it
 * cancels and restarts only a query that has data), and that read may have been answered before
 * the change that invalidates it: a job's documents list, read as its page opened, stayed empty
 * after an upload that finished first (decision 067). Those reads are cancelled, which puts their
 * queries back as they were before, and the invalidation then reads them again.
 */
export class PageQueryClient extends QueryClient {
  override async invalidateQueries(filters?: InvalidateQueryFilters, options?: InvalidateOptions): Promise<void> {
    // An invalidation that reads nothing again would leave them with no read at all.
    if (filters?.refetchType === 'none') return super.invalidateQueries(filters, options);
    const firstReads = this.getQueryCache()
      .findAll(filters)
      .filter((query) => query.state.data === undefined && query.state.fetchStatus === 'fetching');
    await Promise.all(firstReads.map((query) => query.cancel({ revert: true })));
    return super.invalidateQueries(filters, options);
  }
}

/** The page's one query client (main.tsx). */
export function createQueryClient(): QueryClient {
  return new PageQueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
}
