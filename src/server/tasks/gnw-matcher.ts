import type { MatcherCtx } from '#server/features/gnw/gnw-matching.ts';
import { runMatchingPass } from '#server/features/gnw/gnw-matching.ts';

export interface GnwMatcherTask {
  /** Stops the sweep and waits for a pass under way to finish (shutdown, tests). */
  stop(): Promise<void>;
}

/**
 * The Notarize Now sweep (decision 051): a matching pass every `everyMs` (a second by default), so
 * offers expire after their 30 s, searches end on time and the next notary is rung even when nobody
 * starts or answers anything. Starts, answers and expiries found by an answer run a pass of their own
 * at once; this one catches the rest. Passes never overlap on one instance; on several instances
 * the database's indexes keep them from offering twice (gnw-matching.ts).
 */
export function startGnwMatcher(ctx: MatcherCtx, everyMs = 1000): GnwMatcherTask {
  let running: Promise<void> | null = null;
  let isStopped = false;
  const run = () => {
    if (running || isStopped) return;
    running = runMatchingPass(ctx)
      .then(() => undefined)
      .catch((error: unknown) => ctx.log.error({ err: error }, 'The Notarize Now matcher sweep failed; it runs again in a second.'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return {
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
