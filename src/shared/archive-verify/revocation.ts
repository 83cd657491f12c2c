import { extendedKeyUsageOids, isIssuedBy, parseCertificate, type Certificate } from './certificates.ts';
import { digest, getDigestName, readAlgorithm, verifySignature } from './crypto.ts';
import {
  child,
  childrenOf,
  contentOf,
  DerError,
  equalBytes,
  parseDer,
  rawOf,
  readBitString,
  readIntegerHex,
  readNode,
  readTime,
  tags,
  type DerNode,
} from './der.ts';
import { formatUtcTime } from './words.ts';

/**
 * Revocation evidence from a PDF's DSS: OCSP responses and CRLs, each checked for its issuer's
 * signature (or a responder the issuer delegated to) before it counts.
 */

export interface RevocationAnswer {
  isOk: boolean;
  /** The end of a sentence: "the certificate was not revoked then (OCSP answer of Open RON Platform CA, 27 November 2026 at 14:02 UTC)". */
  words: string;
}

/** Revocation data made a little before the signature still counts: it is fetched while the signature is made. */
const freshnessGraceMs = 15 * 60 * 1000;

interface OcspSingle {
  hashName: ReturnType<typeof getDigestName>;
  issuerNameHash: Uint8Array;
  issuerKeyHash: Uint8Array;
  serialHex: string;
  status: 'good' | 'revoked' | 'unknown';
  revokedAt: Date | null;
  thisUpdate: Date;
}

interface ParsedOcsp {
  tbs: Uint8Array;
  signatureOid: string;
  signature: Uint8Array;
  certificates: Certificate[];
  producedAt: Date;
  responses: OcspSingle[];
}

function parseOcsp(der: Uint8Array): ParsedOcsp {
  let basic = parseDer(der);
  const first = childrenOf(basic)[0];
  if (first?.tag === tags.enumerated) {
    // OCSPResponse { responseStatus, [0] EXPLICIT ResponseBytes { responseType, response OCTET STRING } }
    if (contentOf(first)[0] !== 0) throw new DerError('the OCSP responder refused to answer');
    const responseBytes = child(child(basic, 1), 0);
    basic = readNode(contentOf(child(responseBytes, 1)));
  }
  const [tbs, algorithm, signature, certificatesNode] = childrenOf(basic);
  if (!tbs || !algorithm || !signature) throw new DerError('not an OCSP response');
  const fields = childrenOf(tbs);
  const offset = fields[0]?.tag === tags.context(0) ? 1 : 0;
  const producedAt = readTime(fields[offset + 1] as DerNode);
  const responses = childrenOf(fields[offset + 2] as DerNode).map((single): OcspSingle => {
    const [certId, status, thisUpdate] = childrenOf(single);
    if (!certId || !status || !thisUpdate) throw new DerError('an OCSP answer is incomplete');
    const [hashAlgorithm, nameHash, keyHash, serial] = childrenOf(certId);
    const isRevoked = status.tag === tags.context(1);
    return {
      hashName: getDigestName(readAlgorithm(hashAlgorithm as DerNode)),
      issuerNameHash: contentOf(nameHash as DerNode),
      issuerKeyHash: contentOf(keyHash as DerNode),
      serialHex: readIntegerHex(serial as DerNode),
      status: status.tag === tags.context(0, false) ? 'good' : isRevoked ? 'revoked' : 'unknown',
      revokedAt: isRevoked ? readTime(child(status, 0)) : null,
      thisUpdate: readTime(thisUpdate),
    };
  });
  const certificates = certificatesNode ? childrenOf(child(certificatesNode, 0)).map((node) => parseCertificate(rawOf(node).slice())) : [];
  return { tbs: rawOf(tbs), signatureOid: readAlgorithm(algorithm), signature: readBitString(signature), certificates, producedAt, responses };
}

interface ParsedCrl {
  tbs: Uint8Array;
  signatureOid: string;
  signature: Uint8Array;
  issuerDer: Uint8Array;
  thisUpdate: Date;
  revoked: Map<string, Date>;
}

function parseCrl(der: Uint8Array): ParsedCrl {
  const [tbs, algorithm, signature] = childrenOf(parseDer(der));
  if (!tbs || !algorithm || !signature) throw new DerError('not a CRL');
  const fields = childrenOf(tbs);
  const offset = fields[0]?.tag === tags.integer ? 1 : 0;
  const issuer = fields[offset + 1] as DerNode;
  const thisUpdate = readTime(fields[offset + 2] as DerNode);
  const revoked = new Map<string, Date>();
  const list = fields.slice(offset + 3).find((field) => field.tag === tags.sequence && childrenOf(field)[0]?.tag === tags.sequence);
  for (const entry of list ? childrenOf(list) : []) {
    const [serial, date] = childrenOf(entry);
    if (serial && date) revoked.set(readIntegerHex(serial), readTime(date));
  }
  return { tbs: rawOf(tbs), signatureOid: readAlgorithm(algorithm), signature: readBitString(signature), issuerDer: rawOf(issuer), thisUpdate, revoked };
}

export interface RevocationData {
  ocsps: Uint8Array[];
  crls: Uint8Array[];
}

export interface RevocationEvidence {
  ocsps: ParsedOcsp[];
  crls: ParsedCrl[];
  /** What could not be read, as sentence parts. */
  problems: string[];
  /** Certificates carried by the OCSP responses (delegated responders). */
  certificates: Certificate[];
}

