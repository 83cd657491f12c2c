import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  formatCents,
  maxPriceListItems,
  notarialFeeRefusal,
  type CompanyPriceItem,
  type createPriceItemInputSchema,
  type PriceItem,
  type updatePriceItemInputSchema,
} from '#shared/pricing.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { priceItems, titleCompanies } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';

type PriceRow = typeof priceItems.$inferSelect;
type CreateInput = z.output<typeof createPriceItemInputSchema>;
type UpdateInput = z.output<typeof updatePriceItemInputSchema>;

function toPriceItem(row: PriceRow): PriceItem {
  return {
    key: row.key,
    label: row.label,
    amountCents: row.amountCents,
    unit: row.unit,
    feeKind: row.feeKind,
    position: row.position,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What an audit event keeps of an item. */
const priceFacts = (row: Pick<PriceRow, 'key' | 'label' | 'amountCents' | 'unit' | 'feeKind'>) => ({
  key: row.key,
  label: row.label,
  amountCents: row.amountCents,
  unit: row.unit,
  feeKind: row.feeKind,
});

const noDefault = (key: string) => notFound(`There is no default price with the key ${key}.`);

/**
 * Every change to prices runs one at a time: a change checks the notarial fee of whole lists
 * (the defaults and each company's), which a parallel change could otherwise undo.
 */
async function lockPrices(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('price_items'))`);
}

export const defaultRows = (db: DbOrTx) =>
  db.select().from(priceItems).where(isNull(priceItems.companyId)).orderBy(asc(priceItems.position), asc(priceItems.key));
export const companyRows = (db: DbOrTx, companyId: string) =>
  db.select().from(priceItems).where(eq(priceItems.companyId, companyId)).orderBy(asc(priceItems.position), asc(priceItems.key));

/** A company's effective list: each default with the company's own amount where it set one, then keys of its own. */
export function mergePrices(defaults: PriceRow[], own: PriceRow[]): Array<PriceRow & { source: 'company' | 'default' }> {
  const ownByKey = new Map(own.map((row) => [row.key, row]));
  const merged = defaults.map((row) => {
    const mine = ownByKey.get(row.key);
    return mine ? { ...mine, position: row.position, source: 'company' as const } : { ...row, source: 'default' as const };
  });
  const defaultKeys = new Set(defaults.map((row) => row.key));
  const extra = own.filter((row) => !defaultKeys.has(row.key)).map((row, index) => ({ ...row, position: defaults.length + index, source: 'company' as const }));
  return [...merged, ...extra];
}

/** The key of the price a job cancelled as a no-show is charged, once per job, when the prices have one. */
export const noShowPriceKey = 'no_show';

/** The prices in force for a job: its company's own amounts over the defaults (none of its own without a company). */
export async function effectivePrices(db: DbOrTx, companyId: string | null) {
  return mergePrices(await defaultRows(db), companyId ? await companyRows(db, companyId) : []);
}

/** The prices a job is charged when it completes, and estimated at before: every one in force but the no-show price. */
export async function completionPrices(db: DbOrTx, companyId: string | null) {
  return (await effectivePrices(db, companyId)).filter((price) => price.key !== noShowPriceKey);
}

/** The most notarial fee one act can carry under this list: the per-act items, plus those for later acts. */
function notarialFeePerAct(rows: Array<Pick<PriceRow, 'amountCents' | 'unit' | 'feeKind'>>): number {
  return rows
    .filter((row) => row.feeKind === 'notarial' && (row.unit === 'act' || row.unit === 'additional_act'))
    .reduce((sum, row) => sum + row.amountCents, 0);
}

function assertWithinCaps(rows: PriceRow[], whose: string): void {
  const refusal = notarialFeeRefusal(notarialFeePerAct(rows));
  if (refusal) throw new AppError(422, 'fee_above_cap', `${whose}: ${refusal}`);
}

/** After a change to the defaults: the defaults, and every company that keeps prices of its own, still fit the caps. */
async function assertAllListsWithinCaps(tx: DbOrTx): Promise<void> {
  const defaults = await defaultRows(tx);
  assertWithinCaps(defaults, 'The default prices');
  const own = await tx
    .select({ row: priceItems, companyName: titleCompanies.name })
    .from(priceItems)
    .innerJoin(titleCompanies, eq(titleCompanies.id, priceItems.companyId))
    .where(isNotNull(priceItems.companyId));
  const byCompany = new Map<string, { name: string; rows: PriceRow[] }>();
  for (const { row, companyName } of own) {
    const entry = byCompany.get(row.companyId ?? '') ?? { name: companyName, rows: [] };
    entry.rows.push(row);
    byCompany.set(row.companyId ?? '', entry);
  }
  for (const { name, rows } of byCompany.values()) assertWithinCaps(mergePrices(defaults, rows), `The prices of ${toSingleLine(name)}`);
}

/** GET /api/admin/pricing/defaults */
export async function findDefaultPrices(ctx: Ctx): Promise<{ items: PriceItem[] }> {
  return { items: (await defaultRows(ctx.db)).map(toPriceItem) };
}

/** POST /api/admin/pricing/defaults: a new item at the end of the list. */
export async function createDefaultPrice(ctx: Ctx, input: CreateInput): Promise<PriceItem> {
  const duplicate = () => conflict(`A default price with the key ${input.key} exists already. Change it, or choose another key.`);
  try {
    return await ctx.db.transaction(async (tx) => {
      await lockPrices(tx);
      const [existing] = await tx
        .select({ id: priceItems.id })
        .from(priceItems)
        .where(and(isNull(priceItems.companyId), eq(priceItems.key, input.key)));
      if (existing) throw duplicate();
      const [count] = await tx
        .select({ items: sql<number>`count(*)::int` })
        .from(priceItems)
        .where(isNull(priceItems.companyId));
      if ((count?.items ?? 0) >= maxPriceListItems) {
        throw conflict(`The default prices hold ${maxPriceListItems} items, the most a list may hold. Remove one before adding another.`);
      }
      const [last] = await tx
        .select({ position: sql<number>`coalesce(max(${priceItems.position}), -1)::int` })
        .from(priceItems)
        .where(isNull(priceItems.companyId));
      const [row] = await tx
        .insert(priceItems)
        .values({ companyId: null, ...input, position: (last?.position ?? -1) + 1, updatedBy: ctx.user?.id ?? null })
        .returning();
      if (!row) throw new Error('price insert returned no row');
      await assertAllListsWithinCaps(tx);
      await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.default_created', data: priceFacts(row) });
      return toPriceItem(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}

function assertNotarialPerAct(row: Pick<PriceRow, 'unit' | 'feeKind'>): void {
  if (row.feeKind === 'notarial' && row.unit !== 'act' && row.unit !== 'additional_act') {
    throw badRequest('A notarial fee is charged per notarial act: choose “per notarial act”.', [
      { path: 'unit', message: 'A notarial fee is charged per notarial act.' },
    ]);
  }
}

/** PUT /api/admin/pricing/defaults/{key} */
export async function updateDefaultPrice(ctx: Ctx, key: string, input: UpdateInput): Promise<PriceItem> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const [before] = await tx
      .select()
      .from(priceItems)
      .where(and(isNull(priceItems.companyId), eq(priceItems.key, key)));
    if (!before) throw noDefault(key);
    const changes = { ...input, updatedAt: new Date(), updatedBy: ctx.user?.id ?? null };
    assertNotarialPerAct({ unit: input.unit ?? before.unit, feeKind: input.feeKind ?? before.feeKind });
    const [row] = await tx.update(priceItems).set(changes).where(eq(priceItems.id, before.id)).returning();
    if (!row) throw noDefault(key);
    await assertAllListsWithinCaps(tx);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.default_updated', data: { ...priceFacts(row), before: priceFacts(before) } });
    return toPriceItem(row);
  });
}

/** DELETE /api/admin/pricing/defaults/{key}: charges made before keep their lines; companies' own amounts for the key stay theirs. */
export async function deleteDefaultPrice(ctx: Ctx, key: string): Promise<{ ok: true; message: string }> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const [row] = await tx
      .delete(priceItems)
      .where(and(isNull(priceItems.companyId), eq(priceItems.key, key)))
      .returning();
    if (!row) throw noDefault(key);
    await renumber(tx, null);
    await assertAllListsWithinCaps(tx);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.default_deleted', data: priceFacts(row) });
    return { ok: true as const, message: `“${toSingleLine(row.label)}” is no longer a default price. Charges already made keep it.` };
  });
}

/** Positions 0..n-1 in the list's present order. */
async function renumber(tx: DbOrTx, companyId: string | null): Promise<void> {
  const rows = companyId ? await companyRows(tx, companyId) : await defaultRows(tx);
  for (const [position, row] of rows.entries()) {
    if (row.position !== position) await tx.update(priceItems).set({ position }).where(eq(priceItems.id, row.id));
  }
}

/** POST /api/admin/pricing/defaults/reorder {order}: every key once, in the new order, all or nothing. */
export async function reorderDefaultPrices(ctx: Ctx, order: string[]): Promise<{ items: PriceItem[] }> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const rows = await defaultRows(tx);
    const known = new Set(rows.map((row) => row.key));
    const repeated = order.filter((key, index) => order.indexOf(key) !== index);
    const unknown = order.filter((key) => !known.has(key));
    const missing = rows.map((row) => row.key).filter((key) => !order.includes(key));
    if (repeated.length || unknown.length || missing.length) {
      const parts = [
        repeated.length ? `named twice: ${[...new Set(repeated)].join(', ')}` : null,
        unknown.length ? `not a default price: ${unknown.join(', ')}` : null,
        missing.length ? `missing: ${missing.join(', ')}` : null,
      ].filter(Boolean);
      throw badRequest(`Send every default price’s key exactly once (${parts.join('; ')}).`);
    }
    const byKey = new Map(rows.map((row) => [row.key, row]));
    for (const [position, key] of order.entries()) {
      const row = byKey.get(key);
      if (row && row.position !== position) await tx.update(priceItems).set({ position }).where(eq(priceItems.id, row.id));
    }
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.defaults_reordered', data: { before: rows.map((row) => row.key), after: order } });
    return { items: (await defaultRows(tx)).map(toPriceItem) };
  });
}

async function getCompany(db: DbOrTx, companyId: string) {
  const [company] = await db
    .select({ id: titleCompanies.id, name: titleCompanies.name, closedAt: titleCompanies.closedAt })
    .from(titleCompanies)
    .where(eq(titleCompanies.id, companyId));
  if (!company) throw notFound('No title company with that id.');
  return company;
}

/** A company whose prices may change: a closed one keeps the prices its jobs were charged at. */
async function getOpenCompany(db: DbOrTx, companyId: string) {
  const company = await getCompany(db, companyId);
  if (company.closedAt) throw new AppError(409, 'company_closed', `${toSingleLine(company.name)} is closed; its prices can no longer be changed.`);
  return company;
}

/** GET /api/admin/pricing/company/{id}?limit: the company's prices, its own where set, else the defaults, marked which. */
export async function findCompanyPrices(
  ctx: Ctx,
  companyId: string,
  limit: number,
): Promise<{ companyId: string; companyName: string; items: CompanyPriceItem[]; total: number }> {
  const company = await getCompany(ctx.db, companyId);
  const merged = mergePrices(await defaultRows(ctx.db), await companyRows(ctx.db, companyId));
  return {
    companyId,
    companyName: company.name,
    items: merged.slice(0, limit).map((row) => ({ ...toPriceItem(row), source: row.source })),
    total: merged.length,
  };
}

/** POST /api/admin/pricing/company/{id}/seed {overwrite}: the defaults copied as the company's own; without overwrite its own amounts stay. */
export async function seedCompanyPrices(ctx: Ctx, companyId: string, overwrite: boolean): Promise<{ ok: true; message: string; copied: number; kept: number }> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const company = await getOpenCompany(tx, companyId);
    const defaults = await defaultRows(tx);
    if (defaults.length === 0) throw conflict('There are no default prices to copy. Add the default prices first.');
    const own = new Map((await companyRows(tx, companyId)).map((row) => [row.key, row]));
    let copied = 0;
    let kept = 0;
    for (const row of defaults) {
      const mine = own.get(row.key);
      const values = {
        label: row.label,
        amountCents: row.amountCents,
        unit: row.unit,
        feeKind: row.feeKind,
        position: row.position,
        updatedAt: new Date(),
        updatedBy: ctx.user?.id ?? null,
      };
      if (!mine) {
        await tx.insert(priceItems).values({ companyId, key: row.key, ...values });
        copied += 1;
      } else if (overwrite) {
        await tx.update(priceItems).set(values).where(eq(priceItems.id, mine.id));
        copied += 1;
      } else {
        kept += 1;
      }
    }
    assertWithinCaps(mergePrices(defaults, await companyRows(tx, companyId)), `The prices of ${toSingleLine(company.name)}`);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.company_seeded', data: { companyId, companyName: company.name, copied, kept, overwrite } });
    const name = toSingleLine(company.name);
    const message =
      kept === 0
        ? `${name} now has its own copy of the ${copied === 1 ? 'default price' : `${copied} default prices`}.`
        : `${copied === 0 ? 'No default price was copied' : `${copied === 1 ? '1 default price was' : `${copied} default prices were`} copied`}; ${name} kept ${kept === 1 ? '1 price' : `${kept} prices`} of its own.`;
    return { ok: true as const, message, copied, kept };
  });
}

/**
 * PUT /api/admin/pricing/company/{id}/items/{key}: the company's own amount (and label, unit or
 * kind) for a key, starting from the default of that key.
 */
export async function setCompanyPrice(ctx: Ctx, companyId: string, key: string, input: UpdateInput): Promise<CompanyPriceItem> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const company = await getOpenCompany(tx, companyId);
    const defaults = await defaultRows(tx);
    const base = defaults.find((row) => row.key === key);
    const [mine] = await tx
      .select()
      .from(priceItems)
      .where(and(eq(priceItems.companyId, companyId), eq(priceItems.key, key)));
    const from = mine ?? base;
    if (!from) throw notFound(`Neither the defaults nor ${toSingleLine(company.name)} have a price with the key ${key}.`);
    const next = {
      label: input.label ?? from.label,
      amountCents: input.amountCents ?? from.amountCents,
      unit: input.unit ?? from.unit,
      feeKind: input.feeKind ?? from.feeKind,
    };
    assertNotarialPerAct(next);
    const stamp = { updatedAt: new Date(), updatedBy: ctx.user?.id ?? null };
    const [row] = mine
      ? await tx
          .update(priceItems)
          .set({ ...next, ...stamp })
          .where(eq(priceItems.id, mine.id))
          .returning()
      : await tx
          .insert(priceItems)
          .values({ companyId, key, ...next, position: base?.position ?? defaults.length, ...stamp })
          .returning();
    if (!row) throw new Error('company price write returned no row');
    assertWithinCaps(mergePrices(defaults, await companyRows(tx, companyId)), `The prices of ${toSingleLine(company.name)}`);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.company_price_set', data: { companyId, companyName: company.name, ...priceFacts(row) } });
    return { ...toPriceItem(row), position: base?.position ?? row.position, source: 'company' };
  });
}

/** DELETE /api/admin/pricing/company/{id}/items/{key}: the company's own amount goes; the default applies again. */
export async function removeCompanyPrice(ctx: Ctx, companyId: string, key: string): Promise<{ ok: true; message: string }> {
  return ctx.db.transaction(async (tx) => {
    await lockPrices(tx);
    const company = await getOpenCompany(tx, companyId);
    const [row] = await tx
      .delete(priceItems)
      .where(and(eq(priceItems.companyId, companyId), eq(priceItems.key, key)))
      .returning();
    if (!row) throw notFound(`${toSingleLine(company.name)} has no price of its own with the key ${key}.`);
    const defaults = await defaultRows(tx);
    assertWithinCaps(mergePrices(defaults, await companyRows(tx, companyId)), `The prices of ${toSingleLine(company.name)}`);
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'pricing.company_price_removed', data: { companyId, companyName: company.name, ...priceFacts(row) } });
    const fallback = defaults.find((item) => item.key === key);
    return {
      ok: true as const,
      message: fallback
        ? `${toSingleLine(company.name)} pays the default for “${toSingleLine(fallback.label)}” again: ${formatCents(fallback.amountCents)}.`
        : `“${toSingleLine(row.label)}” is no longer on the prices of ${toSingleLine(company.name)}.`,
    };
  });
}
