import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { gnwKeys } from './gnw.ts';
import { applyUserEvent } from './user-channel.ts';

function clientWithQueries() {
  const queryClient = new QueryClient();
  queryClient.setQueryData(['jobs', 'list'], { items: [1] });
  queryClient.setQueryData(['auth', 'me'], { user: { id: 'u' } });
  return queryClient;
}
const staleKeys = (queryClient: QueryClient) =>
  queryClient
    .getQueryCache()
    .getAll()
    .filter((query) => query.state.isInvalidated)
    .map((query) => query.queryKey);

describe('applyUserEvent', () => {
  it('marks every query stale when the person’s access changed or their sign-in ended', async () => {
    for (const type of ['access-changed', 'signed-out'] as const) {
      const queryClient = clientWithQueries();
      await applyUserEvent(queryClient, { type }, false);
      expect(staleKeys(queryClient)).toEqual([
        ['jobs', 'list'],
        ['auth', 'me'],
      ]);
    }
  });

  it('leaves the queries alone on the first ready, and refreshes them on a ready after a reconnect', async () => {
    const first = clientWithQueries();
    expect(applyUserEvent(first, { type: 'ready' }, false)).toBeNull();
    const again = clientWithQueries();
    await applyUserEvent(again, { type: 'ready' }, true);
    expect(staleKeys(again)).toHaveLength(2);
  });

  it('fetches only the notary’s offers again when an offer rang or left them', async () => {
    const queryClient = clientWithQueries();
    queryClient.setQueryData(gnwKeys.offers(), { items: [] });
    await applyUserEvent(queryClient, { type: 'offers-changed' }, false);
    expect(staleKeys(queryClient)).toEqual([gnwKeys.offers()]);
  });
});
