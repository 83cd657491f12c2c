import { z } from 'zod';

export const pendingNotarySchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  commissionState: z.string(),
  commissionNumber: z.string(),
  commissionExpiresOn: z.string(),
  county: z.string(),
  approvalStatus: z.enum(['pending', 'approved', 'rejected']),
  createdAt: z.string(),
});
export type PendingNotary = z.infer<typeof pendingNotarySchema>;
export const notaryListSchema = z.object({ items: z.array(pendingNotarySchema) });

/** The signing certificate a notary's documents are signed with (GET/POST/DELETE /api/notary/certificate). */
export const notaryCertificateSchema = z.object({
  source: z.enum(['platform', 'uploaded']).nullable(),
  subject: z.string().nullable(),
  issuer: z.string().nullable(),
  serialNumber: z.string().nullable(),
  notBefore: z.string().nullable(),
  notAfter: z.string().nullable(),
});
export type NotaryCertificate = z.infer<typeof notaryCertificateSchema>;
