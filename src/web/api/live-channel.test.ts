import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobKeys, jobQueryOptions } from './jobs.ts';
import { refreshAfterConnect, refreshAfterMessage } from './live-channel.ts';

const jobId = 'job-1';
const clients: QueryClient[] = [];

/**
 * A real QueryClient with the job page's query on screen: the query is keyed as useJob keys it and
 * never goes stale by time, so only an invalidation makes it read again. Each read answers the next
 * status from the list, as the server would after the job moved on.
 */
async function jobOnScreen(statuses: string[]) {
  const queryClient = new QueryClient();
  clients.push(queryClient);
  const reads: string[] = [];
  const observer = new QueryObserver(queryClient, {
    queryKey: [...jobQueryOptions(jobId).queryKey],
    queryFn: async () => {
      const status = statuses[Math.min(reads.length, statuses.length - 1)] ?? 'draft';
      reads.push(status);
      return { id: jobId, status };
    },
    staleTime: Infinity,
  });
  const unsubscribe = observer.subscribe(() => {});
  await vi.waitFor(() => expect(observer.getCurrentResult().data).toEqual({ id: jobId, status: statuses[0] }));
  return { queryClient, observer, reads, unsubscribe };
}

afterEach(() => {
  for (const client of clients.splice(0)) client.clear();
});

describe('live channel refreshes', () => {
  it('a reconnect reads the job again, so the page shows the status it reached while the channel was down', async () => {
    const { queryClient, observer, reads, unsubscribe } = await jobOnScreen(['scheduled', 'in_session']);
    await refreshAfterConnect(queryClient, jobId);
    expect(reads).toEqual(['scheduled', 'in_session']);
    expect(observer.getCurrentResult().data).toEqual({ id: jobId, status: 'in_session' });
    unsubscribe();
  });

  it('a job change announced on the channel reads the job again', async () => {
    const { queryClient, observer, reads, unsubscribe } = await jobOnScreen(['scheduled', 'completed']);
    await refreshAfterMessage(queryClient, jobId, { type: 'job.changed' });
    expect(reads).toEqual(['scheduled', 'completed']);
    expect(observer.getCurrentResult().data).toEqual({ id: jobId, status: 'completed' });
    unsubscribe();
  });

  it('a reconnect for one job leaves another job read from the cache', async () => {
    const { queryClient, reads, unsubscribe } = await jobOnScreen(['scheduled', 'in_session']);
    await refreshAfterConnect(queryClient, 'job-2');
    expect(reads).toEqual(['scheduled']);
    unsubscribe();
  });

  it("a document's field change refreshes that document's fields alone", async () => {
    const { queryClient, reads, unsubscribe } = await jobOnScreen(['scheduled']);
    queryClient.setQueryData(jobKeys.fields(jobId, 'doc-1'), { items: [] });
    queryClient.setQueryData(jobKeys.fields(jobId, 'doc-2'), { items: [] });
    await refreshAfterMessage(queryClient, jobId, { type: 'fields.changed', documentId: 'doc-1' });
    expect(queryClient.getQueryState(jobKeys.fields(jobId, 'doc-1'))?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(jobKeys.fields(jobId, 'doc-2'))?.isInvalidated).toBe(false);
    expect(reads).toEqual(['scheduled']);
    unsubscribe();
  });
});
