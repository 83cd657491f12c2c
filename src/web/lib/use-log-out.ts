import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api } from '#web/lib/api.ts';

/** Logout: revokes the session on the server, clears session storage and goes to /login. */
export function useLogOut() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async () => {
    try {
      await api.post('/api/auth/logout');
    } catch {
      // the local sign-out below still happens; the server session expires on its own
    }
    sessionStorage.clear();
    queryClient.clear();
    navigate('/login', { replace: true });
  };
}
