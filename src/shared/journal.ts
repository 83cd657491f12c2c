import { z } from 'zod';
import { identityEvidenceSchema } from './identity.ts';
import { plainTextSchema, searchTextSchema, singleLineTextSchema } from './text.ts';

/**
 * The notary's electronic journal: entries prepared from what the platform recorded,
 * completed and finalized by the notary, then never changed (addenda only).
 */

export const journalWitnessSchema = z.object({
  name: z
    .string({ message: 'Give each credible witness’s name.' })
    .pipe(singleLineTextSchema({ label: 'A credible witness’s name', max: 200 }))
    .pipe(z.string().min(2, { message: 'Give each credible witness’s name.' })),
  address: z
    .string({ message: 'Give each credible witness’s address.' })
    .pipe(plainTextSchema({ label: 'A credible witness’s address', max: 300 }))
    .pipe(z.string().min(5, { message: 'Give each credible witness’s address.' }))
    .nullable(),
});
export type JournalWitness = z.infer<typeof journalWitnessSchema>;
/** A credible witness as an entry holds it (the draft may not have the address yet). */
const recordedWitnessSchema = z.object({ name: z.string(), address: z.string().nullable() });

export const journalEntryContentSchema = z.object({
  /** The date and time of the act: when the document was sealed. */
  notarizedAt: z.string().nullable(),
  actType: z.string(),
  /** The document's title (its file name on the platform). */
  documentName: z.string(),
  /** The type or description of the document (a deed, an affidavit...), which the notary completes. */
  documentType: z.string().nullable(),
  /** The date the document bears (YYYY-MM-DD), which the notary completes where the state asks for it. */
  documentDate: z.string().nullable(),
  documentSha256: z.string().nullable(),
  signerName: z.string(),
  signerEmail: z.string(),
  /** The signer's address, which the notary completes (a journal requires it; the platform does not know it). */
  signerAddress: z.string().nullable(),
  /** How identity was established, in a sentence (the proofing results: credential analysis, questions, the notary's review). */
  identityMethod: z.string(),
  /** The identity step's outcome as recorded when the act was sealed. */
  isIdentityProven: z.boolean(),
  identityEvidence: identityEvidenceSchema.nullable(),
  /** The notary recorded that a credible witness vouched for the signer. */
  isIdentifiedByCredibleWitness: z.boolean(),
  /** Each credible witness's name and address (drafted from the job's witnesses, completed by the notary). */
  credibleWitnesses: z.array(recordedWitnessSchema),
  /** The job's witnesses as the platform recorded them, with how their identity was established. */
  witnesses: z.array(z.object({ name: z.string(), identityMethod: z.string() })),
  recordingReference: z.string().nullable(),
  feeCents: z.number().int().nullable(),
  notes: z.string().nullable(),
  /** The notary's commissioning state whose rules the entry was finalized under (null in a draft). */
  commissionState: z.string().nullable(),
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

/** POST /api/jobs/{id}/prepare-notary-log: each of the job's entries, stored, in the shape of what the platform recorded. */
export const preparedJournalSchema = z.object({
  entries: z.array(
    z.object({
      entryId: z.string(),
      status: z.enum(['draft', 'final']),
      jobId: z.string(),
      documentId: z.string().nullable(),
      participantId: z.string().nullable(),
      documentName: z.string(),
      documentType: z.string().nullable(),
      actType: z.string(),
      signerName: z.string(),
      signerEmail: z.string(),
      signerAddress: z.string().nullable(),
      identityMethod: z.string(),
      isIdentityProven: z.boolean(),
      /** The ID presented, as the confirmed identity check read it; the number only where the state lets a journal hold it. */
      identityEvidence: identityEvidenceSchema.nullable(),
      isIdentifiedByCredibleWitness: z.boolean(),
      credibleWitnesses: z.array(recordedWitnessSchema),
      witnesses: z.array(z.object({ name: z.string(), identityMethod: z.string() })),
      notarizedAt: z.string().nullable(),
      notarizedSha256: z.string().nullable(),
      recordingReference: z.string().nullable(),
      feeCents: z.number().nullable(),
      notes: z.string().nullable(),
    }),
  ),
});

/**
 * The journal's free text is plain text: a NUL could not be stored (jsonb cannot hold it; it answered
 * 500), and lone surrogates and direction overrides are refused as in every other text.
 */
const address = z
  .string({ message: 'Give the signer’s address.' })
  .pipe(plainTextSchema({ label: 'The signer’s address', max: 300 }))
  .pipe(z.string().min(5, { message: 'Give the signer’s address.' }));
export const finalizeJournalInputSchema = z.object({
  entries: z
    .array(
      z.object({
        id: z.uuid({ message: 'Each entry needs the id of its draft.' }),
        signerAddress: address,
        feeCents: z
          .number({ message: 'feeCents is a whole number of cents.' })
          .int({ message: 'feeCents is a whole number of cents.' })
          .min(0)
          .max(10_000_00)
          .nullable()
          .optional(),
        notes: plainTextSchema({ label: 'The notes', max: 2000 }).nullable().optional(),
        documentType: singleLineTextSchema({ label: 'The document type', max: 200 }).nullable().optional(),
        documentDate: z.iso.date({ message: 'documentDate is a date as YYYY-MM-DD.' }).nullable().optional(),
        credibleWitnesses: z.array(journalWitnessSchema).max(10).optional(),
      }),
    )
    .min(1, { message: 'Send at least one entry to finalize.' })
    .max(200),
});
export type FinalizeJournalInput = z.infer<typeof finalizeJournalInputSchema>;

export const journalAddendumInputSchema = z.object({
  text: z
    .string({ message: 'Write the addendum.' })
    .pipe(plainTextSchema({ label: 'The addendum', max: 2000 }))
    .pipe(z.string().min(3, { message: 'Write the addendum.' })),
});

export const journalQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(25),
  from: z.iso.date({ message: 'from is a date as YYYY-MM-DD.' }).optional(),
  to: z.iso.date({ message: 'to is a date as YYYY-MM-DD.' }).optional(),
  act: searchTextSchema(100).optional(),
  signer: searchTextSchema(200).optional(),
  includeTest: z.enum(['true', 'false']).optional(),
});
export type JournalQuery = z.infer<typeof journalQuerySchema>;

/** The filters an export takes (no paging: an export is the whole selection). */
export const journalExportQuerySchema = journalQuerySchema.omit({ page: true, pageSize: true });
export type JournalExportQuery = z.infer<typeof journalExportQuerySchema>;

/** The JSON export's format name and version: a reader checks both before trusting the layout. */
export const journalExportFormat = 'open-ron-notary-journal';
export const journalExportVersion = 1;

/** The signed PDF holds at most this many entries; a larger journal is exported by date range. */
export const journalPdfMaxEntries = 5000;

/** Fills the fields a row stored before they existed, so every reader sees one shape. */
export function normalizeJournalContent(
  content: Partial<JournalEntryContent> & Pick<JournalEntryContent, 'actType' | 'documentName' | 'signerName' | 'signerEmail' | 'identityMethod'>,
): JournalEntryContent {
  return {
    notarizedAt: null,
    documentType: null,
    documentDate: null,
    documentSha256: null,
    signerAddress: null,
    isIdentityProven: !content.identityMethod.startsWith('Not proven'),
    identityEvidence: null,
    isIdentifiedByCredibleWitness: false,
    credibleWitnesses: [],
    witnesses: [],
    recordingReference: null,
    feeCents: null,
    notes: null,
    commissionState: null,
    ...content,
  };
}

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
