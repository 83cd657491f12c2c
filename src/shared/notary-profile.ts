import { z } from 'zod';
import { isCalendarDay } from './dates.ts';
import { notaryCertificateSchema, pendingNotarySchema } from './notaries.ts';
import { timeZoneSchema } from './availability.ts';
import { searchTextSchema, singleLineTextSchema } from './text.ts';
import { usStateCodes } from './us-states.ts';

/** What a notary files with their profile. The seal image is PNG or JPEG, the others PDF, PNG or JPEG. */
export const notaryFileKinds = ['commission_certificate', 'bond', 'eo_insurance', 'seal_image'] as const;
export const notaryFileKindSchema = z.enum(notaryFileKinds, {
  message: 'Say which document this is: commission_certificate, bond, eo_insurance or seal_image.',
});
export type NotaryFileKind = z.infer<typeof notaryFileKindSchema>;
export const notaryFileKindLabels: Record<NotaryFileKind, string> = {
  commission_certificate: 'Commission certificate',
  bond: 'Surety bond',
  eo_insurance: 'E&O insurance policy',
  seal_image: 'Seal image',
};
export const maxNotaryFileBytes = 10 * 1024 * 1024;

export const notaryExpiryItems = ['commission', 'certificate', 'bond', 'eo_insurance'] as const;
export type NotaryExpiryItem = (typeof notaryExpiryItems)[number];
/** How many days before an expiry the notary and the administrators are warned. */
export const notaryExpiryWarningDays = 30;

const calendarDay = (label: string) =>
  z.string({ message: `${label} must be a date as YYYY-MM-DD.` }).refine(isCalendarDay, { message: `${label} must be a real date as YYYY-MM-DD.` });
/** Dollars and cents as whole cents: at least $1, at most $100,000,000. */
const amountCents = (label: string) =>
  z
    .number({ message: `${label} must be an amount in cents.` })
    .int({ message: `${label} must be whole cents.` })
    .min(100, { message: `${label} must be at least $1.00.` })
    .max(10_000_000_000, { message: `${label} must be at most $100,000,000.` });

/** PUT /api/notary/profile and /api/notary/profile/{id}: every field optional; null clears an optional one. */
export const updateNotaryProfileInputSchema = z
  .object({
    commissionedName: singleLineTextSchema({
      label: 'The name as commissioned',
      max: 160,
      requiredMessage: 'Enter your name as it appears on your commission.',
    })
      .nullable()
      .optional(),
    commissionNumber: singleLineTextSchema({ label: 'The commission number', max: 60, requiredMessage: 'Enter your commission number.' }).optional(),
    commissionState: z.enum(usStateCodes, { message: 'Choose the state of your commission.' }).optional(),
    county: singleLineTextSchema({ label: 'The county', max: 80, requiredMessage: 'Enter the county of your commission.' }).optional(),
    commissionStartsOn: calendarDay('The commission start date').nullable().optional(),
    commissionExpiresOn: calendarDay('The commission expiry date').optional(),
    bondAmountCents: amountCents('The bond amount').nullable().optional(),
    bondExpiresOn: calendarDay('The bond expiry date').nullable().optional(),
    eoAmountCents: amountCents('The E&O insurance amount').nullable().optional(),
    eoExpiresOn: calendarDay('The E&O insurance expiry date').nullable().optional(),
    /** The IANA zone the notary works in: slots sent without a zone, and dates in their journal. */
    timeZone: timeZoneSchema.nullable().optional(),
  })
  .strict();
export type UpdateNotaryProfileInput = z.input<typeof updateNotaryProfileInputSchema>;

export const notaryProfileFileSchema = z.object({
  id: z.string(),
  kind: notaryFileKindSchema,
  fileName: z.string(),
  contentType: z.enum(['application/pdf', 'image/png', 'image/jpeg']),
  sizeBytes: z.number(),
  createdAt: z.string(),
  /** GET this to download it (the notary and administrators only). */
  url: z.string(),
});
export type NotaryProfileFile = z.infer<typeof notaryProfileFileSchema>;

export const notaryExpiryWarningSchema = z.object({
  item: z.enum(notaryExpiryItems),
  expiresOn: z.string(),
  isExpired: z.boolean(),
  message: z.string(),
});
export type NotaryExpiryWarning = z.infer<typeof notaryExpiryWarningSchema>;

const savedImageSchema = z.object({ id: z.string(), imageUrl: z.string(), createdAt: z.string() });

