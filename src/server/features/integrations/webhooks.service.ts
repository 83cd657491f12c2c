import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import {
  webhookEventTypes,
  type createWebhookEndpointInputSchema,
  type updateWebhookEndpointInputSchema,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '#shared/webhooks.ts';
import { titleCompanies, titleCompanyMembers, webhookDeliveries, webhookEndpoints } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { RefusedAddressError, resolveWebhookTarget, type AddressPolicy } from './webhook-address.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type CompanyRow = typeof titleCompanies.$inferSelect;

/** A company may keep this many endpoints that are not disabled. */
export const maximumActiveEndpoints = 10;

const companyNotFound = () => notFound('No title company with that id, or you may not see it.');
const endpointNotFound = () => notFound('No webhook endpoint with that id, or you may not see it.');
const staffOnly = () => forbidden('Only the company’s title staff manage its webhooks.');

/** The address rules of the operator's configuration (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES). */
export function addressPolicyOf(config: Ctx['config']): AddressPolicy {
  return { isHttpAllowed: config.webhooks.isHttpAllowed, isPrivateAllowed: config.webhooks.isPrivateAllowed };
}

/**
 * Who may manage a company's webhooks (decision 055): its title staff only, while their account
 * holds the title role. Administrators are not let in: an endpoint and its secret are the company's
 * integration. Someone of no standing in the company gets the same 404 as for a company that does
 * not exist; its agents are told they may not. An API key with a `webhooks` scope would be a second
 * kind of caller here (the company comes from the key), leaving the service functions as they are.
 */
async function getStaffCompany(ctx: Ctx, companyId: string, notFoundError = companyNotFound): Promise<{ company: CompanyRow; userId: string | null }> {
  // A key with the webhooks scope acts as its own company, and only that one (decision 054).
  if (ctx.apiKey) {
    if (ctx.apiKey.companyId !== companyId) throw notFoundError();
    const [company] = await ctx.db.select().from(titleCompanies).where(eq(titleCompanies.id, companyId)).limit(1);
    if (!company) throw notFoundError();
    return { company, userId: null };
  }
  const user = ctx.user;
  if (!user) throw unauthorized();
  const [row] = await ctx.db
    .select({ company: titleCompanies, role: titleCompanyMembers.role })
    .from(titleCompanyMembers)
    .innerJoin(titleCompanies, eq(titleCompanies.id, titleCompanyMembers.companyId))
    .where(and(eq(titleCompanyMembers.companyId, companyId), eq(titleCompanyMembers.userId, user.id)))
    .limit(1);
  if (!row) throw notFoundError();
  if (row.role !== 'title' || !user.roles.includes('title')) throw staffOnly();
  return { company: row.company, userId: user.id };
}

/** An endpoint and its company, for its company's title staff; 404 for everyone else. */
async function getStaffEndpoint(ctx: Ctx, endpointId: string, options: { forUpdate?: boolean } = {}) {
  const query = ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).limit(1);
  const [endpoint] = options.forUpdate ? await query.for('update') : await query;
  if (!endpoint) throw endpointNotFound();
  const { company, userId } = await getStaffCompany(ctx, endpoint.companyId, endpointNotFound);
  return { endpoint, company, userId };
}

function requireOpen(company: CompanyRow): void {
  if (company.closedAt) throw new AppError(409, 'company_closed', `${company.name} is closed; its webhooks can no longer be changed.`);
}

function requireActive(endpoint: EndpointRow): void {
  if (endpoint.disabledAt) throw conflict('This endpoint is disabled; register a new one to receive events again.');
}

/** Checks a URL by the operator's rules now (scheme, then every address its name resolves to): 400 with the reason. */
async function assertDeliverableUrl(ctx: Ctx, url: string): Promise<void> {
  try {
    await resolveWebhookTarget(url, addressPolicyOf(ctx.config));
  } catch (error) {
    if (error instanceof RefusedAddressError) throw badRequest(error.message, { field: 'url' });
    throw error;
  }
}

function createSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: webhookEventTypes.filter((type) => row.events.includes(type)),
    status: row.disabledAt ? 'disabled' : 'active',
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    disabledAt: row.disabledAt?.toISOString() ?? null,
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.responseStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    replayOf: row.replayOf,
  };
}

