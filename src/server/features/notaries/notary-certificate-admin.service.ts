import { X509Certificate } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { AdminNotaryCertificates, PlatformCertificate, RevocationReason } from '#shared/notaries.ts';
import { revocationReasonLabels } from '#shared/notaries.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { signingCredentials, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, forbidden, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findUploadedCredential, lockNotaryCredentials } from '#server/providers/signing/certificates.ts';
import { normalizeSerialHex } from '#server/providers/signing/der.ts';
import { formatDistinguishedNameLines } from '#server/providers/signing/pkcs12.ts';

type CredentialRow = typeof signingCredentials.$inferSelect;

/** How many of a notary's platform certificates the admin page lists (newest first). */
const listedCertificates = 20;

export const certificateAdminMessages = {
  noCertificate: 'This notary has no platform certificate with that serial number.',
  alreadyRevoked: (date: string) => `This certificate was already revoked on ${date}.`,
  revoked: (name: string) =>
    `The certificate of ${name} is revoked: the platform’s OCSP responder and CRL say so from now on, and their next notarization gets a new certificate.`,
} as const;

function requireAdministrator(ctx: Ctx): string {
  if (!ctx.user) throw new Error('certificate administration needs a signed-in administrator');
  if (!hasAnyRole(ctx.user, ['admin'])) throw forbidden();
  return ctx.user.id;
}

async function getUserName(ctx: Ctx, userId: string): Promise<string> {
  const [user] = await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw notFound('No user with that id.');
  return user.name;
}

function toPlatformCertificate(row: CredentialRow, revokedByName: string | null, now: Date): PlatformCertificate {
  return {
    serialNumber: row.serialNumber,
    subject: row.subject,
    notBefore: row.notBefore.toISOString(),
    notAfter: row.notAfter.toISOString(),
    status: row.revokedAt ? 'revoked' : row.notAfter <= now ? 'expired' : 'valid',
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revocationReason: (row.revocationReason as RevocationReason | null) ?? null,
    revokedByName,
  };
}

/** GET /api/admin/users/{id}/certificates: what the platform CA issued to this person, and the uploaded certificate that signs instead, if any. */
export async function findNotaryCertificatesForAdmin(ctx: Ctx, userId: string): Promise<AdminNotaryCertificates> {
  requireAdministrator(ctx);
  await getUserName(ctx, userId);
  const rows = await ctx.db
    .select({ credential: signingCredentials, revokedByName: users.name })
    .from(signingCredentials)
    .leftJoin(users, eq(users.id, signingCredentials.revokedBy))
    .where(and(eq(signingCredentials.kind, 'notary'), eq(signingCredentials.userId, userId), eq(signingCredentials.source, 'platform')))
    .orderBy(desc(signingCredentials.createdAt))
    .limit(listedCertificates);
  const uploaded = await findUploadedCredential(ctx.db, userId);
  const now = new Date();
  return {
    items: rows.map(({ credential, revokedByName }) => toPlatformCertificate(credential, revokedByName, now)),
    uploaded: uploaded
      ? {
          subject: uploaded.subject,
          issuer: formatDistinguishedNameLines(new X509Certificate(uploaded.certificatePem).issuer),
          notAfter: uploaded.notAfter.toISOString(),
        }
      : null,
  };
}

/**
 * POST /api/admin/users/{id}/certificates/{serialNumber}/revoke: the platform CA revokes a certificate
 * it issued to this notary, with an RFC 5280 reason. The OCSP responder and the CRL read it at once;
 * getOrIssueNotaryCredentials skips a revoked certificate, so the next notarization gets a new one.
 * Irreversible (there is no certificateHold). Audited on the account, before and after.
 */
export async function revokeNotaryCertificate(
  ctx: Ctx,
  userId: string,
  serialNumber: string,
  reason: RevocationReason,
): Promise<{ certificate: PlatformCertificate; message: string }> {
  const adminId = requireAdministrator(ctx);
  const serial = normalizeSerialHex(serialNumber);
  const result = await ctx.db.transaction(async (tx) => {
    const name = await getUserName({ ...ctx, db: tx }, userId);
    await lockNotaryCredentials(tx, userId);
    const [row] = await tx
      .select()
      .from(signingCredentials)
      .where(
        and(
          eq(signingCredentials.kind, 'notary'),
          eq(signingCredentials.userId, userId),
          eq(signingCredentials.source, 'platform'),
          sql`lower(${signingCredentials.serialNumber}) = ${serial}`,
        ),
      )
      .limit(1);
    if (!row) throw notFound(certificateAdminMessages.noCertificate);
    if (row.revokedAt) throw conflict(certificateAdminMessages.alreadyRevoked(row.revokedAt.toISOString().slice(0, 10)));
    const revokedAt = new Date();
    const [updated] = await tx
      .update(signingCredentials)
      .set({ revokedAt, revocationReason: reason, revokedBy: adminId })
      .where(eq(signingCredentials.id, row.id))
      .returning();
    if (!updated) throw new Error('the revoked credential was not stored');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'notary.certificate_revoked',
        data: {
          userId,
          userName: name,
          serialNumber: row.serialNumber,
          subject: row.subject,
          reason,
          before: { status: 'valid', notAfter: row.notAfter.toISOString() },
          after: { status: 'revoked', revokedAt: revokedAt.toISOString(), reason },
        },
      },
    );
    return { updated, name };
  });
  ctx.log.info(
    { event: 'notary.certificate_revoked', userId, credentialId: result.updated.id, reason },
    `notary certificate revoked (${revocationReasonLabels[reason]})`,
  );
  return {
    certificate: toPlatformCertificate(result.updated, ctx.user?.name ?? null, new Date()),
    message: certificateAdminMessages.revoked(result.name),
  };
}
