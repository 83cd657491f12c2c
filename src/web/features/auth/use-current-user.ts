import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { meResponseSchema } from '#shared/auth.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { authKeys } from './api/auth-queries.ts';
import { clearStoredUser, getStoredUser, storeSignedIn, type StoredUser } from '#web/lib/browser-storage.ts';

/**
 * The stored user, refreshed from /api/auth/me (an approval or role change shows without signing in
 * again). A session the server no longer accepts sends the person to /login, back here afterwards.
 */
export function useCurrentUser(): StoredUser | null {
  const stored = getStoredUser();
  const navigate = useNavigate();
  const location = useLocation();
  const me = useQuery({
    queryKey: authKeys.me(),
    queryFn: () => api.get('/api/auth/me', meResponseSchema),
    enabled: stored !== null,
    staleTime: 30_000,
    retry: false,
  });
  useEffect(() => {
    if (me.data) storeSignedIn(me.data.user, null);
  }, [me.data]);
  const isExpired = me.error instanceof ApiError && me.error.status === 401;
  useEffect(() => {
    if (!isExpired) return;
    clearStoredUser();
    navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
  }, [isExpired, navigate, location.pathname, location.search]);
  return me.data?.user ?? stored;
}