const endpointFacts = (companyName: string, row: EndpointRow) => ({
  companyId: row.companyId,
  companyName,
  endpointId: row.id,
  url: row.url,
  events: row.events,
});

/** GET /api/title-companies/{id}/webhooks: the company's endpoints, active first, newest first. */
export async function findWebhookEndpoints(ctx: Ctx, companyId: string): Promise<{ items: WebhookEndpoint[] }> {
  await getStaffCompany(ctx, companyId);
  const rows = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.companyId, companyId)).orderBy(desc(webhookEndpoints.createdAt));
  rows.sort((a, b) => Number(a.disabledAt !== null) - Number(b.disabledAt !== null));
  return { items: rows.map(toEndpoint) };
}

/** POST /api/title-companies/{id}/webhooks: registers an endpoint; its signing secret is in this answer only. */
export async function createWebhookEndpoint(
  ctx: Ctx,
  companyId: string,
  input: z.output<typeof createWebhookEndpointInputSchema>,
): Promise<WebhookEndpointWithSecret> {
  const { company } = await getStaffCompany(ctx, companyId);
  requireOpen(company);
  // Resolved outside the transaction: a slow name server holds no lock.
  await assertDeliverableUrl(ctx, input.url);
  const secret = createSigningSecret();
  const row = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { company: locked, userId } = await getStaffCompanyForUpdate(txCtx, companyId);
    requireOpen(locked);
    const [active] = await tx
      .select({ value: count() })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.companyId, companyId), isNull(webhookEndpoints.disabledAt)));
    if ((active?.value ?? 0) >= maximumActiveEndpoints) {
      throw conflict(`A company may keep ${maximumActiveEndpoints} active endpoints; disable one it no longer uses first.`);
    }
    const [created] = await tx
      .insert(webhookEndpoints)
      .values({
        companyId,
        url: input.url,
        description: input.description ? input.description : null,
        events: input.events,
        secretSealed: encryptSecret(ctx.secretsKey, secret),
        createdBy: userId,
      })
      .returning();
    if (!created) throw new Error('webhook endpoint insert returned no row');
    await appendAuditEvent(txCtx, { action: 'webhook.created', data: endpointFacts(locked.name, created) });
    return created;
  });
  return {
    endpoint: toEndpoint(row),
    secret,
    message: 'The endpoint is registered. Copy its signing secret now: it is not shown again.',
  };
}

/** The company locked for the rest of the transaction, re-checked for the caller. */
async function getStaffCompanyForUpdate(ctx: Ctx, companyId: string) {
  const access = await getStaffCompany(ctx, companyId);
  const [company] = await ctx.db.select().from(titleCompanies).where(eq(titleCompanies.id, companyId)).for('update');
  if (!company) throw companyNotFound();
  return { company, userId: access.userId };
}

/** The endpoint of a company-scoped route: one of that company's, else 404. */
async function getCompanyEndpoint(ctx: Ctx, companyId: string, endpointId: string, options: { forUpdate?: boolean } = {}) {
  const found = await getStaffEndpoint(ctx, endpointId, options);
  if (found.endpoint.companyId !== companyId) throw endpointNotFound();
  return found;
}

/** PATCH /api/title-companies/{id}/webhooks/{endpointId}: a new URL, events or description. */
export async function updateWebhookEndpoint(
  ctx: Ctx,
  companyId: string,
  endpointId: string,
  input: z.output<typeof updateWebhookEndpointInputSchema>,
): Promise<WebhookEndpoint> {
  const first = await getCompanyEndpoint(ctx, companyId, endpointId);
  requireOpen(first.company);
  requireActive(first.endpoint);
  if (input.url !== undefined && input.url !== first.endpoint.url) await assertDeliverableUrl(ctx, input.url);
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { endpoint, company } = await getCompanyEndpoint(txCtx, companyId, endpointId, { forUpdate: true });
    requireOpen(company);
    requireActive(endpoint);
    const [saved] = await tx
      .update(webhookEndpoints)
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.description !== undefined ? { description: input.description ? input.description : null } : {}),
        updatedAt: new Date(),
      })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    if (!saved) throw endpointNotFound();
    await appendAuditEvent(txCtx, {
      action: 'webhook.updated',
      data: { ...endpointFacts(company.name, saved), before: { url: endpoint.url, events: endpoint.events, description: endpoint.description } },
    });
    return toEndpoint(saved);
  });
}

