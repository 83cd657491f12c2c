import { z } from 'zod';
import { capsExceededBy } from './fee-caps.ts';
import { singleLineTextSchema } from './text.ts';

/**
 * Price items (decision 047): the platform's defaults and a title company's own list, each item
 * keyed, ordered, in integer cents, counted per job, per act or per person, and either the notary's
 * notarial fee (capped by state law) or a platform fee.
 */
export const priceUnits = ['job', 'act', 'additional_act', 'signer', 'additional_signer', 'witness'] as const;
export type PriceUnit = (typeof priceUnits)[number];
export const priceUnitLabels: Record<PriceUnit, string> = {
  job: 'per job',
  act: 'per notarial act',
  additional_act: 'per notarial act after the first',
  signer: 'per signer',
  additional_signer: 'per signer after the first',
  witness: 'per witness the platform provides',
};

export const feeKinds = ['notarial', 'platform'] as const;
export type FeeKind = (typeof feeKinds)[number];
export const feeKindLabels: Record<FeeKind, string> = {
  notarial: 'Notarial fee (the notary’s, capped by state law)',
  platform: 'Platform fee',
};

/** The most one item may be: $100,000.00. */
export const maxPriceCents = 10_000_000;

/** Whole dollars and cents, written for people: 123456 → "$1,234.56". Integer arithmetic only. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const whole = Math.abs(cents);
  const remainder = whole % 100;
  const dollars = (whole - remainder) / 100;
  return `${sign}$${dollars.toLocaleString('en-US')}.${String(remainder).padStart(2, '0')}`;
}

/**
 * An amount typed by a person ("25", "25.5", "$1,234.56") as whole cents, read from its digits
 * (never through a floating-point number); null when it is not an amount of dollars and cents.
 */
export function parseDollarsToCents(text: string): number | null {
  const match = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const dollars = Number.parseInt((match[1] ?? '0').replace(/,/g, ''), 10);
  const cents = Number.parseInt((match[2] ?? '0').padEnd(2, '0'), 10);
  const total = dollars * 100 + cents;
  return Number.isSafeInteger(total) ? total : null;
}

/**
 * Why a notarial fee of this many cents per act may not be charged, or null. The prices serve
 * notaries of every state, so the fee must fit the cap of each state that has one.
 */
export function notarialFeeRefusal(perActCents: number): string | null {
  const exceeded = capsExceededBy(perActCents);
  if (exceeded.length === 0) return null;
  const caps = exceeded.map((cap) => `${cap.rule} (${cap.citation})`).join('; ');
  return `A notarial fee of ${formatCents(perActCents)} per act is more than state law allows: ${caps}. Charge the rest as a platform fee.`;
}

/** A key names an item in code and exports: lower-case letters, digits and underscores. */
export const priceKeySchema = z
  .string({ message: 'The key must be text.' })
  .trim()
  .regex(/^[a-z][a-z0-9_]{0,47}$/, {
    message: 'The key must start with a letter and hold at most 48 lower-case letters, digits or underscores, like first_seal.',
  });

const amountCentsSchema = z
  .number({ message: 'The amount must be a whole number of cents.' })
  .int({ message: 'The amount must be a whole number of cents.' })
  .min(0, { message: 'The amount cannot be below $0.00.' })
  .max(maxPriceCents, { message: `The amount can be at most ${formatCents(maxPriceCents)}.` });

const priceFields = {
  label: singleLineTextSchema({ label: 'The label', max: 120, requiredMessage: 'Enter a label, like “First seal”.' }),
  amountCents: amountCentsSchema,
  unit: z.enum(priceUnits, { message: 'Choose what the price is counted by: job, act, signer or witness.' }),
  feeKind: z.enum(feeKinds, { message: 'Choose a notarial fee or a platform fee.' }),
};

/** A notarial fee is the notary's fee for an act: it is counted per act. */
const notarialPerAct = (value: { unit?: PriceUnit; feeKind?: FeeKind }) =>
  value.feeKind !== 'notarial' || value.unit === undefined || value.unit === 'act' || value.unit === 'additional_act';
const notarialPerActMessage = { message: 'A notarial fee is charged per notarial act: choose “per notarial act”.', path: ['unit'] };

