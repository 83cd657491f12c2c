import { and, asc, eq } from 'drizzle-orm';
import { priceQuantity, type JobCharge, type JobCharges } from '#shared/pricing.ts';
import { hasAnyRole } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobCharges, jobParticipants, jobs } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { gatherJobCharges, seesCompanyPrices } from '#server/features/billing/invoices.service.ts';
import { completionPrices, effectivePrices, noShowPriceKey } from './pricing.service.ts';

type ChargeRow = typeof jobCharges.$inferSelect;

const toCharge = (row: ChargeRow): JobCharge => ({
  key: row.key,
  label: row.label,
  unit: row.unit,
  feeKind: row.feeKind,
  quantity: row.quantity,
  unitAmountCents: row.unitAmountCents,
  amountCents: row.amountCents,
  source: row.priceSource,
});

/** The notarial fee apart from the platform's fees, and the total: each the sum of its lines, in integer cents. */
export function sumCharges(items: Array<Pick<JobCharge, 'feeKind' | 'amountCents'>>) {
  const notarialFeeCents = items.filter((item) => item.feeKind === 'notarial').reduce((sum, item) => sum + item.amountCents, 0);
  const platformFeeCents = items.filter((item) => item.feeKind === 'platform').reduce((sum, item) => sum + item.amountCents, 0);
  return { notarialFeeCents, platformFeeCents, totalCents: notarialFeeCents + platformFeeCents };
}

/**
 * Writes what a job completing now is charged, in the transaction that completes it: one line per
 * price item but the no-show one (the company's own amount where it has one, else the default) that
 * counts something on this job: its notarial acts (none when the output is not a notarial act), signers, witnesses.
 */
export async function recordJobCharges(
  ctx: Pick<Ctx, 'user' | 'ipAddress' | 'userAgent'> & { db: DbOrTx },
  job: { id: string; companyId: string | null },
  notarialActs: number,
): Promise<JobCharge[]> {
  const prices = await completionPrices(ctx.db, job.companyId);
  const people = await ctx.db.select({ role: jobParticipants.role }).from(jobParticipants).where(eq(jobParticipants.jobId, job.id));
  const counts = {
    acts: notarialActs,
    signers: people.filter((person) => person.role === 'signer').length,
    witnesses: people.filter((person) => person.role === 'witness').length,
  };
  const lines = prices
    .map((price) => ({ price, quantity: priceQuantity(price.unit, counts) }))
    .filter(({ quantity }) => quantity > 0)
    .map(({ price, quantity }, position) => ({
      jobId: job.id,
      companyId: job.companyId,
      key: price.key,
      label: price.label,
      unit: price.unit,
      feeKind: price.feeKind,
      quantity,
      unitAmountCents: price.amountCents,
      amountCents: quantity * price.amountCents,
      priceSource: price.source,
      position,
    }));
  if (lines.length === 0) return [];
  const rows = await ctx.db.insert(jobCharges).values(lines).returning();
  const items = rows.sort((a, b) => a.position - b.position).map(toCharge);
  const totals = sumCharges(items);
  await appendAuditEvent(ctx, { jobId: job.id, action: 'job.charged', data: { ...totals, lineCount: items.length, companyId: job.companyId } });
  // A company's charges go on its draft invoice of the month at once (decision 049).
  await gatherJobCharges(ctx.db, job);
  return items;
}

/**
 * A job cancelled because nobody came to its session: one line of the `no_show` price (the company's
 * own amount where it has one, else the default), in the cancelling transaction, onto the company's
 * draft at once. Nothing when the prices have no such item. The line, or null.
 */
export async function recordNoShowCharge(
  ctx: Pick<Ctx, 'user' | 'ipAddress' | 'userAgent'> & { db: DbOrTx },
  job: { id: string; companyId: string | null },
): Promise<JobCharge | null> {
  const prices = await effectivePrices(ctx.db, job.companyId);
  const price = prices.find((item) => item.key === noShowPriceKey);
  if (!price) return null;
  const [row] = await ctx.db
    .insert(jobCharges)
    .values({
      jobId: job.id,
      companyId: job.companyId,
      key: price.key,
      label: price.label,
      unit: 'job',
      feeKind: price.feeKind,
      quantity: 1,
      unitAmountCents: price.amountCents,
      amountCents: price.amountCents,
      priceSource: price.source,
      position: 0,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) return null;
  const item = toCharge(row);
  await appendAuditEvent(ctx, { jobId: job.id, action: 'job.charged', data: { ...sumCharges([item]), lineCount: 1, companyId: job.companyId, noShow: true } });
  await gatherJobCharges(ctx.db, job);
  return item;
}

/**
 * GET /api/jobs/{id}/charges: administrators, billing and finance read any job's; a title company's
 * staff read their own company's jobs', and its agents when it lets them. Notaries and participants are refused (404).
 */
export async function findJobCharges(ctx: Ctx, jobId: string): Promise<JobCharges> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const hidden = () => notFound('No job with that id, or you may not see its charges.');
  const [job] = await ctx.db.select({ id: jobs.id, companyId: jobs.companyId, status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
  if (!job) throw hidden();
  if (!hasAnyRole(user, ['admin', 'billing', 'finance'])) {
    if (!job.companyId || !(await seesCompanyPrices(ctx.db, job.companyId, user.id))) throw hidden();
  }
  const rows = await ctx.db.select().from(jobCharges).where(eq(jobCharges.jobId, jobId)).orderBy(asc(jobCharges.position));
  const items = rows.map(toCharge);
  return { jobId, chargedAt: rows[0]?.createdAt.toISOString() ?? null, items, ...sumCharges(items) };
}

/**
 * The notarial fee a completed job was charged for its n-th notarial act (0-based): the per-act
 * lines, plus the per-further-act lines after the first; null when the job was charged no notarial
 * fee (no price applied, or not a notarial act) or n is not one of its acts.
 */
export async function findNotarialFeePerAct(db: DbOrTx, jobId: string): Promise<(actIndex: number) => number | null> {
  const lines = await db
    .select({ unit: jobCharges.unit, quantity: jobCharges.quantity, unitAmountCents: jobCharges.unitAmountCents })
    .from(jobCharges)
    .where(and(eq(jobCharges.jobId, jobId), eq(jobCharges.feeKind, 'notarial')));
  if (lines.length === 0) return () => null;
  // A per-act line counts every act; a per-further-act line all but the first.
  const acts = Math.max(...lines.map((line) => (line.unit === 'act' ? line.quantity : line.quantity + 1)));
  const everyAct = lines.filter((line) => line.unit === 'act').reduce((sum, line) => sum + line.unitAmountCents, 0);
  const furtherAct = lines.filter((line) => line.unit === 'additional_act').reduce((sum, line) => sum + line.unitAmountCents, 0);
  return (actIndex) => (actIndex < 0 || actIndex >= acts ? null : everyAct + (actIndex > 0 ? furtherAct : 0));
}
