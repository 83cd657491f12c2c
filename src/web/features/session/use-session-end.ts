import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { completePath, useCanEnter } from './api/session-queries.ts';

/**
 * For everyone in a session: once the notary ends it (can-enter no longer names this session), go to
 * /session/complete. can-enter is read again on every live-channel change and every few seconds.
 */
export function useSessionEnd(jobId: string, sessionId: string | null, refetchMs = 5_000) {
  const navigate = useNavigate();
  const canEnter = useCanEnter(jobId, { refetchMs });
  const current = canEnter.data?.session.sessionId;
  useEffect(() => {
    if (!sessionId || canEnter.data === undefined) return;
    if (current !== sessionId) navigate(completePath(jobId), { replace: true });
  }, [canEnter.data, current, jobId, navigate, sessionId]);
}
