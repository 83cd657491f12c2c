import { X509Certificate } from 'node:crypto';
import { sign as signWithKey } from 'node:crypto';
import { and, asc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { RevocationReason } from '#shared/notaries.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { signingCredentials } from '#server/db/schema/index.ts';
import {
  encodeBitString,
  encodeEnumerated,
  encodeExplicit,
  encodeExtension,
  encodeSequence,
  encodeTlv,
  encodeTime,
  encodeUnsignedInteger,
  pemToDer,
  readCertificateParts,
  readTlv,
  sha256WithRsaAlgorithm,
} from './der.ts';
import { getOrCreatePlatformCa } from './certificates.ts';
import { crlReasonCodes } from './ocsp.ts';

/** A CRL is made on every request; nextUpdate says when a verifier must fetch again at the latest. */
export const crlValidityMs = 7 * 24 * 3600_000;

const crlNumberOid = '2.5.29.20';
const reasonCodeOid = '2.5.29.21';
const authorityKeyIdentifierOid = '2.5.29.35';
const subjectKeyIdentifierOid = '2.5.29.14';

/**
 * The current platform CA's CRL v2 (DER): every certificate it issued that was revoked, with the
 * time and reason, signed by the CA. The CRL number is the issue time in milliseconds: it grows with
 * every CRL from every instance without a counter to store.
 */
export async function createPlatformCrl(db: DbOrTx, secretsKey: Buffer, now = new Date()): Promise<Buffer> {
  const ca = await getOrCreatePlatformCa(db, secretsKey);
  const caCertificate = new X509Certificate(ca.certificatePem);
  const caParts = readCertificateParts(pemToDer(ca.certificatePem));
  const rows = await db
    .select({
      certificatePem: signingCredentials.certificatePem,
      serialNumber: signingCredentials.serialNumber,
      revokedAt: signingCredentials.revokedAt,
      revocationReason: signingCredentials.revocationReason,
    })
    .from(signingCredentials)
    .where(
      and(eq(signingCredentials.source, 'platform'), inArray(signingCredentials.kind, ['notary', 'platform_signer']), isNotNull(signingCredentials.revokedAt)),
    )
    .orderBy(asc(signingCredentials.revokedAt));
  const revoked = rows.filter((row) => {
    try {
      return new X509Certificate(row.certificatePem).verify(caCertificate.publicKey);
    } catch {
      return false;
    }
  });
  const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const nextUpdate = new Date(thisUpdate.getTime() + crlValidityMs);
  const entries = revoked.map((row) => {
    const reason = row.revocationReason as RevocationReason | null;
    // RFC 5280 5.3.1: the reason code unspecified is left out.
    const extensions = reason && reason !== 'unspecified' ? [encodeSequence(encodeExtension(reasonCodeOid, encodeEnumerated(crlReasonCodes[reason])))] : [];
    return encodeSequence(encodeUnsignedInteger(BigInt(`0x${row.serialNumber}`)), encodeTime(row.revokedAt ?? thisUpdate), ...extensions);
  });
  const subjectKeyIdentifier = caParts.extensions.get(subjectKeyIdentifierOid);
  const keyIdentifier = subjectKeyIdentifier ? subjectKeyIdentifier.subarray(readTlv(subjectKeyIdentifier, 0).start) : null;
  const crlExtensions = [
    ...(keyIdentifier ? [encodeExtension(authorityKeyIdentifierOid, encodeSequence(encodeTlv(0x80, keyIdentifier)))] : []),
    encodeExtension(crlNumberOid, encodeUnsignedInteger(BigInt(now.getTime()))),
  ];
  const tbs = encodeSequence(
    encodeUnsignedInteger(1n),
    sha256WithRsaAlgorithm(),
    caParts.subjectDer,
    encodeTime(thisUpdate),
    encodeTime(nextUpdate),
    ...(entries.length ? [encodeSequence(...entries)] : []),
    encodeExplicit(0, encodeSequence(...crlExtensions)),
  );
  const signature = signWithKey('sha256', tbs, ca.privateKeyPem);
  return encodeSequence(tbs, sha256WithRsaAlgorithm(), encodeBitString(signature));
}
