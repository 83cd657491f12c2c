import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  apiKeyPrefix,
  apiKeyShownLength,
  type ApiKey,
  type ApiKeyList,
  type ApiKeyScope,
  type createApiKeyInputSchema,
  type CreatedApiKey,
} from '#shared/api-keys.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { apiKeys, titleCompanies, users } from '#server/db/schema/index.ts';
import type { ApiKeyPrincipal, Ctx } from '#server/lib/context.ts';
import { AppError, forbidden, notFound } from '#server/lib/errors.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getCompanyAccess, requireManager, requireOpen } from '#server/features/title-companies/company-access.ts';

type ApiKeyRow = typeof apiKeys.$inferSelect;

/** A key is the prefix and 32 random bytes, base64url: 43 characters after the prefix. */
const keyPattern = new RegExp(`^${apiKeyPrefix}[A-Za-z0-9_-]{43}$`);
/** last_used_at is written at most once a minute per key: enough to say "used today", cheap for the database. */
export const lastUsedResolutionMs = 60_000;
/** How many live keys one company may hold: enough for every integration, few enough to review. */
export const maximumLiveKeysPerCompany = 25;

/** The audit chain of one key: its making, every call and its revocation, in one line. */
export const apiKeyAuditScope = (keyId: string) => `api-key:${keyId}`;

export function isApiKeyToken(token: string): boolean {
  return token.startsWith(apiKeyPrefix);
}

const keyNotFound = () => notFound('No API key with that id, or you may not see it.');

function toApiKey(row: ApiKeyRow, createdByName: string | null): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as ApiKeyScope[],
    createdAt: row.createdAt.toISOString(),
    createdByName,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** The company's keys, newest first, revoked ones too (so their history stays readable): its title staff and administrators. */
export async function findApiKeys(ctx: Ctx, companyId: string): Promise<ApiKeyList> {
  const access = await getCompanyAccess(ctx, companyId);
  requireManager(access, 'Only the company’s title staff manage its API keys.');
  const rows = await ctx.db
    .select({ key: apiKeys, createdByName: users.name })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdBy))
    .where(eq(apiKeys.companyId, companyId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(200);
  const { company } = access;
  return {
    items: rows.map(({ key, createdByName }) => toApiKey(key, createdByName)),
    canCreate: access.standing === 'title' && !company.closedAt && company.approvalStatus === 'approved',
  };
}

/**
 * Makes a key for the company and answers it once: only its SHA-256 and first characters are kept.
 * Only the company's own title staff make keys (an administrator may list and revoke them, not make
 * one: a key is handed to a company's integration by the company itself, decision 054).
 */
export async function createApiKey(ctx: Ctx, companyId: string, input: z.output<typeof createApiKeyInputSchema>): Promise<CreatedApiKey> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getCompanyAccess(txCtx, companyId, { forUpdate: true });
    if (access.standing !== 'title') throw forbidden('Only the company’s own title staff make its API keys.');
    const { company } = access;
    requireOpen(company);
    if (company.approvalStatus !== 'approved') throw new AppError(409, 'conflict', `${company.name} is not approved yet; API keys can be made once it is.`);
    const [{ live = 0 } = {}] = await tx
      .select({ live: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.companyId, companyId), isNull(apiKeys.revokedAt)));
    if (live >= maximumLiveKeysPerCompany) {
      throw new AppError(409, 'conflict', `${company.name} already has ${maximumLiveKeysPerCompany} API keys in use; revoke one you no longer need first.`);
    }
    const key = `${apiKeyPrefix}${randomBytes(32).toString('base64url')}`;
    const [row] = await tx
      .insert(apiKeys)
      .values({
        companyId,
        name: input.name,
        prefix: key.slice(0, apiKeyShownLength),
        keyHash: hashToken(key),
        scopes: [...input.scopes],
        createdBy: access.userId,
      })
      .returning();
    if (!row) throw new Error('api key insert returned no row');
    await appendAuditEvent(txCtx, {
      scope: apiKeyAuditScope(row.id),
      action: 'api_key.created',
      data: { apiKeyId: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes, companyId, companyName: company.name },
    });
    ctx.log.info({ event: 'api_key.created', apiKeyId: row.id, companyId }, 'api key created');
    return { apiKey: toApiKey(row, ctx.user?.name ?? null), key };
  });
}

