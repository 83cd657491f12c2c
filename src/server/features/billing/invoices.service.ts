import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lt, ne, or, sql, type SQL } from 'drizzle-orm';
import {
  invoicePaymentTermDays,
  periodBounds,
  periodOf,
  type BilledTo,
  type InvoiceDetail,
  type InvoiceFilter,
  type InvoiceJob,
  type InvoiceList,
  type InvoiceSummary,
} from '#shared/billing.ts';
import { hasAnyRole } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invoices, jobCharges, jobs, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';

/** Who reads every company's invoices and issues them. */
export const billingStaff = ['admin', 'billing', 'finance'] as const;
/** Who marks an invoice paid or void. */
export const paymentStaff = ['admin', 'finance'] as const;

export const invoicePageSize = 50;
/** Jobs shown per page of one invoice. */
export const invoiceJobsPageSize = 100;

type InvoiceRow = typeof invoices.$inferSelect;

const iso = (value: Date | null) => (value ? value.toISOString() : null);
const isOverdue = (row: Pick<InvoiceRow, 'status' | 'dueAt'>, now = new Date()) => row.status === 'issued' && row.dueAt !== null && row.dueAt < now;
const hiddenInvoice = () => notFound('No invoice with that id, or you may not see it.');

function toSummary(row: InvoiceRow, companyName: string): InvoiceSummary {
  return {
    id: row.id,
    number: row.number,
    companyId: row.companyId,
    companyName,
    period: row.periodStart.slice(0, 7),
    status: row.status,
    isOverdue: isOverdue(row),
    jobCount: row.jobCount,
    notarialFeeCents: row.notarialFeeCents,
    platformFeeCents: row.platformFeeCents,
    totalCents: row.totalCents,
    issuedAt: iso(row.issuedAt),
    dueAt: iso(row.dueAt),
    paidAt: iso(row.paidAt),
    voidedAt: iso(row.voidedAt),
  };
}

/**
 * Whether the person sees the company's prices, charges and invoices as one of its own: its `title`
 * staff always, its agents when the company lets them (`agents_see_prices`, decision 049).
 */
export async function seesCompanyPrices(db: DbOrTx, companyId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ role: titleCompanyMembers.role, agentsSeePrices: titleCompanies.agentsSeePrices })
    .from(titleCompanyMembers)
    .innerJoin(titleCompanies, eq(titleCompanies.id, titleCompanyMembers.companyId))
    .where(and(eq(titleCompanyMembers.companyId, companyId), eq(titleCompanyMembers.userId, userId)))
    .limit(1);
  return row !== undefined && (row.role === 'title' || row.agentsSeePrices);
}

/** Billing staff see every invoice; a company's own people (seesCompanyPrices) see their company's once issued (never its drafts). */
async function canReadCompanyBilling(ctx: Ctx, companyId: string): Promise<'staff' | 'company' | null> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (hasAnyRole(user, billingStaff)) return 'staff';
  if (hasAnyRole(user, ['title', 'title_agent']) && (await seesCompanyPrices(ctx.db, companyId, user.id))) return 'company';
  return null;
}

/** Sets an invoice's totals and job count to the sums of the lines on it. */
async function recomputeTotals(db: DbOrTx, invoiceId: string): Promise<void> {
  await db.execute(sql`
    update ${invoices} set
      notarial_fee_cents = sums.notarial,
      platform_fee_cents = sums.platform,
      total_cents = sums.notarial + sums.platform,
      job_count = sums.jobs,
      updated_at = now()
    from (
      select
        coalesce(sum(${jobCharges.amountCents}) filter (where ${jobCharges.feeKind} = 'notarial'), 0)::bigint as notarial,
        coalesce(sum(${jobCharges.amountCents}) filter (where ${jobCharges.feeKind} = 'platform'), 0)::bigint as platform,
        count(distinct ${jobCharges.jobId})::int as jobs
      from ${jobCharges} where ${jobCharges.invoiceId} = ${invoiceId}
    ) as sums
    where ${invoices.id} = ${invoiceId}`);
}

/**
 * Puts a company's charges of a month that are on no invoice onto its draft for that month,
 * opening the draft when there is none, and sets the draft's totals. In the caller's transaction:
 * the completion of a job calls it for its own charges, the monthly run for every company.
 * The number of charges gathered.
 */
