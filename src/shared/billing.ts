import { z } from 'zod';
import { feeKinds, priceUnits } from './pricing.ts';
import { plainTextSchema, searchTextSchema, singleLineTextSchema } from './text.ts';

/**
 * Invoices (decision 049): a title company's completed jobs' charges, gathered per calendar month
 * (UTC) on a draft, issued with a number and a due date, then paid or voided with a reason.
 */

export const invoiceStatuses = ['draft', 'issued', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof invoiceStatuses)[number];

/** The filters of the pending page: a status, or `overdue` (issued and past its due date). */
export const invoiceFilters = ['draft', 'issued', 'overdue', 'paid', 'void'] as const;
export type InvoiceFilter = (typeof invoiceFilters)[number];

export const invoiceStatusLabels: Record<InvoiceStatus, string> = { draft: 'Draft', issued: 'Issued', paid: 'Paid', void: 'Void' };

/** Days from issue to due date. */
export const invoicePaymentTermDays = 30;

/** A billing period: a calendar month, `YYYY-MM`. */
export const billingPeriodSchema = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'The period is a month, written as YYYY-MM (for example 2026-11).' })
  .refine((value) => Number(value.slice(0, 4)) >= 2000 && Number(value.slice(0, 4)) <= 2999, { message: 'The period must be a month from 2000 to 2999.' });

/** The first instant of a period and of the next one, in UTC. */
export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

/** The period (`YYYY-MM`, UTC) an instant falls in. */
export function periodOf(instant: Date): string {
  return `${instant.getUTCFullYear()}-${String(instant.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** "November 2026" for `2026-11`. */
export function formatPeriod(period: string, locale = 'en-US'): string {
  const { start } = periodBounds(period);
  return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(start);
}

/** An invoice in a list. Amounts in integer cents; dates as ISO strings (the pages print them as people read them). */
export const invoiceSummarySchema = z.object({
  id: z.string(),
  number: z.string().nullable(),
  companyId: z.string(),
  companyName: z.string(),
  period: z.string(),
  status: z.enum(invoiceStatuses),
  isOverdue: z.boolean(),
  jobCount: z.number().int(),
  notarialFeeCents: z.number().int(),
  platformFeeCents: z.number().int(),
  totalCents: z.number().int(),
  issuedAt: z.string().nullable(),
  dueAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  voidedAt: z.string().nullable(),
});
export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

export const invoiceListSchema = z.object({
  items: z.array(invoiceSummarySchema),
  /** Every invoice the filter matches, not only this page: how many, and their amount. */
  count: z.number().int(),
  totalCents: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type InvoiceList = z.infer<typeof invoiceListSchema>;

const pageQuery = z.coerce
  .number({ message: 'page must be a whole number from 1.' })
  .int({ message: 'page must be a whole number from 1.' })
  .min(1, { message: 'page must be a whole number from 1.' })
  .max(100_000, { message: 'page must be a whole number from 1 to 100000.' })
  .optional()
  .default(1);

export const invoiceListQuerySchema = z.object({
  status: z.enum(invoiceFilters, { message: `status is one of: ${invoiceFilters.join(', ')}.` }).optional(),
  q: searchTextSchema(200).optional(),
  page: pageQuery,
});
export type InvoiceListQuery = z.infer<typeof invoiceListQuerySchema>;

export const companyInvoicesQuerySchema = z.object({ page: pageQuery });

/** GET /api/billing/companies/{id}/invoices: a page of one company's invoices, and what it owes. */
export const companyInvoicesSchema = z.object({
  company: z.object({ id: z.string(), name: z.string() }),
  items: z.array(invoiceSummarySchema),
  count: z.number().int(),
  totalCents: z.number().int(),
  owedCents: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** GET /api/billing/company: the companies whose title staff the signed-in person is. */
export const ownBillingCompaniesSchema = z.object({ companies: z.array(z.object({ id: z.string(), name: z.string() })) });

/** One charge line on an invoice, under its job. */
export const invoiceLineSchema = z.object({
  label: z.string(),
  unit: z.enum(priceUnits),
  feeKind: z.enum(feeKinds),
  quantity: z.number().int(),
  unitAmountCents: z.number().int(),
  amountCents: z.number().int(),
});

export const invoiceJobSchema = z.object({
  jobId: z.string(),
  title: z.string(),
  chargedAt: z.string(),
  lines: z.array(invoiceLineSchema),
  totalCents: z.number().int(),
});
export type InvoiceJob = z.infer<typeof invoiceJobSchema>;

/** The party an invoice is addressed to, as it was when the invoice was issued (or is now, on a draft). */
export const billedToSchema = z.object({
  name: z.string(),
  addressLine: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  contactEmail: z.string().nullable(),
  phone: z.string().nullable(),
});
export type BilledTo = z.infer<typeof billedToSchema>;

export const invoiceDetailSchema = invoiceSummarySchema.extend({
  billedTo: billedToSchema,
  issuedByName: z.string().nullable(),
  paidByName: z.string().nullable(),
  paymentReference: z.string().nullable(),
  voidedByName: z.string().nullable(),
  voidReason: z.string().nullable(),
  /** The jobs of this page of the invoice, in the order they were charged. */
  jobs: z.array(invoiceJobSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** What the signed-in person may do with it now. */
  canIssue: z.boolean(),
  canMarkPaid: z.boolean(),
  canVoid: z.boolean(),
});
export type InvoiceDetail = z.infer<typeof invoiceDetailSchema>;

export const generateInvoicesInputSchema = z.object({ period: billingPeriodSchema });
export const generateInvoicesResultSchema = z.object({
  ok: z.literal(true),
  message: z.string(),
  period: z.string(),
  companies: z.number().int(),
  charges: z.number().int(),
});

/** How a payment is found again: a check number, a transfer reference. */
export const paymentReferenceSchema = singleLineTextSchema({ label: 'The payment reference', max: 200 });

/** The reference is optional, and so is the body: a POST without one (Fastify reads it as null) is a payment without a reference. */
export const markInvoicePaidInputSchema = z
  .object({
    reference: paymentReferenceSchema.optional(),
  })
  .nullish()
  .transform((body) => body ?? {});

export const voidInvoiceInputSchema = z.object({
  reason: plainTextSchema({ label: 'The reason', max: 500 }).refine((value) => value.length >= 3, { message: 'Say in a few words why the invoice is void.' }),
});

/** Totals of a set of lines, each the sum of its parts, in integer cents. */
export function sumLines(lines: Array<{ feeKind: 'notarial' | 'platform'; amountCents: number }>) {
  let notarialFeeCents = 0;
  let platformFeeCents = 0;
  for (const line of lines) {
    if (line.feeKind === 'notarial') notarialFeeCents += line.amountCents;
    else platformFeeCents += line.amountCents;
  }
  return { notarialFeeCents, platformFeeCents, totalCents: notarialFeeCents + platformFeeCents };
}
