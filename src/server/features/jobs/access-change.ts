import type { Ctx } from '#server/lib/context.ts';

/** Sent on a job's live channel when who may see the job changed; every open socket checks its own access again. */
export const accessChangedMessage = JSON.stringify({ type: 'access-changed' });

/** Tells every open live channel of the job (on every instance) to check again whether its person may still see it. Call after the change is committed. */
export async function announceAccessChange(ctx: Pick<Ctx, 'realtime'>, jobId: string): Promise<void> {
  await ctx.realtime.publish(`job:${jobId}`, accessChangedMessage);
}

/**
 * What a person's own live channel (GET /api/notifications/live) carries: it is listening (ready),
 * their access changed, they were signed out everywhere, or (a hint, decision 051) the Notarize Now
 * offers ringing at them changed, so the tab fetches GET /api/gnw/offers again.
 */
export type UserEvent = { type: 'ready' } | { type: 'access-changed' } | { type: 'signed-out' } | { type: 'offers-changed' };

/** The channel of one person's open tabs, on every instance. */
export const userChannel = (userId: string) => `user:${userId}`;

/**
 * Tells every open tab of these people (on every instance) that what they may see changed, or that
 * their sessions ended: the pages fetch again, or go to the sign-in page. Call after the change is committed.
 */
export async function announceToUsers(ctx: Pick<Ctx, 'realtime'>, userIds: readonly string[], event: UserEvent): Promise<void> {
  const message = JSON.stringify(event);
  await Promise.all([...new Set(userIds)].map((userId) => ctx.realtime.publish(userChannel(userId), message)));
}