export async function gatherCharges(db: DbOrTx, companyId: string, period: string): Promise<number> {
  const { start, end } = periodBounds(period);
  const open = and(eq(jobCharges.companyId, companyId), isNull(jobCharges.invoiceId), gte(jobCharges.createdAt, start), lt(jobCharges.createdAt, end));
  const [waiting] = await db.select({ n: count() }).from(jobCharges).where(open);
  if (!waiting || waiting.n === 0) return 0;
  const periodStart = `${period}-01`;
  // The draft found may be issued by another transaction while this one waits for its lock: it is then
  // no draft any more, and a new one is opened beside it (the issue has committed, so the insert succeeds).
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await db.execute(
      sql`insert into ${invoices} (company_id, period_start) values (${companyId}, ${periodStart}) on conflict (company_id, period_start) where status = 'draft' do nothing`,
    );
    const [draft] = await db
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.companyId, companyId), eq(invoices.periodStart, periodStart), eq(invoices.status, 'draft')))
      .for('update');
    if (!draft) continue;
    const gathered = await db.update(jobCharges).set({ invoiceId: draft.id }).where(open).returning({ id: jobCharges.id });
    await recomputeTotals(db, draft.id);
    return gathered.length;
  }
  throw conflict('The draft invoice of that month kept changing while its charges were gathered. Please try again.');
}

/**
 * A job's charges just recorded at completion go on its company's draft of the month they were
 * written in: their own time (the completion transaction's start), not the moment they are gathered,
 * which may fall in the next month.
 */
export async function gatherJobCharges(db: DbOrTx, job: { id?: string; companyId: string | null }, chargedAt = new Date()): Promise<void> {
  const { companyId } = job;
  if (!companyId) return;
  const periods = new Set<string>();
  if (job.id) {
    const waiting = await db
      .select({ createdAt: jobCharges.createdAt })
      .from(jobCharges)
      .where(and(eq(jobCharges.jobId, job.id), eq(jobCharges.companyId, companyId), isNull(jobCharges.invoiceId)));
    for (const row of waiting) periods.add(periodOf(row.createdAt));
  } else periods.add(periodOf(chargedAt));
  for (const period of [...periods].sort()) await gatherCharges(db, companyId, period);
}

/**
 * POST /api/billing/invoices/generate: every company's charges of the month on no invoice yet go
 * on its draft, a company at a time, each in its own short transaction, so a large month neither
 * holds the database nor memory.
 */
export async function generateInvoices(ctx: Ctx, period: string) {
  const { start, end } = periodBounds(period);
  const companies = await ctx.db
    .selectDistinct({ companyId: jobCharges.companyId })
    .from(jobCharges)
    .where(and(isNull(jobCharges.invoiceId), gte(jobCharges.createdAt, start), lt(jobCharges.createdAt, end), sql`${jobCharges.companyId} is not null`));
  let charges = 0;
  let touched = 0;
  for (const { companyId } of companies) {
    if (!companyId) continue;
    const gathered = await ctx.db.transaction((tx) => gatherCharges(tx, companyId, period));
    charges += gathered;
    if (gathered > 0) touched += 1;
  }
  await appendAuditEvent(ctx, { action: 'invoice.generated', data: { period, companies: touched, charges } });
  const message =
    charges === 0
      ? 'Every charge of that month is already on an invoice.'
      : `${charges === 1 ? 'One charge' : `${charges} charges`} went onto the drafts of ${touched === 1 ? 'one company' : `${touched} companies`}.`;
  return { ok: true as const, message, period, companies: touched, charges };
}

