import { eq } from 'drizzle-orm';
import type { Verification } from '#shared/fields.ts';
import { notarizedDocumentRevisions, notarizedDocuments } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound } from '#server/lib/errors.ts';
import { getOrCreatePlatformCa } from '#server/providers/signing/certificates.ts';
import type { NotarizedRow, PublicFacts } from './notarization.service.ts';

/** The public /verify answers: what this platform issued, never signer data. */

function toVerification(
  checkedBy: Verification['checkedBy'],
  sha256: string,
  row: NotarizedRow | undefined,
  newerCopy: Verification['newerCopy'] = null,
): Verification {
  if (!row) {
    return {
      isKnown: false,
      checkedBy,
      sha256,
      notarizedDocumentId: null,
      notarizedAt: null,
      actLabel: null,
      notaryName: null,
      commissionState: null,
      commissionNumber: null,
      commissionExpiresOn: null,
      isNotarialAct: null,
      notNotarialReasons: [],
      newerCopy: null,
    };
  }
  const facts = row.publicFacts as PublicFacts;
  return {
    isKnown: true,
    checkedBy,
    sha256,
    notarizedDocumentId: row.id,
    notarizedAt: facts.notarizedAt,
    actLabel: facts.actLabel,
    notaryName: facts.notaryName,
    commissionState: facts.commissionState,
    commissionNumber: facts.commissionNumber,
    commissionExpiresOn: facts.commissionExpiresOn,
    isNotarialAct: row.isNotarialAct,
    notNotarialReasons: row.notNotarialReasons,
    newerCopy,
  };
}

/** Public: is this exact file one this platform issued? Shows the act and notary, never signers. */
export async function verifyByHash(ctx: Ctx, sha256: string): Promise<Verification> {
  const [row] = await ctx.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.sha256, sha256)).limit(1);
  if (row) return toVerification('file', sha256, row);
  // An earlier copy, kept when its archive timestamp was renewed: the same act, with a newer copy to point to.
  const [earlier] = await ctx.db
    .select({ row: notarizedDocuments, replacedAt: notarizedDocumentRevisions.replacedAt })
    .from(notarizedDocumentRevisions)
    .innerJoin(notarizedDocuments, eq(notarizedDocuments.id, notarizedDocumentRevisions.notarizedDocumentId))
    .where(eq(notarizedDocumentRevisions.sha256, sha256))
    .limit(1);
  if (!earlier) return toVerification('file', sha256, undefined);
  return toVerification('file', sha256, earlier.row, { sha256: earlier.row.sha256, replacedAt: earlier.replacedAt.toISOString() });
}

/** Public: what was issued under this id. No file was checked, so this says nothing about a copy's bytes. */
export async function verifyById(ctx: Ctx, notarizedId: string): Promise<Verification> {
  const [row] = await ctx.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, notarizedId)).limit(1);
  if (!row) throw notFound('No notarized document has that id.');
  return toVerification('id', row.sha256, row);
}

/** The platform CA certificate (public): verifiers add it as a trust anchor to check signatures. */
export async function getPlatformCaCertificate(ctx: Ctx): Promise<string> {
  return (await getOrCreatePlatformCa(ctx.db, ctx.secretsKey)).certificatePem;
}