/**
 * POST /api/title-companies/{id}/webhooks/{endpointId}/disable: the endpoint receives nothing more;
 * deliveries still waiting are marked failed. It stays listed with its deliveries.
 */
export async function disableWebhookEndpoint(ctx: Ctx, companyId: string, endpointId: string): Promise<{ endpoint: WebhookEndpoint; message: string }> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { endpoint, company } = await getCompanyEndpoint(txCtx, companyId, endpointId, { forUpdate: true });
    if (endpoint.disabledAt) throw conflict('This endpoint is already disabled.');
    const now = new Date();
    const [saved] = await tx.update(webhookEndpoints).set({ disabledAt: now, updatedAt: now }).where(eq(webhookEndpoints.id, endpointId)).returning();
    if (!saved) throw endpointNotFound();
    const stopped = await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', lastError: 'The endpoint was disabled before this was delivered.' })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))
      .returning({ id: webhookDeliveries.id });
    await appendAuditEvent(txCtx, { action: 'webhook.disabled', data: { ...endpointFacts(company.name, saved), stoppedDeliveries: stopped.length } });
    return { endpoint: toEndpoint(saved), message: 'The endpoint is disabled; it receives no more events.' };
  });
}

/** POST /api/title-companies/{id}/webhooks/{endpointId}/rotate-secret: a new signing secret, shown once; the old one stops at once. */
export async function rotateWebhookSecret(ctx: Ctx, companyId: string, endpointId: string): Promise<WebhookEndpointWithSecret> {
  const secret = createSigningSecret();
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { endpoint, company } = await getCompanyEndpoint(txCtx, companyId, endpointId, { forUpdate: true });
    requireOpen(company);
    requireActive(endpoint);
    const [saved] = await tx
      .update(webhookEndpoints)
      .set({ secretSealed: encryptSecret(ctx.secretsKey, secret), updatedAt: new Date() })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    if (!saved) throw endpointNotFound();
    await appendAuditEvent(txCtx, { action: 'webhook.secret_rotated', data: endpointFacts(company.name, saved) });
    return {
      endpoint: toEndpoint(saved),
      secret,
      message: 'The endpoint has a new signing secret; deliveries from now on are signed with it. Copy it now: it is not shown again.',
    };
  });
}

/** GET /api/title-companies/webhooks/{endpointId}/deliveries: the endpoint's deliveries, newest first, a page at a time. */
export async function findWebhookDeliveries(ctx: Ctx, endpointId: string, query: { page: number; pageSize: number }): Promise<WebhookDeliveryPage> {
  await getStaffEndpoint(ctx, endpointId);
  const [total] = await ctx.db.select({ value: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  return { items: rows.map(toDelivery), total: total?.value ?? 0, page: query.page, pageSize: query.pageSize };
}

/**
 * POST /api/title-companies/webhooks/{endpointId}/deliveries/{deliveryId}/replay: the same event
 * (same id, same body) is queued again as a new delivery to the same endpoint, signed when it is sent.
 */
export async function replayWebhookDelivery(ctx: Ctx, endpointId: string, deliveryId: string): Promise<{ delivery: WebhookDelivery; message: string }> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { endpoint, company } = await getStaffEndpoint(txCtx, endpointId, { forUpdate: true });
    const [original] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
      .limit(1);
    if (!original) throw notFound('No delivery with that id on this endpoint.');
    requireOpen(company);
    requireActive(endpoint);
    const [created] = await tx
      .insert(webhookDeliveries)
      .values({ endpointId, eventId: original.eventId, eventType: original.eventType, body: original.body, replayOf: original.id })
      .returning();
    if (!created) throw new Error('webhook delivery insert returned no row');
    await appendAuditEvent(txCtx, {
      action: 'webhook.replayed',
      data: { ...endpointFacts(company.name, endpoint), deliveryId: original.id, eventId: original.eventId, eventType: original.eventType },
    });
    return { delivery: toDelivery(created), message: 'The event is queued to be sent again.' };
  });
}
