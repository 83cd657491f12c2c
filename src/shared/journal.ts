import { z } from 'zod';
import { identityEvidenceSchema } from './identity.ts';

/**
 * The notary's electronic journal (issue 13): entries prepared from what the platform recorded,
 * completed and finalized by the notary, then never changed (addenda only).
 */

export const journalEntryContentSchema = z.object({
  notarizedAt: z.string().nullable(),
  actType: z.string(),
  documentName: z.string(),
  documentSha256: z.string().nullable(),
  signerName: z.string(),
  signerEmail: z.string(),
  /** The signer's address, which the notary completes (a journal requires it; the platform does not know it). */
  signerAddress: z.string().nullable(),
  identityMethod: z.string(),
  identityEvidence: identityEvidenceSchema.nullable(),
  recordingReference: z.string().nullable(),
  feeCents: z.number().int().nullable(),
  notes: z.string().nullable(),
});
export type JournalEntryContent = z.infer<typeof journalEntryContentSchema>;

export const journalEntrySchema = z.object({
  id: z.string(),
  jobId: z.string().nullable(),
  status: z.enum(['draft', 'final']),
  isTest: z.boolean(),
  content: journalEntryContentSchema,
  createdAt: z.string(),
  finalizedAt: z.string().nullable(),
  keptUntil: z.string().nullable(),
  addenda: z.array(z.object({ id: z.string(), text: z.string(), createdAt: z.string() })),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export const journalEntryListSchema = z.object({ items: z.array(journalEntrySchema), total: z.number(), page: z.number(), pageSize: z.number() });

const address = z.string({ message: 'Give the signer’s address.' }).trim().min(5, { message: 'Give the signer’s address.' }).max(300);
export const finalizeJournalInputSchema = z.object({
  entries: z
    .array(
      z.object({
        id: z.uuid({ message: 'Each entry needs the id of its draft.' }),
        signerAddress: address,
        feeCents: z.number({ message: 'feeCents is a whole number of cents.' }).int({ message: 'feeCents is a whole number of cents.' }).min(0).max(10_000_00).nullable().optional(),
        notes: z.string().trim().max(2000).nullable().optional(),
      }),
    )
    .min(1, { message: 'Send at least one entry to finalize.' })
    .max(200),
});
export type FinalizeJournalInput = z.infer<typeof finalizeJournalInputSchema>;

export const journalAddendumInputSchema = z.object({ text: z.string({ message: 'Write the addendum.' }).trim().min(3, { message: 'Write the addendum.' }).max(2000) });

export const journalQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(25),
  from: z.iso.date({ message: 'from is a date as YYYY-MM-DD.' }).optional(),
  to: z.iso.date({ message: 'to is a date as YYYY-MM-DD.' }).optional(),
  act: z.string().trim().max(100).optional(),
  signer: z.string().trim().max(200).optional(),
  includeTest: z.enum(['true', 'false']).optional(),
});
export type JournalQuery = z.infer<typeof journalQuerySchema>;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a value a spreadsheet
 * would run as a formula (starting with = + - @, a tab or a carriage return) is prefixed with a
 * single quote so it is shown, never computed.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