export async function readRevocationData(data: RevocationData, pool: Certificate[]): Promise<RevocationEvidence> {
  const problems: string[] = [];
  const ocsps: ParsedOcsp[] = [];
  const crls: ParsedCrl[] = [];
  for (const [index, der] of data.ocsps.entries()) {
    try {
      ocsps.push(parseOcsp(der));
    } catch (error) {
      problems.push(`OCSP response ${index + 1} cannot be read (${error instanceof Error ? error.message : 'malformed'})`);
    }
  }
  for (const [index, der] of data.crls.entries()) {
    try {
      crls.push(parseCrl(der));
    } catch (error) {
      problems.push(`CRL ${index + 1} cannot be read (${error instanceof Error ? error.message : 'malformed'})`);
    }
  }
  // Every response must be signed by someone we can name: evidence that does not verify is itself a finding.
  const certificates = ocsps.flatMap((ocsp) => ocsp.certificates);
  for (const [index, ocsp] of ocsps.entries()) {
    if (!(await findOcspSigner(ocsp, [...pool, ...certificates])))
      problems.push(`OCSP response ${index + 1} is not signed by a certificate authority at hand or its responder (it was altered or comes from elsewhere)`);
  }
  for (const [index, crl] of crls.entries()) {
    const issuer = pool.find((certificate) => equalBytes(certificate.subjectDer, crl.issuerDer));
    if (!issuer || !(await verifySignature(issuer.spki, crl.signatureOid, null, crl.tbs, crl.signature).catch(() => false))) {
      problems.push(`CRL ${index + 1} is not signed by its issuer's key (it was altered or its issuer is missing)`);
    }
  }
  return { ocsps, crls, problems, certificates };
}

async function findOcspSigner(ocsp: ParsedOcsp, pool: Certificate[]): Promise<Certificate | null> {
  for (const candidate of pool) {
    if (await verifySignature(candidate.spki, ocsp.signatureOid, null, ocsp.tbs, ocsp.signature).catch(() => false)) return candidate;
  }
  return null;
}

/** Whether the evidence shows `certificate` (issued by `issuer`) was not revoked at `at`. */
export async function checkRevocation(certificate: Certificate, issuer: Certificate, at: Date, evidence: RevocationEvidence): Promise<RevocationAnswer | null> {
  const nameHashes = new Map<string, Uint8Array>();
  const keyHashes = new Map<string, Uint8Array>();
  let best: RevocationAnswer | null = null;
  for (const ocsp of evidence.ocsps) {
    for (const single of ocsp.responses) {
      if (single.serialHex !== certificate.serialHex) continue;
      if (!nameHashes.has(single.hashName)) {
        nameHashes.set(single.hashName, digest(single.hashName, issuer.subjectDer));
        keyHashes.set(single.hashName, digest(single.hashName, issuer.publicKeyBits));
      }
      if (
        !equalBytes(single.issuerNameHash, nameHashes.get(single.hashName) as Uint8Array) ||
        !equalBytes(single.issuerKeyHash, keyHashes.get(single.hashName) as Uint8Array)
      )
        continue;
      // Signed by the issuer itself, or by a responder certificate the issuer signed for OCSP.
      let responder: string | null = null;
      if (await verifySignature(issuer.spki, ocsp.signatureOid, null, ocsp.tbs, ocsp.signature).catch(() => false)) responder = issuer.holderName;
      else {
        for (const delegate of ocsp.certificates) {
          if (
            delegate.extendedKeyUsages.includes(extendedKeyUsageOids.ocspSigning) &&
            (await isIssuedBy(delegate, issuer)) &&
            (await verifySignature(delegate.spki, ocsp.signatureOid, null, ocsp.tbs, ocsp.signature).catch(() => false))
          ) {
            responder = `${delegate.holderName} for ${issuer.holderName}`;
            break;
          }
        }
      }
      if (!responder) {
        best ??= { isOk: false, words: `the OCSP answer about it is not signed by ${issuer.holderName} or its responder` };
        continue;
      }
      const source = `OCSP answer of ${responder}, ${formatUtcTime(single.thisUpdate)}`;
      if (single.status === 'revoked' && single.revokedAt && single.revokedAt <= at) {
        return { isOk: false, words: `the certificate had been revoked on ${formatUtcTime(single.revokedAt)}, before the signature (${source})` };
      }
      if (single.status === 'unknown') {
        best = { isOk: false, words: `the responder does not know the certificate (${source})` };
        continue;
      }
      if (single.thisUpdate.getTime() < at.getTime() - freshnessGraceMs) {
        best = best?.isOk
          ? best
          : { isOk: false, words: `the only OCSP answer was given before the signature, so it cannot show the certificate was still valid then (${source})` };
        continue;
      }
      const later = single.status === 'revoked' && single.revokedAt ? `; it was revoked later, on ${formatUtcTime(single.revokedAt)}` : '';
      return { isOk: true, words: `the certificate was not revoked then (${source})${later}` };
    }
  }
  for (const crl of evidence.crls) {
    if (!equalBytes(crl.issuerDer, certificate.issuerDer)) continue;
    if (!(await verifySignature(issuer.spki, crl.signatureOid, null, crl.tbs, crl.signature).catch(() => false))) {
      best ??= { isOk: false, words: `the CRL of ${issuer.holderName} does not verify with its key` };
      continue;
    }
    const source = `CRL of ${issuer.holderName}, ${formatUtcTime(crl.thisUpdate)}`;
    const revokedAt = crl.revoked.get(certificate.serialHex);
    if (revokedAt && revokedAt <= at)
      return { isOk: false, words: `the certificate had been revoked on ${formatUtcTime(revokedAt)}, before the signature (${source})` };
    if (crl.thisUpdate.getTime() < at.getTime() - freshnessGraceMs) {
      best = best?.isOk ? best : { isOk: false, words: `the only CRL was issued before the signature (${source})` };
      continue;
    }
    return { isOk: true, words: `the certificate was not revoked then (${source})` };
  }
  return best;
}
