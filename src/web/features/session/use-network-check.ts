import { useCallback, useEffect, useState } from 'react';

export interface NetworkCheck {
  state: 'checking' | 'done';
  /** Round trip to the server in milliseconds; null when it did not answer. */
  roundTripMs: number | null;
  /** Whether this browser gathered any connection candidate (WebRTC works here). */
  canGatherCandidates: boolean | null;
  checkAgain: () => void;
}

const iceTimeoutMs = 5_000;

async function measureRoundTrip(): Promise<number | null> {
  try {
    const started = performance.now();
    const response = await fetch('/api/system/health', { cache: 'no-store' });
    if (!response.ok) return null;
    return Math.round(performance.now() - started);
  } catch {
    return null;
  }
}

/** Gathers this browser's own candidates (no server asked): a browser or network that blocks WebRTC gathers none. */
async function gatherCandidates(): Promise<boolean> {
  if (typeof RTCPeerConnection === 'undefined') return false;
  const connection = new RTCPeerConnection({ iceServers: [] });
  try {
    connection.createDataChannel('check');
    const gathered = new Promise<boolean>((resolve) => {
      let found = false;
      const timer = window.setTimeout(() => resolve(found), iceTimeoutMs);
      connection.onicecandidate = (event) => {
        if (event.candidate) found = true;
        else {
          window.clearTimeout(timer);
          resolve(found);
        }
      };
    });
    await connection.setLocalDescription(await connection.createOffer());
    return await gathered;
  } catch {
    return false;
  } finally {
    connection.close();
  }
}

/** The pre-join network check: the server answers (and how fast), and the browser can make media connections. */
export function useNetworkCheck(): NetworkCheck {
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<Omit<NetworkCheck, 'checkAgain'>>({ state: 'checking', roundTripMs: null, canGatherCandidates: null });
  useEffect(() => {
    let isCancelled = false;
    void Promise.all([measureRoundTrip(), gatherCandidates()]).then(([roundTripMs, canGatherCandidates]) => {
      if (!isCancelled) setResult({ state: 'done', roundTripMs, canGatherCandidates });
    });
    return () => {
      isCancelled = true;
    };
  }, [attempt]);
  const checkAgain = useCallback(() => {
    setResult({ state: 'checking', roundTripMs: null, canGatherCandidates: null });
    setAttempt((value) => value + 1);
  }, []);
  return { ...result, checkAgain };
}

/** The network check as sentences: what is fine and what is not. */
export function describeNetwork(check: Omit<NetworkCheck, 'checkAgain'>): { sentence: string; isProblem: boolean }[] {
  if (check.state === 'checking') return [{ sentence: 'Checking your connection…', isProblem: false }];
  const lines: { sentence: string; isProblem: boolean }[] = [];
  if (check.roundTripMs === null) lines.push({ sentence: 'The server did not answer. Check your internet connection, then check again.', isProblem: true });
  else if (check.roundTripMs > 800)
    lines.push({ sentence: `The server answered slowly (${check.roundTripMs} ms). Video may stutter; a wired or stronger connection helps.`, isProblem: true });
  else lines.push({ sentence: `The server answered in ${check.roundTripMs} ms.`, isProblem: false });
  if (check.canGatherCandidates) lines.push({ sentence: 'Your browser can make video connections.', isProblem: false });
  else
    lines.push({
      sentence: 'Your browser could not prepare a video connection. A firewall, VPN or browser setting may block it; try another network or browser.',
      isProblem: true,
    });
  return lines;
}
