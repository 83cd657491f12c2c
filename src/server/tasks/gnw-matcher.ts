import type { MatcherCtx } from '#server/features/gnw/gnw-matching.ts';
import { isMatcherBusy, requestMatchingPass, whenMatcherIdle } from '#server/features/gnw/gnw-matching.ts';

export interface GnwMatcherTask {
  /** Stops the sweep and waits for a pass under way to finish (shutdown, tests). */
  stop(): Promise<void>;
}

/**
 * The Notarize Now sweep (decision 051): asks for a matching pass every `everyMs` (a second by
 * default), so offers expire after their 30 s, searches end on time and the next notary is rung even
 * when nobody starts or answers anything. Starts and answers ask for passes of their own; all of them
 * share one queue per instance (requestMatchingPass), so passes never overlap on one instance; a
 * sweep that falls due while a pass runs or waits is left out (that pass does its work). On several instances the database's indexes
 * keep them from offering twice (gnw-matching.ts).
 */
export function startGnwMatcher(ctx: MatcherCtx, everyMs = 1000): GnwMatcherTask {
  let isStopped = false;
  const run = () => {
    if (!isStopped && !isMatcherBusy(ctx)) void requestMatchingPass(ctx);
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return {
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await whenMatcherIdle(ctx);
    },
  };
}
