import type { Ctx } from '#server/lib/context.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { invalidationChannel } from '#server/lib/session-cache.ts';
import { resolveSession } from '#server/features/auth/sessions.service.ts';
import { userChannel, type UserEvent } from '#server/features/jobs/access-change.ts';

/** How often an open channel checks its sign-in even when nothing announced a change (expiry). */
export const userLiveRecheckMs = 60_000;

export interface UserLiveChannel {
  stop(): Promise<void>;
}

/**
 * A person's own channel, for every tab they have open: what their account may see changed (a
 * company removed them, a role was given or taken) or their sign-in ended (deactivated, signed out
 * everywhere). Announcements come on their channel (announceToUsers) and from the sign-in store when
 * their session is invalidated; each invalidation is checked against the session, so a tab hears
 * 'signed-out' only when its own sign-in really ended.
 */
export async function openUserLiveChannel(
  ctx: Ctx,
  sessionToken: string,
  send: (event: UserEvent) => void,
  end: (code: number, reason: string) => void,
): Promise<UserLiveChannel> {
  const userId = ctx.user?.id;
  if (!userId) throw new Error('openUserLiveChannel needs a signed-in caller');
  const tokenHash = hashToken(sessionToken);
  let isEnded = false;
  const warn = (error: unknown) => ctx.log.warn({ err: error, userId }, 'user channel check failed');

  const finish = () => {
    if (isEnded) return;
    isEnded = true;
    send({ type: 'signed-out' });
    end(4401, 'signed out');
  };
  /** Whether the sign-in still holds; the tab is told it ended, once. */
  const checkSignIn = async (): Promise<boolean> => {
    const session = await resolveSession(ctx.db, ctx.sessionCache, sessionToken);
    if (!session || session.user.id !== userId) {
      finish();
      return false;
    }
    return true;
  };

  const unsubscribeUser = await ctx.realtime.subscribe(userChannel(userId), (message) => {
    if (isEnded) return;
    if (message === JSON.stringify({ type: 'signed-out' } satisfies UserEvent)) {
      void checkSignIn().catch(warn);
      return;
    }
    // A hint only: the tab fetches its offers again, which checks who asks (decision 051).
    if (message === JSON.stringify({ type: 'offers-changed' } satisfies UserEvent)) {
      send({ type: 'offers-changed' });
      return;
    }
    send({ type: 'access-changed' });
  });
  const unsubscribeAuth = await ctx.realtime.subscribe(invalidationChannel, (message) => {
    if (isEnded) return;
    let named: { tokenHash?: unknown; userId?: unknown };
    try {
      named = JSON.parse(message) as typeof named;
    } catch {
      return;
    }
    if (named.tokenHash !== tokenHash && named.userId !== userId) return;
    // Roles, status or the session itself changed: what the tab shows may be out of date either way.
    void checkSignIn()
      .then((isSignedIn) => {
        if (isSignedIn && !isEnded) send({ type: 'access-changed' });
      })
      .catch(warn);
  });
  const timer = setInterval(() => void checkSignIn().catch(warn), userLiveRecheckMs);
  timer.unref();
  // A change committed between the request's own sign-in check and these subscriptions was announced to no one here.
  void checkSignIn()
    .then((isSignedIn) => {
      if (isSignedIn && !isEnded) send({ type: 'ready' });
    })
    .catch(warn);

  return {
    async stop() {
      isEnded = true;
      clearInterval(timer);
      await Promise.all([unsubscribeUser(), unsubscribeAuth()]);
    },
  };
}
