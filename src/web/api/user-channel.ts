import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { z } from 'zod';
import { gnwKeys } from './gnw.ts';

const userEventSchema = z.object({ type: z.enum(['ready', 'access-changed', 'signed-out', 'offers-changed']) });
export type UserEvent = z.infer<typeof userEventSchema>;

/**
 * What a tab does with an event of the person's own channel. An offer rang at the notary or witness,
 * or left them (decision 051): their offers are fetched at once rather than at the next 5 s poll.
 * Access changed or the sign-in ended:
 * every query on screen is fetched again, so a job the person lost leaves the lists and a page they
 * may no longer see says so; the current-user query answers 401 and sends them to the sign-in page.
 * 'ready' after a reconnect: whatever changed while the channel was down is unknown, so the same.
 */
export function applyUserEvent(queryClient: QueryClient, event: UserEvent, isReconnect: boolean): Promise<void> | null {
  if (event.type === 'ready' && !isReconnect) return null;
  if (event.type === 'offers-changed') return queryClient.invalidateQueries({ queryKey: gnwKeys.offers() });
  return queryClient.invalidateQueries();
}

/** Keeps the signed-in person's own channel open while a page of the app is; reconnects with backoff. */
export function useUserChannel(isSignedIn: boolean) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!isSignedIn) return;
    let isStopped = false;
    let attempt = 0;
    let hasBeenReady = false;
    let retryTimer: number | undefined;
    let socket: WebSocket | null = null;
    const connect = () => {
      const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      socket = new WebSocket(`${protocol}//${window.location.host}/api/notifications/live`);
      socket.onmessage = (message) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(message.data));
        } catch {
          return;
        }
        const event = userEventSchema.safeParse(parsed);
        if (!event.success) return;
        if (event.data.type === 'ready') attempt = 0;
        void applyUserEvent(queryClient, event.data, hasBeenReady);
        if (event.data.type === 'ready') hasBeenReady = true;
        if (event.data.type === 'signed-out') isStopped = true;
      };
      socket.onclose = (closed) => {
        socket = null;
        // 4401: the sign-in ended; the pages take the person to sign in, and nothing here reconnects.
        if (isStopped || closed.code === 4401 || closed.code === 4403) return;
        attempt += 1;
        retryTimer = window.setTimeout(connect, Math.min(30_000, 1000 * 2 ** attempt));
      };
    };
    connect();
    return () => {
      isStopped = true;
      window.clearTimeout(retryTimer);
      socket?.close();
    };
  }, [isSignedIn, queryClient]);
}
