import { X509Certificate } from 'node:crypto';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { signingCredentials } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound } from '#server/lib/errors.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findUploadedCredential, lockNotaryCredentials } from '#server/providers/signing/certificates.ts';
import { formatDistinguishedNameLines, readPkcs12 } from '#server/providers/signing/pkcs12.ts';

/** The certificate a notary's next notarization is signed with; all null before the platform issued one. */
export interface NotaryCertificate {
  source: 'platform' | 'uploaded' | null;
  subject: string | null;
  issuer: string | null;
  serialNumber: string | null;
  notBefore: string | null;
  notAfter: string | null;
}

type CredentialRow = typeof signingCredentials.$inferSelect;

export const maxCertificateFileBytes = 100 * 1024;
export const maxCertificatePasswordLength = 1024;

export const notaryCertificateMessages = {
  noFile: 'Choose your certificate file (.p12 or .pfx).',
  tooLarge: 'The certificate file is larger than 100 KB; a PKCS#12 file with one certificate chain is far smaller.',
  passwordTooLong: `The password is longer than ${maxCertificatePasswordLength} characters.`,
  noUploaded: 'You have no uploaded signing certificate; the platform certificate is already in use.',
} as const;

function getNotaryId(ctx: Ctx): string {
  if (!ctx.user) throw new Error('notary certificate calls need a signed-in notary');
  return ctx.user.id;
}

function toNotaryCertificate(row: CredentialRow | undefined): NotaryCertificate {
  if (!row) return { source: null, subject: null, issuer: null, serialNumber: null, notBefore: null, notAfter: null };
  return {
    source: row.source,
    subject: row.subject,
    issuer: formatDistinguishedNameLines(new X509Certificate(row.certificatePem).issuer),
    serialNumber: row.serialNumber,
    notBefore: row.notBefore.toISOString(),
    notAfter: row.notAfter.toISOString(),
  };
}

/** The credential getOrIssueNotaryCredentials picks: a live uploaded one, else the latest valid platform one. */
export async function getNotaryCertificate(ctx: Ctx, userId: string = getNotaryId(ctx)): Promise<NotaryCertificate> {
  const uploaded = await findUploadedCredential(ctx.db, userId);
  if (uploaded) return toNotaryCertificate(uploaded);
  const [platform] = await ctx.db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.kind, 'notary'),
        eq(signingCredentials.userId, userId),
        eq(signingCredentials.source, 'platform'),
        isNull(signingCredentials.revokedAt),
        gt(signingCredentials.notAfter, new Date()),
      ),
    )
    .orderBy(desc(signingCredentials.createdAt))
    .limit(1);
  return toNotaryCertificate(platform);
}

/**
 * Stores the notary's own certificate from a PKCS#12 file (checked by readPkcs12), its key
 * encrypted under the secrets key, and revokes the one they uploaded before. From now on their
 * notarizations are signed with it. The audit event names the certificate, never the key.
 */
export async function uploadNotaryCertificate(ctx: Ctx, input: { file: Buffer; password: string }): Promise<NotaryCertificate> {
  const userId = getNotaryId(ctx);
  const certificate = readPkcs12(input.file, input.password);
  const row = await ctx.db.transaction(async (tx) => {
    await lockNotaryCredentials(tx, userId);
    const now = new Date();
    await tx
      .update(signingCredentials)
      .set({ revokedAt: now })
      .where(
        and(
          eq(signingCredentials.kind, 'notary'),
          eq(signingCredentials.userId, userId),
          eq(signingCredentials.source, 'uploaded'),
          isNull(signingCredentials.revokedAt),
        ),
      );
    const [inserted] = await tx
      .insert(signingCredentials)
      .values({
        kind: 'notary',
        userId,
        certificatePem: certificate.certificatePem,
        chainPem: certificate.chainPems.length ? certificate.chainPems.join('') : null,
        privateKeyEncrypted: encryptSecret(ctx.secretsKey, certificate.privateKeyPem),
        serialNumber: certificate.serialNumber,
        subject: certificate.subject,
        notBefore: certificate.notBefore,
        notAfter: certificate.notAfter,
        source: 'uploaded',
      })
      .returning();
    if (!inserted) throw new Error('the uploaded credential was not stored');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'notary.certificate_uploaded',
        data: { subject: certificate.subject, serialNumber: certificate.serialNumber, notAfter: certificate.notAfter.toISOString() },
      },
    );
    return inserted;
  });
  ctx.log.info({ event: 'notary.certificate_uploaded', userId, credentialId: row.id }, 'notary uploaded a signing certificate');
  return toNotaryCertificate(row);
}

/** Revokes the notary's uploaded certificate: the platform certificate signs again. */
export async function removeNotaryCertificate(ctx: Ctx): Promise<NotaryCertificate> {
  const userId = getNotaryId(ctx);
  await ctx.db.transaction(async (tx) => {
    await lockNotaryCredentials(tx, userId);
    const revoked = await tx
      .update(signingCredentials)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(signingCredentials.kind, 'notary'),
          eq(signingCredentials.userId, userId),
          eq(signingCredentials.source, 'uploaded'),
          isNull(signingCredentials.revokedAt),
        ),
      )
      .returning({ subject: signingCredentials.subject, serialNumber: signingCredentials.serialNumber });
    if (revoked.length === 0) throw notFound(notaryCertificateMessages.noUploaded);
    for (const credential of revoked) {
      await appendAuditEvent(
        { ...ctx, db: tx },
        { action: 'notary.certificate_removed', data: { subject: credential.subject, serialNumber: credential.serialNumber } },
      );
    }
  });
  return getNotaryCertificate(ctx);
}
