import { X509Certificate } from 'node:crypto';
import { ContentInfo, SignedData } from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';

/**
 * Reads what a signed PDF carries without trusting its structure: every signature found by its
 * /ByteRange (the bytes between the two ranges are its /Contents), each a CMS SignedData, told apart
 * by what it encapsulates: a PAdES signature is detached, a document timestamp (ETSI.RFC3161)
 * encapsulates a TSTInfo. Used to make a seal long-term (the signer's and the TSAs' chains) and by
 * the archive-timestamp renewal (the last document timestamp's chain).
 */

const tstInfoOid = '1.2.840.113549.1.9.16.1.4';
const signatureTimeStampTokenOid = '1.2.840.113549.1.9.16.2.14';

export interface EmbeddedSignature {
  byteRange: [number, number, number, number];
  /** The CMS ContentInfo, DER, without the placeholder's zero padding. */
  cms: Buffer;
  kind: 'signature' | 'document_timestamp';
  /** The bytes the signature covers: both ranges joined. */
  signedBytes: Buffer;
}

/** The length of a DER element at the start of `bytes` (tag, length and content), or null for a length form it does not read. */
function readDerLength(bytes: Buffer): number | null {
  const first = bytes[1];
  if (first === undefined) return null;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || bytes.length < 2 + octets) return null;
  let length = 0;
  for (let index = 0; index < octets; index += 1) length = length * 256 + (bytes[2 + index] ?? 0);
  return 2 + octets + length;
}

function readSignedData(cms: Buffer): SignedData {
  const contentInfo = AsnConvert.parse(cms, ContentInfo);
  return AsnConvert.parse(contentInfo.content, SignedData);
}

/** A signature's /Contents longer than this many hex digits is not one a signer writes (1 MB of CMS). */
const largestContentsHex = 2 * 1024 * 1024;
let decodedHexDigits = 0;

/** Hex digits findEmbeddedSignatures has decoded since the process started (tests: the work stays bounded by the file). */
export function hexDigitsDecoded(): number {
  return decodedHexDigits;
}

function decodeHex(text: string, from: number, digits: number): Buffer {
  decodedHexDigits += digits;
  return Buffer.from(text.slice(from, from + digits), 'hex');
}

/**
 * Every signature and document timestamp of the file, in the order they appear (the last
 * revision's last). Hostile text cannot make it slow: each /Contents is read once however many
 * /ByteRange arrays point at it, only as far as its DER length says, and only where the ranges end
 * exactly at its "<" and ">" as a signer writes them; so it decodes at most the file's own length.
 */
export function findEmbeddedSignatures(pdf: Buffer): EmbeddedSignature[] {
  const text = pdf.toString('latin1');
  const found: EmbeddedSignature[] = [];
  const read = new Set<string>();
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = match.slice(1, 5).map(Number) as [number, number, number, number];
    const [start, firstLength, secondStart, secondLength] = byteRange;
    if (start !== 0 || secondStart + secondLength > pdf.length || firstLength >= secondStart) continue;
    if (text[firstLength] !== '<' || text[secondStart - 1] !== '>' || secondStart - firstLength - 2 > largestContentsHex) continue;
    const region = `${firstLength} ${secondStart}`;
    if (read.has(region)) continue;
    read.add(region);
    const hexDigits = secondStart - firstLength - 2;
    const header = decodeHex(text, firstLength + 1, Math.min(12, hexDigits));
    if (header.length < 2 || header[0] !== 0x30) continue;
    const cmsLength = readDerLength(header);
    if (cmsLength === null || cmsLength * 2 > hexDigits) continue;
    const cms = decodeHex(text, firstLength + 1, cmsLength * 2);
    if (cms.length !== cmsLength) continue;
    let kind: EmbeddedSignature['kind'];
    try {
      kind = readSignedData(cms).encapContentInfo.eContentType === tstInfoOid ? 'document_timestamp' : 'signature';
    } catch {
      continue;
    }
    found.push({
      byteRange,
      cms,
      kind,
      signedBytes: Buffer.concat([pdf.subarray(0, firstLength), pdf.subarray(secondStart, secondStart + secondLength)]),
    });
  }
  return found.sort((left, right) => left.byteRange[2] + left.byteRange[3] - (right.byteRange[2] + right.byteRange[3]));
}

/** The certificates a CMS SignedData (a signature or a timestamp token) carries. */
export function readCmsCertificates(cms: Buffer): X509Certificate[] {
  const signedData = readSignedData(cms);
  return (signedData.certificates ?? [])
    .map((choice) => choice.certificate)
    .filter((certificate): certificate is Certificate => certificate !== undefined)
    .map((certificate) => new X509Certificate(Buffer.from(AsnConvert.serialize(certificate))));
}

/** The signer's certificate, then its issuers as far as the CMS carries them (leaf first, root last). */
export function readSignerChain(cms: Buffer): X509Certificate[] {
  const signedData = readSignedData(cms);
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) throw new Error('the CMS has no signer');
  const certificates = readCmsCertificates(cms);
  const byIssuerAndSerial = signerInfo.sid.issuerAndSerialNumber;
  const byKeyIdentifier = signerInfo.sid.subjectKeyIdentifier;
  const signer = certificates.find((certificate) => {
    if (byIssuerAndSerial) {
      const parsed = AsnConvert.parse(certificate.raw, Certificate);
      const isSameIssuer = Buffer.from(AsnConvert.serialize(parsed.tbsCertificate.issuer)).equals(Buffer.from(AsnConvert.serialize(byIssuerAndSerial.issuer)));
      return isSameIssuer && Buffer.from(byIssuerAndSerial.serialNumber).equals(Buffer.from(parsed.tbsCertificate.serialNumber));
    }
    if (byKeyIdentifier) {
      const extension = AsnConvert.parse(certificate.raw, Certificate).tbsCertificate.extensions?.find((item) => item.extnID === '2.5.29.14');
      return extension ? Buffer.from(extension.extnValue.buffer).subarray(2).equals(Buffer.from(byKeyIdentifier.buffer)) : false;
    }
    return false;
  });
  if (!signer) throw new Error('the CMS does not carry its signer’s certificate');
  const chain = [signer];
  for (let current = signer; !isSelfIssued(current);) {
    const issuer = certificates.find((candidate) => !chain.includes(candidate) && current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

function isSelfIssued(certificate: X509Certificate): boolean {
  return certificate.checkIssued(certificate);
}

/** The RFC 3161 token of a signature's signature-time-stamp attribute (PAdES B-T); null without one. */
export function readSignatureTimestampToken(cms: Buffer): Buffer | null {
  const signerInfo = readSignedData(cms).signerInfos[0];
  const attribute = signerInfo?.unsignedAttrs?.find((item) => item.attrType === signatureTimeStampTokenOid);
  const value = attribute?.attrValues[0];
  return value ? Buffer.from(value) : null;
}

export function toPem(certificate: X509Certificate): string {
  return certificate.toString();
}