function listConditions(filter: InvoiceFilter | undefined, q: string | undefined): SQL | undefined {
  const parts: Array<SQL | undefined> = [];
  if (filter === 'overdue') parts.push(and(eq(invoices.status, 'issued'), lt(invoices.dueAt, new Date())));
  else if (filter) parts.push(eq(invoices.status, filter));
  const text = q?.trim();
  if (text) {
    const pattern = `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    parts.push(or(ilike(titleCompanies.name, pattern), ilike(invoices.number, pattern)));
  }
  return and(...parts);
}

/** GET /api/billing/invoices: billing staff; a page of invoices, with the count and amount of all that match. */
export async function listInvoices(ctx: Ctx, query: { status?: InvoiceFilter | undefined; q?: string | undefined; page: number }): Promise<InvoiceList> {
  const where = listConditions(query.status, query.q);
  const [totals] = await ctx.db
    .select({ n: count(), cents: sql<string>`coalesce(sum(${invoices.totalCents}), 0)` })
    .from(invoices)
    .innerJoin(titleCompanies, eq(titleCompanies.id, invoices.companyId))
    .where(where);
  const rows = await ctx.db
    .select({ invoice: invoices, companyName: titleCompanies.name })
    .from(invoices)
    .innerJoin(titleCompanies, eq(titleCompanies.id, invoices.companyId))
    .where(where)
    .orderBy(
      query.status === 'issued' || query.status === 'overdue' ? asc(invoices.dueAt) : desc(invoices.periodStart),
      asc(titleCompanies.name),
      asc(invoices.id),
    )
    .limit(invoicePageSize)
    .offset((query.page - 1) * invoicePageSize);
  return {
    items: rows.map((row) => toSummary(row.invoice, row.companyName)),
    count: totals?.n ?? 0,
    totalCents: Number(totals?.cents ?? 0),
    page: query.page,
    pageSize: invoicePageSize,
  };
}

/**
 * GET /api/billing/companies/{id}/invoices: one company's invoices, newest month first. Billing staff
 * see its drafts too; the company's own title staff see what was issued to them.
 */
export async function listCompanyInvoices(ctx: Ctx, companyId: string, page: number) {
  const reader = await canReadCompanyBilling(ctx, companyId);
  if (!reader) throw notFound('No title company with that id, or you may not see its invoices.');
  const [company] = await ctx.db.select({ id: titleCompanies.id, name: titleCompanies.name }).from(titleCompanies).where(eq(titleCompanies.id, companyId));
  if (!company) throw notFound('No title company with that id, or you may not see its invoices.');
  const where = and(eq(invoices.companyId, companyId), reader === 'company' ? ne(invoices.status, 'draft') : undefined);
  const [totals] = await ctx.db
    .select({
      n: count(),
      cents: sql<string>`coalesce(sum(${invoices.totalCents}), 0)`,
      owed: sql<string>`coalesce(sum(${invoices.totalCents}) filter (where ${invoices.status} = 'issued'), 0)`,
    })
    .from(invoices)
    .where(where);
  const rows = await ctx.db
    .select()
    .from(invoices)
    .where(where)
    .orderBy(desc(invoices.periodStart), desc(invoices.createdAt))
    .limit(invoicePageSize)
    .offset((page - 1) * invoicePageSize);
  return {
    company,
    items: rows.map((row) => toSummary(row, company.name)),
    count: totals?.n ?? 0,
    totalCents: Number(totals?.cents ?? 0),
    owedCents: Number(totals?.owed ?? 0),
    page,
    pageSize: invoicePageSize,
  };
}

/** GET /api/billing/company: the companies whose invoices the signed-in person sees as their own (seesCompanyPrices). */
export async function findOwnBillingCompany(ctx: Ctx) {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const rows = await ctx.db
    .select({ id: titleCompanies.id, name: titleCompanies.name })
    .from(titleCompanyMembers)
    .innerJoin(titleCompanies, eq(titleCompanies.id, titleCompanyMembers.companyId))
    .where(and(eq(titleCompanyMembers.userId, user.id), or(eq(titleCompanyMembers.role, 'title'), eq(titleCompanies.agentsSeePrices, true))))
    .orderBy(asc(titleCompanies.name));
  return { companies: rows };
}

function billedToOf(company: typeof titleCompanies.$inferSelect): BilledTo {
  return {
    name: company.name,
    addressLine: company.addressLine,
    city: company.city,
    state: company.state,
    contactEmail: company.contactEmail,
    phone: company.phone,
  };
}

/** The invoice and who may see it (throws 404 for anyone else, and for a company's staff on a draft). */
async function readableInvoice(ctx: Ctx, invoiceId: string) {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const [found] = await ctx.db
    .select({ invoice: invoices, company: titleCompanies })
    .from(invoices)
    .innerJoin(titleCompanies, eq(titleCompanies.id, invoices.companyId))
    .where(eq(invoices.id, invoiceId));
  if (!found) throw hiddenInvoice();
  const reader = await canReadCompanyBilling(ctx, found.invoice.companyId);
  if (!reader || (reader === 'company' && found.invoice.status === 'draft')) throw hiddenInvoice();
  return found;
}

/** The jobs of an invoice with their lines, in the order they were charged: a page, or all (for the PDF and CSV). */
export async function readInvoiceJobs(db: DbOrTx, invoiceId: string, page: { offset: number; limit: number } | null): Promise<InvoiceJob[]> {
  const jobPage = db
    .select({ jobId: jobCharges.jobId, chargedAt: sql<Date>`min(${jobCharges.createdAt})`.mapWith((value) => new Date(value as string)) })
    .from(jobCharges)
    .where(eq(jobCharges.invoiceId, invoiceId))
    .groupBy(jobCharges.jobId)
    .orderBy(sql`min(${jobCharges.createdAt})`, asc(jobCharges.jobId));
  const jobRows = page ? await jobPage.limit(page.limit).offset(page.offset) : await jobPage;
  if (jobRows.length === 0) return [];
  const ids = jobRows.map((row) => row.jobId);
  const titles = new Map(
    (await db.select({ id: jobs.id, title: jobs.title }).from(jobs).where(inArray(jobs.id, ids))).map((row) => [row.id, row.title] as const),
  );
  const lines = await db
    .select()
    .from(jobCharges)
    .where(and(eq(jobCharges.invoiceId, invoiceId), inArray(jobCharges.jobId, ids)))
    .orderBy(asc(jobCharges.position));
  return jobRows.map((row) => {
    const own = lines.filter((line) => line.jobId === row.jobId);
    return {
      jobId: row.jobId,
      title: titles.get(row.jobId) ?? 'A job',
      chargedAt: row.chargedAt.toISOString(),
      lines: own.map((line) => ({
        label: line.label,
        unit: line.unit,
        feeKind: line.feeKind,
        quantity: line.quantity,
        unitAmountCents: line.unitAmountCents,
        amountCents: line.amountCents,
      })),
      totalCents: own.reduce((sum, line) => sum + line.amountCents, 0),
    };
  });
}

async function nameOf(db: DbOrTx, userId: string | null): Promise<string | null> {
  if (!userId) return null;
  const [row] = await db.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return row?.name ?? null;
}

/** GET /api/billing/invoices/{id}: the invoice, a page of its jobs with their lines, and what the reader may do with it. */
export async function getInvoice(ctx: Ctx, invoiceId: string, page = 1): Promise<InvoiceDetail> {
  const { invoice, company } = await readableInvoice(ctx, invoiceId);
  const user = ctx.user!;
  const jobsOnPage = await readInvoiceJobs(ctx.db, invoiceId, { offset: (page - 1) * invoiceJobsPageSize, limit: invoiceJobsPageSize });
  return {
    ...toSummary(invoice, company.name),
    billedTo: invoice.billedTo ?? billedToOf(company),
    issuedByName: await nameOf(ctx.db, invoice.issuedBy),
    paidByName: await nameOf(ctx.db, invoice.paidBy),
    paymentReference: invoice.paymentReference,
    voidedByName: await nameOf(ctx.db, invoice.voidedBy),
    voidReason: invoice.voidReason,
    jobs: jobsOnPage,
    page,
    pageSize: invoiceJobsPageSize,
    canIssue: invoice.status === 'draft' && invoice.jobCount > 0 && hasAnyRole(user, billingStaff) && company.closedAt === null,
    canMarkPaid: invoice.status === 'issued' && hasAnyRole(user, paymentStaff),
    canVoid: invoice.status === 'issued' && hasAnyRole(user, paymentStaff),
  };
}

/** The invoice row locked for a change, with its company; 404 when there is none. */
async function lockInvoice(tx: DbOrTx, invoiceId: string) {
  const [found] = await tx
    .select({ invoice: invoices, company: titleCompanies })
    .from(invoices)
    .innerJoin(titleCompanies, eq(titleCompanies.id, invoices.companyId))
    .where(eq(invoices.id, invoiceId))
    .for('update', { of: invoices });
  if (!found) throw hiddenInvoice();
  return found;
}

const auditFacts = (row: InvoiceRow, companyName: string) => ({
  invoiceId: row.id,
  number: row.number,
  companyId: row.companyId,
  companyName,
  period: row.periodStart.slice(0, 7),
  totalCents: row.totalCents,
});

/**
 * The next number of the year, under a lock so two issues never take the same one. The highest
 * sequence is read as a number: as text, `2026-999999` sorts after `2026-1000000`.
 */
async function nextInvoiceNumber(tx: DbOrTx, year: number): Promise<string> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('invoice_numbers'))`);
  const [last] = await tx
    .select({ sequence: sql<string | null>`max(substring(${invoices.number} from 6)::bigint)` })
    .from(invoices)
    .where(sql`${invoices.number} ~ ${`^${year}-[0-9]+$`}`);
  const sequence = last?.sequence ? Number(last.sequence) + 1 : 1;
  return `${year}-${String(sequence).padStart(6, '0')}`;
}

