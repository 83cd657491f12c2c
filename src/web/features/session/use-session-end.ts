import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { completePath, useCanEnter } from './api/session-queries.ts';
import { hasSessionEnded } from './room-place.ts';

/**
 * For everyone in a session: once the notary ends it (can-enter no longer names this session), go to
 * /session/complete. can-enter is read again on every live-channel change and every few seconds; an
 * answer is acted on only once no read is under way (the one held may predate the session).
 */
export function useSessionEnd(jobId: string, sessionId: string | null, refetchMs = 5_000) {
  const navigate = useNavigate();
  const canEnter = useCanEnter(jobId, { refetchMs });
  const hasEnded = hasSessionEnded({ data: canEnter.data, isFetching: canEnter.isFetching, sessionId });
  useEffect(() => {
    if (hasEnded) navigate(completePath(jobId), { replace: true });
  }, [hasEnded, jobId, navigate]);
}
