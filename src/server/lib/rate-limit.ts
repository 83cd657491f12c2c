import { sql } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { rateLimits } from '#server/db/schema/index.ts';
import { tooManyRequests } from './errors.ts';

export interface RateLimitState {
  count: number;
  resetAt: Date;
}

/** Adds one hit to a fixed-window counter shared by every instance, in one statement. */
export async function hitRateLimit(db: DbOrTx, key: string, windowMs: number): Promise<RateLimitState> {
  const resetAt = new Date(Date.now() + windowMs);
  const rows = await db
    .insert(rateLimits)
    .values({ key, count: 1, resetAt })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${rateLimits.resetAt} <= now() then 1 else ${rateLimits.count} + 1 end`,
        resetAt: sql`case when ${rateLimits.resetAt} <= now() then excluded.reset_at else ${rateLimits.resetAt} end`,
      },
    })
    .returning({ count: rateLimits.count, resetAt: rateLimits.resetAt });
  const row = rows[0];
  if (!row) throw new Error('rate limit upsert returned no row');
  return row;
}

export async function readRateLimit(db: DbOrTx, key: string): Promise<RateLimitState | null> {
  const rows = await db
    .select({ count: rateLimits.count, resetAt: rateLimits.resetAt })
    .from(rateLimits)
    .where(sql`${rateLimits.key} = ${key} and ${rateLimits.resetAt} > now()`);
  return rows[0] ?? null;
}

export async function clearRateLimit(db: DbOrTx, key: string): Promise<void> {
  await db.delete(rateLimits).where(sql`${rateLimits.key} = ${key}`);
}

export function secondsUntil(date: Date): number {
  return Math.max(1, Math.ceil((date.getTime() - Date.now()) / 1000));
}

/** Throws a 429 whose message says how long to wait. */
export function throwRateLimited(what: string, resetAt: Date): never {
  const seconds = secondsUntil(resetAt);
  const wait = seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
  throw tooManyRequests(`Too many ${what}. Please wait ${wait} and try again.`, seconds);
}
