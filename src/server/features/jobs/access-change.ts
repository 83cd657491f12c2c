import type { Ctx } from '#server/lib/context.ts';

/** Sent on a job's live channel when who may see the job changed; every open socket checks its own access again. */
export const accessChangedMessage = JSON.stringify({ type: 'access-changed' });

/** Tells every open live channel of the job (on every instance) to check again whether its person may still see it. Call after the change is committed. */
export async function announceAccessChange(ctx: Pick<Ctx, 'realtime'>, jobId: string): Promise<void> {
  await ctx.realtime.publish(`job:${jobId}`, accessChangedMessage);
}
