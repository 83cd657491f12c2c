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

/** RFC 5280 CRLReason names an administrator may give when revoking a notary's platform certificate (decision 057). */
export const revocationReasons = ['keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn', 'unspecified'] as const;
export type RevocationReason = (typeof revocationReasons)[number];
export const revocationReasonSchema = z.enum(revocationReasons, { message: `Choose one of the reasons: ${revocationReasons.join(', ')}.` });

/** The reasons in words, for the admin page and the audit trail. */
export const revocationReasonLabels: Record<RevocationReason, string> = {
  keyCompromise: 'the key may be known to someone else',
  affiliationChanged: 'the notary’s details changed',
  superseded: 'a newer certificate replaces it',
  cessationOfOperation: 'the notary stopped notarizing here',
  privilegeWithdrawn: 'the notary may no longer notarize',
  unspecified: 'no reason given',
};

/** A certificate the platform CA issued to a notary, as administrators see it. */
export const platformCertificateSchema = z.object({
  serialNumber: z.string(),
  subject: z.string(),
  notBefore: z.string(),
  notAfter: z.string(),
  status: z.enum(['valid', 'expired', 'revoked']),
  revokedAt: z.string().nullable(),
  revocationReason: revocationReasonSchema.nullable(),
  revokedByName: z.string().nullable(),
});
export type PlatformCertificate = z.infer<typeof platformCertificateSchema>;

/** GET /api/admin/users/{id}/certificates: the platform certificates, newest first, and whether an uploaded one signs instead. */
export const adminNotaryCertificatesSchema = z.object({
  items: z.array(platformCertificateSchema),
  uploaded: z.object({ subject: z.string(), issuer: z.string(), notAfter: z.string() }).nullable(),
});
export type AdminNotaryCertificates = z.infer<typeof adminNotaryCertificatesSchema>;

/** POST /api/admin/users/{id}/certificates/{serialNumber}/revoke. */
export const revokeCertificateInputSchema = z.object({ reason: revocationReasonSchema });
export const revokeCertificateResponseSchema = z.object({ certificate: platformCertificateSchema, message: z.string() });
