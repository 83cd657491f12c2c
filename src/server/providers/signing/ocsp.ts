import { createHash, X509Certificate } from 'node:crypto';
import { sign as signWithKey } from 'node:crypto';
import { CertID, id_pkix_ocsp_basic, id_pkix_ocsp_nonce, OCSPRequest } from '@peculiar/asn1-ocsp';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { RevocationReason } from '#shared/notaries.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { signingCredentials } from '#server/db/schema/index.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import {
  encodeEnumerated,
  encodeExplicit,
  encodeExtension,
  encodeGeneralizedTime,
  encodeOctetString,
  encodeOid,
  encodeSequence,
  encodeBitString,
  encodeTlv,
  normalizeSerialHex,
  pemToDer,
  readCertificateParts,
  sha256WithRsaAlgorithm,
  type CertificateParts,
} from './der.ts';

/** RFC 5280 CRLReason codes of the reasons an administrator gives. */
export const crlReasonCodes: Record<RevocationReason, number> = {
  unspecified: 0,
  keyCompromise: 1,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  privilegeWithdrawn: 9,
};

/** Hash algorithms a CertID may use, by OID. */
export const certIdHashes: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const sha1Oid = '1.3.14.3.2.26';

/** An OCSP answer is valid for a day; revocation still shows at once, as every answer is made on request. */
export const ocspValidityMs = 24 * 3600_000;
const maxRequestedCertificates = 20;
/** RFC 8954: a nonce of 1 to 32 octets, inside its OCTET STRING. */
const maxNonceBytes = 34;

export class MalformedOcspRequestError extends Error {}

/** OCSPResponse with a status and no body: malformedRequest (1), internalError (2), tryLater (3), unauthorized (6). */
export function createOcspStatusResponse(status: 1 | 2 | 3 | 6): Buffer {
  return encodeSequence(encodeEnumerated(status));
}

export interface ParsedOcspRequest {
  certIds: CertID[];
  /** The nonce extension's value, echoed in the answer. */
  nonce: Buffer | null;
}

export function parseOcspRequest(der: Uint8Array): ParsedOcspRequest {
  let request: OCSPRequest;
  try {
    request = AsnConvert.parse(der, OCSPRequest);
  } catch {
    throw new MalformedOcspRequestError('not an OCSP request');
  }
  const list = request.tbsRequest.requestList;
  if (list.length === 0 || list.length > maxRequestedCertificates) throw new MalformedOcspRequestError('an OCSP request names 1 to 20 certificates');
  const nonceExtension = request.tbsRequest.requestExtensions?.find((extension) => extension.extnID === id_pkix_ocsp_nonce);
  const nonce = nonceExtension ? Buffer.from(nonceExtension.extnValue.buffer) : null;
  if (nonce && (nonce.length === 0 || nonce.length > maxNonceBytes)) throw new MalformedOcspRequestError('the nonce is longer than 32 octets');
  return { certIds: list.map((entry) => entry.reqCert), nonce };
}

/** The CertID of a certificate and its issuer, SHA-1 as RFC 5019 and most verifiers expect. */
export function createCertId(certificateDer: Uint8Array, issuerDer: Uint8Array): CertID {
  const certificate = readCertificateParts(certificateDer);
  const issuer = readCertificateParts(issuerDer);
  return new CertID({
    hashAlgorithm: new AlgorithmIdentifier({ algorithm: sha1Oid, parameters: null }),
    issuerNameHash: new OctetString(createHash('sha1').update(issuer.subjectDer).digest()),
    issuerKeyHash: new OctetString(createHash('sha1').update(issuer.publicKeyBits).digest()),
    serialNumber: Uint8Array.from(Buffer.from(certificate.serialHex, 'hex')).buffer,
  });
}

/** Whether a CertID names a certificate of this issuer (by its name and key hashes). */
export function isCertIdOfIssuer(certId: CertID, issuer: CertificateParts): boolean {
  const hash = certIdHashes[certId.hashAlgorithm.algorithm];
  if (!hash) return false;
  const nameHash = createHash(hash).update(issuer.subjectDer).digest();
  const keyHash = createHash(hash).update(issuer.publicKeyBits).digest();
  return nameHash.equals(Buffer.from(certId.issuerNameHash.buffer)) && keyHash.equals(Buffer.from(certId.issuerKeyHash.buffer));
}

export const readCertIdSerial = (certId: CertID) => normalizeSerialHex(Buffer.from(certId.serialNumber).toString('hex'));

type CredentialRow = typeof signingCredentials.$inferSelect;

export type CertificateStatus = { status: 'good' } | { status: 'revoked'; revokedAt: Date; reason: RevocationReason | null } | { status: 'unknown' };

function isIssuedBy(certificatePem: string, issuer: X509Certificate): boolean {
  try {
    return new X509Certificate(certificatePem).verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** The status of a serial the CA `ca` may have issued: revocation as stored now, unknown for a serial it never issued. */
export async function findPlatformCertificateStatus(db: DbOrTx, ca: X509Certificate, serialHex: string): Promise<CertificateStatus> {
  const rows = await db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.source, 'platform'),
        inArray(signingCredentials.kind, ['notary', 'platform_signer']),
        sql`lower(${signingCredentials.serialNumber}) = ${serialHex}`,
      ),
    );
  const row = rows.find((candidate) => isIssuedBy(candidate.certificatePem, ca));
  if (!row) return { status: 'unknown' };
  if (!row.revokedAt) return { status: 'good' };
  return { status: 'revoked', revokedAt: row.revokedAt, reason: (row.revocationReason as RevocationReason | null) ?? null };
}

