import type { Ctx } from '#server/lib/context.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { invalidationChannel } from '#server/lib/session-cache.ts';
import { resolveSession } from '#server/features/auth/sessions.service.ts';
import { accessChangedMessage } from './access-change.ts';
import { getJobAccess } from './job-access.ts';

/** How often an open socket checks its sign-in and access even when nothing announced a change (expiry). */
export const liveAccessRecheckMs = 60_000;

/** Why a socket tied to a job ends: a WebSocket close code (4xxx) and a short reason. */
export interface ChannelEnd {
  code: number;
  reason: string;
}
export const signedOutEnd = { code: 4401, reason: 'signed out' } as const;
export const accessEndedEnd = { code: 4403, reason: 'access ended' } as const;

export interface JobAccessWatchOptions {
  jobId: string;
  /** The sign-in session token the socket was opened with. */
  sessionToken: string;
  /** Every message of the job's channel except the access-changed notice (which triggers a check). */
  onJobMessage(message: string): void;
  /**
   * What else must still hold once the sign-in and the job access do (checked with a Ctx of the
   * person as they are now): the reason the socket ends, or null.
   */
  check?(personCtx: Ctx): Promise<ChannelEnd | null>;
  /** Called once, when the socket must end. */
  end(reason: ChannelEnd): void;
}

export interface JobAccessWatch {
  /** Checks again now (a change was announced); resolves when this check (or the running one) is done. */
  recheck(): Promise<void>;
  hasEnded(): boolean;
  stop(): Promise<void>;
}

/**
 * Keeps a socket of a job alive only as long as the person's right to it: it checks their sign-in
 * (4401 when it ended: sign-out, password reset, disabled account, expiry) and their access to the
 * job (4403) when the job's channel announces an access change, when the sign-in store announces
 * their session changed, and every minute; `check` adds what a particular socket needs too.
 */
export async function watchJobAccess(ctx: Ctx, options: JobAccessWatchOptions): Promise<JobAccessWatch> {
  const { jobId, sessionToken } = options;
  const tokenHash = hashToken(sessionToken);
  const userId = ctx.user?.id;
  let isEnded = false;
  let checking: Promise<void> | null = null;
  let isCheckRequested = false;
  const warn = (error: unknown) => ctx.log.warn({ err: error, jobId }, 'job socket access check failed');

  const finish = (reason: ChannelEnd) => {
    if (isEnded) return;
    isEnded = true;
    options.end(reason);
  };
  const runCheck = async () => {
    const session = await resolveSession(ctx.db, ctx.sessionCache, sessionToken);
    if (!session || session.isMfaPending) return finish(signedOutEnd);
    const personCtx: Ctx = { ...ctx, user: session.user, sessionId: session.sessionId };
    try {
      await getJobAccess(personCtx, jobId);
    } catch {
      return finish(accessEndedEnd);
    }
    const ended = options.check ? await options.check(personCtx) : null;
    if (ended) finish(ended);
  };
  // One check at a time; a change announced while one runs gets a fresh check after it, since the
  // running one may have read the data before that change was committed.
  const recheck = (): Promise<void> => {
    if (isEnded) return Promise.resolve();
    if (checking) {
      isCheckRequested = true;
      return checking;
    }
    checking = runCheck().finally(() => {
      checking = null;
      if (isCheckRequested && !isEnded) {
        isCheckRequested = false;
        void recheck().catch(warn);
      }
    });
    return checking;
  };

  const unsubscribeJob = await ctx.realtime.subscribe(`job:${jobId}`, (message) => {
    if (isEnded) return;
    if (message === accessChangedMessage) void recheck().catch(warn);
    else options.onJobMessage(message);
  });
  const unsubscribeAuth = await ctx.realtime.subscribe(invalidationChannel, (message) => {
    if (isEnded) return;
    let named: { tokenHash?: unknown; userId?: unknown };
    try {
      named = JSON.parse(message) as typeof named;
    } catch {
      return;
    }
    if (named.tokenHash !== tokenHash && !(userId && named.userId === userId)) return;
    void recheck().catch(warn);
  });
  // A change committed between the caller's first check and these subscriptions was announced to no one here.
  void recheck().catch(warn);
  const timer = setInterval(() => void recheck().catch(warn), liveAccessRecheckMs);
  timer.unref();

  return {
    recheck,
    hasEnded: () => isEnded,
    async stop() {
      isEnded = true;
      clearInterval(timer);
      await Promise.all([unsubscribeJob(), unsubscribeAuth()]);
    },
  };
}