/** Revokes a key at once (every call with it is refused from the next request on): the company's title staff or an administrator. */
export async function revokeApiKey(ctx: Ctx, keyId: string): Promise<{ ok: true; message: string }> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const [found] = await tx.select({ companyId: apiKeys.companyId }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
    if (!found) throw keyNotFound();
    const access = await getCompanyAccess(txCtx, found.companyId, { notFound: keyNotFound });
    requireManager(access, 'Only the company’s title staff or an administrator may revoke its API keys.');
    const [row] = await tx.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for('update').limit(1);
    if (!row) throw keyNotFound();
    if (row.revokedAt) throw new AppError(409, 'conflict', `The key “${row.name}” is revoked already.`);
    await tx.update(apiKeys).set({ revokedAt: new Date(), revokedBy: access.userId }).where(eq(apiKeys.id, keyId));
    await appendAuditEvent(txCtx, {
      scope: apiKeyAuditScope(row.id),
      action: 'api_key.revoked',
      data: { apiKeyId: row.id, name: row.name, prefix: row.prefix, companyId: row.companyId, companyName: access.company.name },
    });
    ctx.log.info({ event: 'api_key.revoked', apiKeyId: row.id, companyId: row.companyId }, 'api key revoked');
    return { ok: true as const, message: `The key “${row.name}” is revoked; calls with it are refused from now on.` };
  });
}

/** A key as found by its hash: the principal when it may be used, and whether it may. */
export interface ResolvedApiKey {
  principal: ApiKeyPrincipal;
  isUsable: boolean;
  lastUsedAt: Date | null;
}

/**
 * Finds the key a bearer token names. Read from the database on every call (one unique-index read
 * joined to its company), never cached: a revocation, or the company closing, holds from the next
 * request on, on every instance. A key is usable while it is not revoked and its company is open
 * and approved.
 */
export async function resolveApiKey(db: DbOrTx, token: string): Promise<ResolvedApiKey | null> {
  if (!keyPattern.test(token)) return null;
  const [row] = await db
    .select({ key: apiKeys, closedAt: titleCompanies.closedAt, approvalStatus: titleCompanies.approvalStatus })
    .from(apiKeys)
    .innerJoin(titleCompanies, eq(titleCompanies.id, apiKeys.companyId))
    .where(eq(apiKeys.keyHash, hashToken(token)))
    .limit(1);
  if (!row) return null;
  const { key } = row;
  return {
    principal: { id: key.id, name: key.name, prefix: key.prefix, companyId: key.companyId, scopes: key.scopes as ApiKeyScope[] },
    isUsable: !key.revokedAt && !row.closedAt && row.approvalStatus === 'approved',
    lastUsedAt: key.lastUsedAt,
  };
}

/** One call made with a key, as recorded: the key, the route, what it answered. */
export interface ApiKeyCall {
  key: ResolvedApiKey;
  method: string;
  route: string;
  path: string;
  status: number;
}

/**
 * Records a call made with a key in the key's audit chain, and its last use (at most once a
 * minute). Runs before the answer leaves (onSend), so a caller who got an answer was audited.
 */
export async function recordApiKeyCall(ctx: Pick<Ctx, 'db' | 'ipAddress' | 'userAgent'>, call: ApiKeyCall): Promise<void> {
  const { principal, isUsable, lastUsedAt } = call.key;
  const now = new Date();
  await ctx.db.transaction(async (tx) => {
    await appendAuditEvent(
      { db: tx, user: null, apiKey: null, ipAddress: ctx.ipAddress, userAgent: ctx.userAgent },
      {
        scope: apiKeyAuditScope(principal.id),
        action: 'api_key.used',
        data: {
          apiKeyId: principal.id,
          name: principal.name,
          prefix: principal.prefix,
          companyId: principal.companyId,
          method: call.method,
          route: call.route,
          path: call.path.slice(0, 300),
          status: call.status,
        },
      },
    );
    if (isUsable && (!lastUsedAt || now.getTime() - lastUsedAt.getTime() >= lastUsedResolutionMs)) {
      await tx
        .update(apiKeys)
        .set({ lastUsedAt: now })
        .where(and(eq(apiKeys.id, principal.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - lastUsedResolutionMs)))));
    }
  });
}
