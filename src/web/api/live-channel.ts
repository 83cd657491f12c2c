import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { liveMessageSchema, type LiveMessage } from '#shared/fields.ts';
import { jobKeys } from './jobs.ts';

export type LiveState = 'connecting' | 'live' | 'offline';

/**
 * The channel (re)opened: whatever changed while it was down is unknown, so everything read about
 * the job is marked stale and the queries on screen are fetched again.
 */
export function refreshAfterConnect(queryClient: QueryClient, jobId: string) {
  return queryClient.invalidateQueries({ queryKey: jobKeys.detail(jobId) });
}

/** A change announced on the channel: a document's fields refresh alone; any other change refreshes every job query. */
export function refreshAfterMessage(queryClient: QueryClient, jobId: string, message: Exclude<LiveMessage, { type: 'view' }>) {
  if (message.type === 'fields.changed') return queryClient.invalidateQueries({ queryKey: jobKeys.fields(jobId, message.documentId) });
  return queryClient.invalidateQueries({ queryKey: jobKeys.all });
}

/**
 * Keeps a WebSocket to the job's live channel: field changes refresh the fields at once, and a
 * page view from whoever leads the session reaches onView. Reconnects with backoff.
 */
export function useLiveChannel(jobId: string, onView: (message: Extract<LiveMessage, { type: 'view' }>) => void) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const socketRef = useRef<WebSocket | null>(null);
  const onViewRef = useRef(onView);
  useEffect(() => {
    onViewRef.current = onView;
  }, [onView]);

  useEffect(() => {
    let isStopped = false;
    let attempt = 0;
    let retryTimer: number | undefined;
    const connect = () => {
      const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      const socket = new WebSocket(`${protocol}//${window.location.host}/api/jobs/${jobId}/live`);
      socketRef.current = socket;
      setState('connecting');
      socket.onopen = () => {
        attempt = 0;
        setState('live');
        void refreshAfterConnect(queryClient, jobId);
      };
      socket.onmessage = (event) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(event.data));
        } catch {
          return;
        }
        const message = liveMessageSchema.safeParse(parsed);
        if (!message.success) return;
        if (message.data.type === 'view') onViewRef.current(message.data);
        else void refreshAfterMessage(queryClient, jobId, message.data);
      };
      socket.onclose = () => {
        socketRef.current = null;
        if (isStopped) return;
        setState('offline');
        attempt += 1;
        retryTimer = window.setTimeout(connect, Math.min(10_000, 500 * 2 ** attempt));
      };
    };
    connect();
    return () => {
      isStopped = true;
      window.clearTimeout(retryTimer);
      socketRef.current?.close();
    };
  }, [jobId, queryClient]);

  const sendView = (documentId: string, page: number) => {
    const socket = socketRef.current;
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'view', documentId, page }));
  };
  return { state, sendView };
}
