import { QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueryClient } from './query-client.ts';

const clients: Array<ReturnType<typeof createQueryClient>> = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.clear();
});

/**
 * A page's first read of a list, answered by the server before a change and delivered after it
 * (the CI run where a job's documents list stayed empty after an upload): the server's answer is
 * taken when the read starts, and each read is slow or quick as the test says.
 */
function listOnScreen(firstReadMs: number) {
  const client = createQueryClient();
  clients.push(client);
  let stored: string[] = [];
  let reads = 0;
  const observer = new QueryObserver(client, {
    queryKey: ['jobs', 'detail', 'job-1', 'documents'] as readonly unknown[],
    queryFn: async ({ signal }) => {
      reads += 1;
      const answer = [...stored];
      await new Promise((resolve) => setTimeout(resolve, reads === 1 ? firstReadMs : 5));
      signal.throwIfAborted();
      return answer;
    },
  });
  const unsubscribe = observer.subscribe(() => undefined);
  return {
    client,
    observer,
    store: (names: string[]) => {
      stored = names;
    },
    reads: () => reads,
    close: unsubscribe,
  };
}

const settled = (observer: QueryObserver<string[]>) =>
  new Promise<void>((resolve) => {
    const check = () =>
      observer.getCurrentResult().fetchStatus === 'idle' && observer.getCurrentResult().data !== undefined ? resolve() : setTimeout(check, 5);
    check();
  });

/** Stores a change, as a mutation does, refreshes the job's queries and answers the list then shown. */
async function changeAndRefresh(list: ReturnType<typeof listOnScreen>, names: string[]) {
  list.store(names);
  await list.client.invalidateQueries({ queryKey: ['jobs'] });
  await settled(list.observer);
  return list.observer.getCurrentResult().data;
}

describe('the query client', () => {
  it('reads a list again after a change made while its first read was on its way', async () => {
    const list = listOnScreen(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The upload is stored, then the page refreshes what the job shows.
    expect(await changeAndRefresh(list, ['deed.pdf'])).toEqual(['deed.pdf']);
    expect(list.reads()).toBe(2);
    list.close();
  });

  it('reads a list already shown once more after a change', async () => {
    const list = listOnScreen(5);
    await settled(list.observer);
    expect(list.observer.getCurrentResult().data).toEqual([]);
    expect(await changeAndRefresh(list, ['deed.pdf'])).toEqual(['deed.pdf']);
    expect(list.reads()).toBe(2);
    list.close();
  });

  it('an awaited invalidation that a second one overtakes during a first read resolves with the list on screen', async () => {
    const list = listOnScreen(60);
    await new Promise((resolve) => setTimeout(resolve, 10));
    list.store(['deed.pdf']);
    let shownWhenDone: string[] | undefined;
    // A mutation's refresh, awaited by its controls, then a live message's refresh while its read is on its way.
    const first = list.client.invalidateQueries({ queryKey: ['jobs'] }).then(() => {
      shownWhenDone = list.observer.getCurrentResult().data;
    });
    await new Promise((resolve) => setTimeout(resolve, 2));
    list.store(['deed.pdf', 'rider.pdf']);
    await list.client.invalidateQueries({ queryKey: ['jobs'] });
    await first;
    expect(shownWhenDone).toEqual(['deed.pdf', 'rider.pdf']);
    await settled(list.observer);
    expect(list.observer.getCurrentResult().data).toEqual(['deed.pdf', 'rider.pdf']);
    list.close();
  });

  it('leaves a first read on its way when the invalidation reads nothing again', async () => {
    const list = listOnScreen(60);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await list.client.invalidateQueries({ queryKey: ['jobs'], refetchType: 'none' });
    await settled(list.observer);
    expect(list.observer.getCurrentResult().data).toEqual([]);
    expect(list.reads()).toBe(1);
    list.close();
  });

  it('leaves queries outside the invalidated key alone', async () => {
    const list = listOnScreen(100);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await list.client.invalidateQueries({ queryKey: ['billing'] });
    await settled(list.observer);
    expect(list.reads()).toBe(1);
    list.close();
  });
});