export const notaryProfileSchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  commissionedName: z.string().nullable(),
  commissionNumber: z.string(),
  commissionState: z.string(),
  county: z.string(),
  commissionStartsOn: z.string().nullable(),
  commissionExpiresOn: z.string(),
  bondAmountCents: z.number().nullable(),
  bondExpiresOn: z.string().nullable(),
  eoAmountCents: z.number().nullable(),
  eoExpiresOn: z.string().nullable(),
  timeZone: z.string().nullable(),
  approvalStatus: z.enum(['pending', 'approved', 'rejected']),
  isActive: z.boolean(),
  /** The certificate the next seal is signed with (the same as GET /api/notary/certificate). */
  certificate: notaryCertificateSchema,
  signature: savedImageSchema.nullable(),
  initials: savedImageSchema.nullable(),
  files: z.array(notaryProfileFileSchema),
  /**
   * Sentences: before approval, what an administrator needs to approve (empty when complete); once
   * approved, only what the notary still needs to seal (a signature, initials).
   */
  missing: z.array(z.string()),
  /** Items expired or expiring within 30 days. */
  warnings: z.array(notaryExpiryWarningSchema),
  /** Why the notary cannot be assigned work now, or null when they can. */
  workBlocker: z.string().nullable(),
});
export type NotaryProfile = z.infer<typeof notaryProfileSchema>;

export const notarySearchQuerySchema = z.object({
  q: searchTextSchema(100).default(''),
  approval: z.enum(['pending', 'approved', 'rejected'], { message: 'approval is pending, approved or rejected.' }).optional(),
  active: z.enum(['true', 'false'], { message: 'active is true or false.' }).optional(),
  page: z.coerce
    .number({ message: 'page is a number from 1.' })
    .int({ message: 'page is a number from 1.' })
    .min(1, { message: 'page is a number from 1.' })
    .default(1),
  pageSize: z.coerce
    .number({ message: 'Ask for 1 to 100 notaries a page.' })
    .int({ message: 'Ask for 1 to 100 notaries a page.' })
    .min(1, { message: 'Ask for 1 to 100 notaries a page.' })
    .max(100, { message: 'Ask for 1 to 100 notaries a page.' })
    .default(25),
});
export type NotarySearchQuery = z.input<typeof notarySearchQuerySchema>;

export const notarySearchItemSchema = pendingNotarySchema.extend({ isActive: z.boolean() });
export type NotarySearchItem = z.infer<typeof notarySearchItemSchema>;
export const notarySearchResultSchema = z.object({ items: z.array(notarySearchItemSchema), total: z.number(), page: z.number(), pageSize: z.number() });
export type NotarySearchResult = z.infer<typeof notarySearchResultSchema>;

export const notaryTitleCompanySchema = z.object({ id: z.string(), name: z.string(), jobCount: z.number(), lastJobAt: z.string().nullable() });
export const notaryTitleCompanyListSchema = z.object({ items: z.array(notaryTitleCompanySchema) });
export type NotaryTitleCompany = z.infer<typeof notaryTitleCompanySchema>;

/** The sentence an approval refusal starts with; the missing items follow as a list. */
export const incompleteProfileMessage = (name: string) => `${name} cannot be approved yet: the profile is incomplete.`;

/** What GET /api/notary/profile answers (404 notary_profile_missing) to a notary whose commission is not on file yet. */
export const notaryProfileMissingMessage = 'Enter your commission details to ask for approval.';

/** The commission fields a profile cannot exist without, in the order a person fills them in. */
export const requiredCommissionFields = ['commissionState', 'commissionNumber', 'county', 'commissionExpiresOn'] as const;
export type RequiredCommissionField = (typeof requiredCommissionFields)[number];
const requiredCommissionLabels: Record<RequiredCommissionField, string> = {
  commissionState: 'the commissioning state',
  commissionNumber: 'the commission number',
  county: 'the county',
  commissionExpiresOn: 'the commission expiry date',
};

/**
 * The sentence refusing to put a commission on file without all four required fields, naming those
 * not given; null when all are there. Empty text counts as not given.
 */
export function describeMissingCommissionFields(input: Partial<Record<RequiredCommissionField, string | null | undefined>>): string | null {
  const missing = requiredCommissionFields.filter((field) => !input[field]?.trim()).map((field) => requiredCommissionLabels[field]);
  if (missing.length === 0) return null;
  const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  return `The commission details are not on file yet: enter ${list}.`;
}
