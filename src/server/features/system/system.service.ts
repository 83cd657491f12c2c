import { sql } from 'drizzle-orm';
import type { PublicConfig } from '#shared/system.ts';
import type { Ctx } from '#server/lib/context.ts';

export async function checkHealth(ctx: Ctx): Promise<{ ok: true }> {
  await ctx.db.execute(sql`select 1`);
  return { ok: true };
}

export function getPublicConfig(ctx: Ctx): PublicConfig {
  return { chatWidgetUrl: ctx.config.chatWidgetUrl, documentMaxBytes: ctx.config.documentMaxBytes };
}
