import { signalCloseCodes, signalCloseSentences } from '#shared/video-signaling.ts';

/**
 * Close codes after which the browser stays away: signed out, refused, replaced by another tab (a
 * reconnect would throw that tab out in turn) and the session ended.
 */
const finalCloseCodes = new Set<number>([signalCloseCodes.signedOut, signalCloseCodes.refused, signalCloseCodes.replaced, signalCloseCodes.sessionEnded]);

export function shouldReconnect(closeCode: number): boolean {
  return !finalCloseCodes.has(closeCode);
}

/** The sentence for a close code the person must read, or null for an ordinary drop. */
export function describeClose(closeCode: number): string | null {
  return signalCloseSentences[closeCode] ?? null;
}

export const reconnectLimits = { firstMs: 500, maxMs: 15_000 } as const;

/**
 * Wait before reconnect attempt `attempt` (1, 2, ...): doubling from 0.5 s to at most 15 s, with up
 * to a quarter taken off at random so that a room dropped at once does not come back all at once.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(reconnectLimits.maxMs, reconnectLimits.firstMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - 0.25 * random()));
}