function encodeCertStatus(status: CertificateStatus): Buffer {
  if (status.status === 'good') return Buffer.from([0x80, 0x00]);
  if (status.status === 'unknown') return Buffer.from([0x82, 0x00]);
  const reason = status.reason && status.reason !== 'unspecified' ? [encodeExplicit(0, encodeEnumerated(crlReasonCodes[status.reason]))] : [];
  return encodeTlv(0xa1, encodeGeneralizedTime(status.revokedAt), ...reason);
}

interface PlatformCaKey {
  certificate: X509Certificate;
  parts: CertificateParts;
  der: Buffer;
  privateKeyPem: string;
}

async function loadPlatformCas(db: DbOrTx, secretsKey: Buffer): Promise<PlatformCaKey[]> {
  const rows: CredentialRow[] = await db
    .select()
    .from(signingCredentials)
    .where(eq(signingCredentials.kind, 'platform_ca'))
    .orderBy(asc(signingCredentials.createdAt));
  return rows.map((row) => {
    const der = pemToDer(row.certificatePem);
    return {
      certificate: new X509Certificate(row.certificatePem),
      parts: readCertificateParts(der),
      der,
      privateKeyPem: decryptSecret(secretsKey, row.privateKeyEncrypted),
    };
  });
}

/**
 * A signed BasicOCSPResponse from the CA that issued the certificates (the responder is the CA
 * itself, named by its key hash; its certificate travels along), wrapped in a successful
 * OCSPResponse. Every CertID must name that CA.
 */
function signOcspResponse(ca: PlatformCaKey, entries: Array<{ certId: CertID; status: CertificateStatus }>, nonce: Buffer | null, now: Date): Buffer {
  const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const nextUpdate = new Date(thisUpdate.getTime() + ocspValidityMs);
  const responses = entries.map(({ certId, status }) =>
    encodeSequence(
      Buffer.from(AsnConvert.serialize(certId)),
      encodeCertStatus(status),
      encodeGeneralizedTime(thisUpdate),
      encodeExplicit(0, encodeGeneralizedTime(nextUpdate)),
    ),
  );
  const responderKeyHash = createHash('sha1').update(ca.parts.publicKeyBits).digest();
  const responseData = encodeSequence(
    encodeExplicit(2, encodeOctetString(responderKeyHash)),
    encodeGeneralizedTime(thisUpdate),
    encodeSequence(...responses),
    ...(nonce ? [encodeExplicit(1, encodeSequence(encodeExtension(id_pkix_ocsp_nonce, nonce)))] : []),
  );
  const signature = signWithKey('sha256', responseData, ca.privateKeyPem);
  const basic = encodeSequence(responseData, sha256WithRsaAlgorithm(), encodeBitString(signature), encodeExplicit(0, encodeSequence(ca.der)));
  return encodeSequence(encodeEnumerated(0), encodeExplicit(0, encodeSequence(encodeOid(id_pkix_ocsp_basic), encodeOctetString(basic))));
}

/**
 * The platform responder: answers each certificate of a request from the CA that issued it, good,
 * revoked (time and reason) or unknown (a serial it never issued). A request naming no platform CA
 * gets unauthorized (RFC 6960 2.3), one that is no OCSP request malformedRequest.
 * Reads revocation from the database on every call: nothing is cached.
 */
export async function createPlatformOcspResponse(db: DbOrTx, secretsKey: Buffer, requestDer: Uint8Array, now = new Date()): Promise<Buffer> {
  let request: ParsedOcspRequest;
  try {
    request = parseOcspRequest(requestDer);
  } catch (error) {
    if (error instanceof MalformedOcspRequestError) return createOcspStatusResponse(1);
    throw error;
  }
  return answerPlatformCertIds(db, secretsKey, request, now);
}

export async function answerPlatformCertIds(db: DbOrTx, secretsKey: Buffer, request: ParsedOcspRequest, now = new Date()): Promise<Buffer> {
  const cas = await loadPlatformCas(db, secretsKey);
  const entries: Array<{ certId: CertID; status: CertificateStatus; ca: PlatformCaKey | undefined }> = [];
  for (const certId of request.certIds) {
    const ca = cas.find((candidate) => isCertIdOfIssuer(certId, candidate.parts));
    const status = ca ? await findPlatformCertificateStatus(db, ca.certificate, readCertIdSerial(certId)) : ({ status: 'unknown' } as const);
    entries.push({ certId, status, ca });
  }
  // One response is signed by one key: the CA of the first certificate it knows; the others are unknown to it.
  const signer = entries.find((entry) => entry.ca)?.ca;
  if (!signer) return createOcspStatusResponse(6);
  const answered = entries.map((entry) => (entry.ca && entry.ca !== signer ? { ...entry, status: { status: 'unknown' } as const } : entry));
  return signOcspResponse(signer, answered, request.nonce, now);
}
