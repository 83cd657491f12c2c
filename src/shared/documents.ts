import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

export const documentTags = ['signing', 'reference', 'identification', 'supporting'] as const;
export const documentTagSchema = z.enum(documentTags, { message: 'Choose a document tag.' });
export type DocumentTag = z.infer<typeof documentTagSchema>;

/** The document tags as people read them: the job type form, the upload, the documents list. */
export const documentTagLabels: Record<DocumentTag, string> = {
  signing: 'To be signed',
  reference: 'Reference',
  identification: 'Identification',
  supporting: 'Supporting',
};

/**
 * The tag of an upload that names none (decision 043): the first of the job type's document tags,
 * in the order the type lists them; a document to be signed when the job has no type or its type
 * lists no tags.
 */
export function pickDefaultDocumentTag(jobTypeDocumentTags: readonly DocumentTag[]): DocumentTag {
  return jobTypeDocumentTags[0] ?? 'signing';
}

export const documentSchema = z.object({
  id: z.string(),
  jobId: z.string(),
  name: z.string(),
  tag: documentTagSchema,
  position: z.number().int(),
  pageCount: z.number().int(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  version: z.number().int(),
  status: z.enum(['uploaded', 'completed']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type JobDocument = z.infer<typeof documentSchema>;
export const documentListSchema = z.object({ items: z.array(documentSchema) });

export const reorderDocumentsInputSchema = z.object({
  order: z
    .array(z.uuid({ message: 'Document ids must be UUIDs.' }))
    .min(1, { message: 'Send the new order of the documents.' })
    .max(200),
});

/** A document's name as people see it; an upload's file name follows the same rule. */
export const documentNameSchema = singleLineTextSchema({ label: 'The document name', max: 200, requiredMessage: 'Enter a document name.' });
export const uploadFileNameSchema = singleLineTextSchema({ label: 'The file name', max: 255 });

export const updateDocumentInputSchema = z
  .object({
    name: documentNameSchema.optional(),
    tag: documentTagSchema.optional(),
    clientSnapshotVersion: z.number().int().min(1, { message: 'Send the version you edited (clientSnapshotVersion).' }),
  })
  .refine((value) => value.name !== undefined || value.tag !== undefined, { message: 'Nothing to change.' });

/** The most form fields an uploaded PDF may have: the seal draws each into its page (pdf-lib's flattening takes time that grows with the square of their number). */
export const maxFormFields = 2000;

export const documentMessages = {
  noFiles: 'Attach at least one PDF file.',
  notPdf: 'Only PDF files can be uploaded.',
  encrypted: 'This PDF is password-protected or encrypted. Remove the protection and upload it again.',
  broken: 'This PDF is damaged and cannot be read.',
  tooComplex:
    'This PDF takes far more memory or time to read than any document needs, so it was not read. Save it again from the program that made it (for example with Print to PDF) and upload the new file.',
  unpacksTooLarge:
    'This PDF holds compressed data that unpacks to far more than any document needs, so it was not read. Save it again from the program that made it (for example with Print to PDF) and upload the new file.',
  unsealable:
    'This PDF’s pages name themselves among their own resources, which no document needs and no seal can be written over. Save it again from the program that made it (for example with Print to PDF) and upload the new file.',
  numberedPastLimit:
    'This PDF numbers its parts so high that a seal could not be added after them. Save it again from the program that made it (for example with Print to PDF) and upload the new file.',
  tooManyFormFields: `This PDF has more than ${maxFormFields.toLocaleString('en-US')} form fields. A notarized document draws every field into its page, and this many cannot be drawn in time. Fill in and flatten the form (for example with Print to PDF), or split the document, and upload it again.`,
  stale: 'Someone changed this document after you loaded it. Reload to see the latest version.',
} as const;

/**
 * The answer of GET /api/jobs/{id}/open-in-sandbox and /documents/{docId}/open-in-sandbox
 * (decision 053): a viewer page address that works for the asking person for a few minutes.
 */
export const sandboxLinkSchema = z.object({ url: z.string(), expiresAt: z.string() });
export type SandboxLink = z.infer<typeof sandboxLinkSchema>;
