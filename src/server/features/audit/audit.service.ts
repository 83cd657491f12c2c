import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { AuditAction } from '#shared/audit.ts';
import { computeAuditHash } from '#shared/audit-hash.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { auditEvents, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';

export const accountScope = 'account';

export interface AuditEventInput {
  jobId?: string | null;
  /** One of audit.ts's actions: each has a sentence (audit-sentences.ts). */
  action: AuditAction;
  data?: Record<string, unknown>;
  /** The chain the event joins when it belongs to neither a job nor the account scope, e.g. `api-key:<id>` (decision 054). */
  scope?: string;
}

type AuditRow = typeof auditEvents.$inferSelect;

function computeHash(row: Omit<AuditRow, 'hash' | 'sequence'>): string {
  return computeAuditHash({ ...row, createdAt: row.createdAt.toISOString() });
}

/**
 * Appends an event chained to the previous one of its scope. Call it inside the transaction of the
 * change it records; an advisory lock per scope keeps concurrent appends in one line.
 */
export async function appendAuditEvent(ctx: Pick<Ctx, 'user' | 'apiKey' | 'ipAddress' | 'userAgent'> & { db: DbOrTx }, input: AuditEventInput): Promise<void> {
  const scope = input.jobId ? `job:${input.jobId}` : (input.scope ?? accountScope);
  // A change made through an API key has no person behind it: the event names the key (decision 054).
  const key = ctx.apiKey;
  const data = key && !ctx.user ? { ...input.data, apiKeyId: key.id, apiKeyName: key.name, apiKeyPrefix: key.prefix } : (input.data ?? {});
  await ctx.db.execute(sql`select pg_advisory_xact_lock(hashtext(${scope}))`);
  const [previous] = await ctx.db
    .select({ hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.scope, scope))
    .orderBy(desc(auditEvents.sequence))
    .limit(1);
  const row = {
    id: crypto.randomUUID(),
    scope,
    jobId: input.jobId ?? null,
    actorId: ctx.user?.id ?? null,
    action: input.action,
    ipAddress: ctx.ipAddress,
    userAgent: ctx.userAgent?.slice(0, 400) ?? null,
    data,
    createdAt: new Date(),
    previousHash: previous?.hash ?? null,
  };
  await ctx.db.insert(auditEvents).values({ ...row, hash: computeHash(row) });
}

export interface AuditVerification {
  isValid: boolean;
  eventCount: number;
  firstBrokenEventId: string | null;
}

/** Recomputes every hash of a scope in order; an edited, removed or reordered event breaks it. */
export async function verifyAuditScope(db: DbOrTx, scope: string): Promise<AuditVerification> {
  const rows = await db.select().from(auditEvents).where(eq(auditEvents.scope, scope)).orderBy(asc(auditEvents.sequence));
  let previousHash: string | null = null;
  for (const row of rows) {
    if (row.previousHash !== previousHash || computeHash(row) !== row.hash) {
      return { isValid: false, eventCount: rows.length, firstBrokenEventId: row.id };
    }
    previousHash = row.hash;
  }
  return { isValid: true, eventCount: rows.length, firstBrokenEventId: null };
}

/**
 * A job's trail, oldest first, with actor names, and whether its hash chain verifies. Addresses,
 * browsers and hashes only for the job's notary and administrators.
 */
export async function getJobAuditTrail(ctx: Ctx, jobId: string) {
  const { getJobAccess } = await import('#server/features/jobs/job-access.ts');
  const access = await getJobAccess(ctx, jobId);
  const maySeeNetworkDetails = access.job.notaryId === access.userId || Boolean(ctx.user?.roles.includes('admin'));
  const scope = `job:${jobId}`;
  const rows = await ctx.db
    .select({ event: auditEvents, actorName: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(eq(auditEvents.scope, scope))
    .orderBy(asc(auditEvents.sequence));
  const verification = await verifyAuditScope(ctx.db, scope);
  return {
    events: rows.map(({ event, actorName }) => ({
      id: event.id,
      action: event.action,
      actorId: event.actorId,
      actorName,
      data: (event.data ?? {}) as Record<string, unknown>,
      createdAt: event.createdAt.toISOString(),
      ...(maySeeNetworkDetails ? { ipAddress: event.ipAddress, userAgent: event.userAgent, hash: event.hash } : {}),
    })),
    verification,
  };
}

/**
 * The account-scope events about one person (their data names them as userId), newest first, with
 * actor names: what administrators and the person's own links changed on the account.
 */
export async function findAccountEventsAbout(db: DbOrTx, userId: string, limit = 200) {
  const rows = await db
    .select({ event: auditEvents, actorName: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(and(eq(auditEvents.scope, accountScope), sql`${auditEvents.data}->>'userId' = ${userId}`))
    .orderBy(desc(auditEvents.sequence))
    .limit(limit);
  return rows.map(({ event, actorName }) => ({
    id: event.id,
    action: event.action,
    actorId: event.actorId,
    actorName,
    data: (event.data ?? {}) as Record<string, unknown>,
    createdAt: event.createdAt.toISOString(),
  }));
}