/** POST /api/billing/invoices/{id}/issue: a draft with charges gets its number, due date and the company's details of today. */
export async function issueInvoice(ctx: Ctx, invoiceId: string): Promise<InvoiceDetail> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!hasAnyRole(user, billingStaff)) throw forbidden('Only administrators, billing and finance staff issue invoices.');
  await ctx.db.transaction(async (tx) => {
    const { invoice, company } = await lockInvoice(tx, invoiceId);
    if (invoice.status !== 'draft') throw conflict(`This invoice is already ${invoice.status === 'void' ? 'void' : invoice.status}.`);
    if (invoice.jobCount === 0) throw conflict('This draft has no charges to invoice yet.');
    if (company.closedAt) throw conflict(`${company.name} is closed; its invoices can no longer be issued.`);
    const now = new Date();
    const number = await nextInvoiceNumber(tx, now.getUTCFullYear());
    const dueAt = new Date(now.getTime() + invoicePaymentTermDays * 24 * 60 * 60 * 1000);
    const [updated] = await tx
      .update(invoices)
      .set({ status: 'issued', number, issuedAt: now, issuedBy: user.id, dueAt, billedTo: billedToOf(company), updatedAt: now })
      .where(eq(invoices.id, invoiceId))
      .returning();
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'invoice.issued', data: auditFacts(updated!, company.name) });
    await queueWebhookEvent(tx, company.id, 'invoice.issued', {
      invoiceId,
      number,
      period: updated!.periodStart.slice(0, 7),
      totalCents: updated!.totalCents,
      issuedAt: now.toISOString(),
      dueAt: dueAt.toISOString(),
    });
  });
  return getInvoice(ctx, invoiceId);
}

