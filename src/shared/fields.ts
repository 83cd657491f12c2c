import { z } from 'zod';
import { isCalendarDay } from './dates.ts';
import { singleLineTextSchema } from './text.ts';

export const fieldTypes = [
  'signature',
  'initials',
  'date_signed',
  'date',
  'name',
  'text',
  'checkbox',
  'notary_signature',
  'notary_seal',
  'notarial_certificate',
] as const;
export const fieldTypeSchema = z.enum(fieldTypes, { message: 'Choose a field type.' });
export type FieldType = z.infer<typeof fieldTypeSchema>;

/** Fields the notary fills; the others belong to one signer, witness or observer. */
export const notaryFieldTypes: readonly FieldType[] = ['notary_signature', 'notary_seal', 'notarial_certificate'];
export function isNotaryField(type: FieldType): boolean {
  return notaryFieldTypes.includes(type);
}

export const fieldLabels: Record<FieldType, string> = {
  signature: 'Signature',
  initials: 'Initials',
  date_signed: 'Date signed',
  date: 'Date',
  name: 'Name',
  text: 'Text',
  checkbox: 'Checkbox',
  notary_signature: 'Notary signature',
  notary_seal: 'Notary seal',
  notarial_certificate: 'Notarial certificate',
};

/** Default size of a new field, as fractions of the page. */
export const defaultFieldSizes: Record<FieldType, { width: number; height: number }> = {
  signature: { width: 0.3, height: 0.06 },
  initials: { width: 0.1, height: 0.05 },
  date_signed: { width: 0.18, height: 0.035 },
  date: { width: 0.18, height: 0.035 },
  name: { width: 0.25, height: 0.035 },
  text: { width: 0.3, height: 0.035 },
  checkbox: { width: 0.03, height: 0.025 },
  notary_signature: { width: 0.3, height: 0.06 },
  notary_seal: { width: 0.2, height: 0.15 },
  notarial_certificate: { width: 0.6, height: 0.2 },
};

const fraction = z.number().min(0).max(1);

export const createFieldInputSchema = z
  .object({
    type: fieldTypeSchema,
    page: z.number().int().min(1),
    x: fraction,
    y: fraction,
    width: z.number().min(0.01).max(1),
    height: z.number().min(0.01).max(1),
    participantId: z.uuid().nullable().optional(),
    isRequired: z.boolean().default(true),
    /** Shown and printed at the same place on every page; filled once. */
    isOnEveryPage: z.boolean().default(false),
  })
  .refine((value) => value.x + value.width <= 1.0001 && value.y + value.height <= 1.0001, { message: 'The field must stay inside the page.' });
export type CreateFieldInput = z.input<typeof createFieldInputSchema>;

export const updateFieldInputSchema = z.object({
  page: z.number().int().min(1).optional(),
  x: fraction.optional(),
  y: fraction.optional(),
  width: z.number().min(0.01).max(1).optional(),
  height: z.number().min(0.01).max(1).optional(),
  participantId: z.uuid().nullable().optional(),
  isRequired: z.boolean().optional(),
  isOnEveryPage: z.boolean().optional(),
  version: z.number().int().min(1, { message: 'Send the version of the field you changed.' }),
});
export type UpdateFieldInput = z.input<typeof updateFieldInputSchema>;

export { isCalendarDay };

export const fillFieldInputSchema = z.object({
  value: singleLineTextSchema({ label: 'The field text', max: 500 }).optional(),
  /** The signer's IANA time zone: a date-signed field holds the day it is where they sign. UTC without it or for a zone the server does not know. */
  timeZone: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_+\-/]+$/, { message: 'Send a time zone such as America/Chicago.' })
    .optional(),
  version: z.number().int().min(1, { message: 'Send the version of the field you filled.' }),
});

export const fieldSchema = z.object({
  id: z.string(),
  documentId: z.string(),
  type: fieldTypeSchema,
  page: z.number().int(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  participantId: z.string().nullable(),
  isRequired: z.boolean(),
  isOnEveryPage: z.boolean(),
  value: z.string().nullable(),
  imageUrl: z.string().nullable(),
  filledAt: z.string().nullable(),
  version: z.number().int(),
});
export type DocumentField = z.infer<typeof fieldSchema>;
export const fieldListSchema = z.object({ items: z.array(fieldSchema) });

/** Messages on the job's live channel (server to browsers). */
export const liveMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fields.changed'), documentId: z.string() }),
  z.object({ type: z.literal('document.changed'), documentId: z.string() }),
  z.object({ type: z.literal('job.changed') }),
  z.object({ type: z.literal('view'), documentId: z.string(), page: z.number().int(), by: z.string() }),
  z.object({ type: z.literal('presence'), names: z.array(z.string()) }),
  /** The live session, its lobby or its recording changed (video-signaling.ts). */
  z.object({ type: z.literal('video.changed') }),
]);
export type LiveMessage = z.infer<typeof liveMessageSchema>;

