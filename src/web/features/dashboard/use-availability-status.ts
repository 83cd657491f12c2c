import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { availabilityStatusSchema, heartbeatIntervalSeconds } from '#shared/availability.ts';
import { availabilityKeys, availabilityStatusQueryOptions } from '#web/api/availability.ts';
import { api } from '#web/lib/api.ts';

export const availabilityStatusKey = availabilityKeys.status();
/** Local storage: this browser's id for going online (shared by its tabs; see src/shared/availability.ts). */
const sessionIdKey = 'notary_availability_session';

/** This browser's availability session id, made once and kept in local storage (a fresh one each load if storage is blocked). */
export function getBrowserSessionId(): string {
  try {
    const stored = localStorage.getItem(sessionIdKey);
    if (stored && /^[\w-]{8,100}$/.test(stored)) return stored;
    const created = crypto.randomUUID();
    localStorage.setItem(sessionIdKey, created);
    return created;
  } catch {
    return crypto.randomUUID();
  }
}

/** The notary's (or witness's) live availability; a 403 (not a notary, or not yet approved) is not retried. */
export function useAvailabilityStatus(isEnabled = true) {
  return useQuery({ ...availabilityStatusQueryOptions(), enabled: isEnabled });
}

/**
 * While the notary (or platform witness) is online, a heartbeat every 30 s, on every page of the app, not
 * only those with the sidebar: a notary in a session room stays online. The server's answer replaces
 * the status, so a browser that was quiet too long (or lost the online state to another) shows offline.
 */
export function useAvailabilityHeartbeat(canGoOnline: boolean) {
  const queryClient = useQueryClient();
  const status = useAvailabilityStatus(canGoOnline);
  const isOnline = canGoOnline && status.data?.is_available === true;
  useEffect(() => {
    if (!isOnline) return;
    const sessionId = getBrowserSessionId();
    const timer = window.setInterval(() => {
      api
        .post('/api/notary-availability/heartbeat', { session_id: sessionId }, availabilityStatusSchema)
        .then((next) => queryClient.setQueryData(availabilityStatusKey, next))
        // A missed beat is made up by the next one; the server's 90 s allow for two.
        .catch(() => undefined);
    }, heartbeatIntervalSeconds * 1000);
    return () => window.clearInterval(timer);
  }, [isOnline, queryClient]);
}