/** POST /api/billing/invoices/{id}/pay: an issued invoice is paid; finance and administrators only. */
export async function markInvoicePaid(ctx: Ctx, invoiceId: string, reference: string | undefined): Promise<InvoiceDetail> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!hasAnyRole(user, paymentStaff)) throw forbidden('Only finance staff and administrators mark invoices paid.');
  await ctx.db.transaction(async (tx) => {
    const { invoice, company } = await lockInvoice(tx, invoiceId);
    if (invoice.status === 'paid') throw conflict('This invoice is already paid.');
    if (invoice.status !== 'issued') throw conflict(invoice.status === 'draft' ? 'Issue this draft before marking it paid.' : 'A void invoice cannot be paid.');
    const now = new Date();
    const [updated] = await tx
      .update(invoices)
      .set({ status: 'paid', paidAt: now, paidBy: user.id, paymentReference: reference?.trim() || null, updatedAt: now })
      .where(eq(invoices.id, invoiceId))
      .returning();
    await appendAuditEvent(
      { ...ctx, db: tx },
      { action: 'invoice.paid', data: { ...auditFacts(updated!, company.name), reference: reference?.trim() || null } },
    );
  });
  return getInvoice(ctx, invoiceId);
}

/**
 * POST /api/billing/invoices/{id}/void {reason}: an issued invoice is void; finance and
 * administrators only. Its charges leave it and go back on the company's draft of that month, to
 * be invoiced again.
 */
export async function voidInvoice(ctx: Ctx, invoiceId: string, reason: string): Promise<InvoiceDetail> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!hasAnyRole(user, paymentStaff)) throw forbidden('Only finance staff and administrators void invoices.');
  await ctx.db.transaction(async (tx) => {
    const { invoice, company } = await lockInvoice(tx, invoiceId);
    if (invoice.status === 'void') throw conflict('This invoice is already void.');
    if (invoice.status === 'paid') throw conflict('A paid invoice cannot be voided.');
    if (invoice.status === 'draft') throw conflict('A draft is not void: it is issued when it is ready.');
    const now = new Date();
    const [updated] = await tx
      .update(invoices)
      .set({ status: 'void', voidedAt: now, voidedBy: user.id, voidReason: reason, updatedAt: now })
      .where(eq(invoices.id, invoiceId))
      .returning();
    await tx.update(jobCharges).set({ invoiceId: null }).where(eq(jobCharges.invoiceId, invoiceId));
    await gatherCharges(tx, invoice.companyId, invoice.periodStart.slice(0, 7));
    // The audit's lock is taken last: an issue of the month's draft holds the draft, then asks for it.
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'invoice.voided', data: { ...auditFacts(updated!, company.name), reason } });
  });
  return getInvoice(ctx, invoiceId);
}

/** The whole invoice for a download: every job, and the reader checked as for GET. */
export async function readWholeInvoice(ctx: Ctx, invoiceId: string) {
  const { invoice, company } = await readableInvoice(ctx, invoiceId);
  return {
    summary: toSummary(invoice, company.name),
    billedTo: invoice.billedTo ?? billedToOf(company),
    paymentReference: invoice.paymentReference,
    voidReason: invoice.voidReason,
    jobs: await readInvoiceJobs(ctx.db, invoiceId, null),
  };
}
export type WholeInvoice = Awaited<ReturnType<typeof readWholeInvoice>>;
