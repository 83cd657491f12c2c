import { z } from 'zod';

export const fieldTypes = ['signature', 'initials', 'date_signed', 'name', 'text', 'checkbox', 'notary_signature', 'notary_seal', 'notarial_certificate'] as const;
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
  version: z.number().int().min(1, { message: 'Send the version of the field you changed.' }),
});
export type UpdateFieldInput = z.input<typeof updateFieldInputSchema>;

export const fillFieldInputSchema = z.object({
  value: z.string().max(500).optional(),
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
});
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
});
export const notarizedListSchema = z.object({ items: z.array(notarizedDocumentSchema) });

export const verificationSchema = z.object({
  isKnown: z.boolean(),
  sha256: z.string(),
  notarizedDocumentId: z.string().nullable(),
  notarizedAt: z.string().nullable(),
  actLabel: z.string().nullable(),
  notaryName: z.string().nullable(),
  commissionState: z.string().nullable(),
  commissionNumber: z.string().nullable(),
  commissionExpiresOn: z.string().nullable(),
});
export type Verification = z.infer<typeof verificationSchema>;

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