export const signingAssetsSchema = z.object({
  role: z.enum(['notary', 'signer', 'witness', 'observer', 'admin', 'preparer']),
  participantId: z.string().nullable(),
  canPlaceFields: z.boolean(),
  canCompleteDocuments: z.boolean(),
  signature: z.object({ id: z.string(), imageUrl: z.string() }).nullable(),
  initials: z.object({ id: z.string(), imageUrl: z.string() }).nullable(),
  participants: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
  /** What the notary's seal and certificate fields will print; null until the job has a notary with a commission. */
  notaryStamp: z
    .object({
      notaryName: z.string(),
      /** The commission's state code: the job's documents follow its date style (us-states.ts). */
      commissionState: z.string(),
      stateName: z.string(),
      county: z.string(),
      commissionNumber: z.string(),
      commissionExpiresOn: z.string(),
      certificateText: z.string(),
    })
    .nullable(),
});
export type NotaryStamp = NonNullable<SigningAssets['notaryStamp']>;
export type SigningAssets = z.infer<typeof signingAssetsSchema>;

export const notarizedDocumentSchema = z.object({
  id: z.string(),
  documentId: z.string(),
  name: z.string(),
  sha256: z.string(),
  sizeBytes: z.number().int(),
  pageCount: z.number().int(),
  createdAt: z.string(),
  downloadUrl: z.string(),
  /** False for an output sealed without a recorded audio-video session and proven identity. */
  isNotarialAct: z.boolean(),
  notNotarialReasons: z.array(z.string()),
});
export const notarizedListSchema = z.object({ items: z.array(notarizedDocumentSchema) });

/**
 * The public answer of /verify. `checkedBy: 'file'` compared the bytes of an uploaded file, so a
 * known one is unchanged; `checkedBy: 'id'` only tells what was issued under that id (its SHA-256
 * is there to compare a copy with). `isNotarialAct` is false, with its reasons, for an output sealed
 * without a recorded audio-video session and proven identity; null when nothing is known.
 */
export const verificationSchema = z.object({
  isKnown: z.boolean(),
  checkedBy: z.enum(['file', 'id']),
  sha256: z.string(),
  notarizedDocumentId: z.string().nullable(),
  notarizedAt: z.string().nullable(),
  actLabel: z.string().nullable(),
  notaryName: z.string().nullable(),
  commissionState: z.string().nullable(),
  commissionNumber: z.string().nullable(),
  commissionExpiresOn: z.string().nullable(),
  isNotarialAct: z.boolean().nullable(),
  notNotarialReasons: z.array(z.string()),
  /**
   * The checked file is an earlier copy: its archive timestamp was renewed since (decision 058), and
   * the newer copy (same signature, fresh long-term proof) has this SHA-256. Null for the current copy.
   */
  newerCopy: z.object({ sha256: z.string(), replacedAt: z.string() }).nullable(),
});
export type Verification = z.infer<typeof verificationSchema>;

/** The reason given when no audio-video session was recorded (stored with the output, shown by /verify). */
export const noRecordedSessionReason = 'No audio-video session was recorded.';

/** What the pages say about an output that is not a notarial act; null for a notarial act or an unknown file. */
export function getNotNotarialNotice(output: { isNotarialAct: boolean | null; notNotarialReasons: string[] }): string | null {
  if (output.isNotarialAct !== false) return null;
  return output.notNotarialReasons.includes(noRecordedSessionReason) ? 'Not a notarial act: no recorded session.' : 'Not a notarial act.';
}

/** The file name of a sealed output: "notarized" only when it is a notarial act. */
export function getOutputFileName(originalName: string, isNotarialAct: boolean): string {
  return `${originalName.replace(/\.pdf$/i, '')} (${isNotarialAct ? 'notarized' : 'signed, not notarized'}).pdf`;
}

export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
}

function overlaps(a: Placement, b: Placement): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Where a new field of this size goes: the first spot (top to bottom, left to right) that covers no other field. */
export function findFreeSpot(existing: readonly Placement[], size: { width: number; height: number }): Placement {
  const step = 0.025;
  for (let y = 0.05; y + size.height <= 0.97; y += step) {
    for (let x = 0.05; x + size.width <= 0.97; x += step) {
      const candidate = { x, y, width: size.width, height: size.height };
      if (!existing.some((field) => overlaps(candidate, { x: field.x - 0.01, y: field.y - 0.01, width: field.width + 0.02, height: field.height + 0.02 }))) {
        return { ...candidate, x: Math.round(x * 1000) / 1000, y: Math.round(y * 1000) / 1000 };
      }
    }
  }
  return { x: 0.5 - size.width / 2, y: 0.5 - size.height / 2, ...size };
}