export const createPriceItemInputSchema = z.object({ key: priceKeySchema, ...priceFields }).refine(notarialPerAct, notarialPerActMessage);
export type CreatePriceItemInput = z.input<typeof createPriceItemInputSchema>;

export const updatePriceItemInputSchema = z
  .object({
    label: priceFields.label.optional(),
    amountCents: amountCentsSchema.optional(),
    unit: priceFields.unit.optional(),
    feeKind: priceFields.feeKind.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { message: 'Nothing to change.' });
export type UpdatePriceItemInput = z.input<typeof updatePriceItemInputSchema>;

/** The most items one price list holds: a reorder names them all in one request. */
export const maxPriceListItems = 200;

export const reorderPriceItemsInputSchema = z.object({
  order: z
    .array(priceKeySchema, { message: 'Send the order as a list of keys.' })
    .min(1, { message: 'Send every key in its new order.' })
    .max(maxPriceListItems, { message: `A price list holds at most ${maxPriceListItems} items.` }),
});

/** The body may be left out: then the company's own amounts are kept. */
export const seedCompanyPricesInputSchema = z.preprocess(
  (body) => body ?? {},
  z.object(
    { overwrite: z.boolean({ message: 'overwrite must be true or false.' }).optional().default(false) },
    { message: 'Send a JSON object, such as {"overwrite": false}.' },
  ),
);

export const priceItemSchema = z.object({
  key: z.string(),
  label: z.string(),
  amountCents: z.number().int(),
  unit: z.enum(priceUnits),
  feeKind: z.enum(feeKinds),
  position: z.number().int(),
  updatedAt: z.string(),
});
export type PriceItem = z.infer<typeof priceItemSchema>;
export const priceListSchema = z.object({ items: z.array(priceItemSchema) });

/** A company's prices: each default key with the company's own amount where it set one. */
export const companyPriceItemSchema = priceItemSchema.extend({ source: z.enum(['company', 'default']) });
export type CompanyPriceItem = z.infer<typeof companyPriceItemSchema>;
export const companyPriceListSchema = z.object({
  companyId: z.string(),
  companyName: z.string(),
  items: z.array(companyPriceItemSchema),
  /** How many items the company and the defaults hold in all (items is cut to limit). */
  total: z.number().int(),
});

export const companyPricesQuerySchema = z.object({
  limit: z.coerce
    .number({ message: 'limit must be a number from 1 to 200.' })
    .int({ message: 'limit must be a number from 1 to 200.' })
    .min(1, { message: 'limit must be a number from 1 to 200.' })
    .max(200, { message: 'limit must be a number from 1 to 200.' })
    .optional()
    .default(200),
});

export const seedCompanyPricesResultSchema = z.object({ ok: z.literal(true), message: z.string(), copied: z.number().int(), kept: z.number().int() });

/** One line of what a completed job was charged. */
export const jobChargeSchema = z.object({
  key: z.string(),
  label: z.string(),
  unit: z.enum(priceUnits),
  feeKind: z.enum(feeKinds),
  quantity: z.number().int(),
  unitAmountCents: z.number().int(),
  amountCents: z.number().int(),
  source: z.enum(['company', 'default']),
});
export type JobCharge = z.infer<typeof jobChargeSchema>;

/** GET /api/jobs/{id}/charges: the lines, the notarial fee apart from the platform's fees, and the total. */
export const jobChargesSchema = z.object({
  jobId: z.string(),
  /** When the charges were made (the job's completion); null while the job is not complete. */
  chargedAt: z.string().nullable(),
  items: z.array(jobChargeSchema),
  notarialFeeCents: z.number().int(),
  platformFeeCents: z.number().int(),
  totalCents: z.number().int(),
});
export type JobCharges = z.infer<typeof jobChargesSchema>;

/** How many of what a price counts, on a job: its notarial acts, signers and witnesses. */
export function priceQuantity(unit: PriceUnit, counts: { acts: number; signers: number; witnesses: number }): number {
  switch (unit) {
    case 'job':
      return 1;
    case 'act':
      return counts.acts;
    case 'additional_act':
      return Math.max(counts.acts - 1, 0);
    case 'signer':
      return counts.signers;
    case 'additional_signer':
      return Math.max(counts.signers - 1, 0);
    case 'witness':
      return counts.witnesses;
  }
}
