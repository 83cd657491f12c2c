import { createHash, createPrivateKey, hash, sign as signWithKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { LruCache } from '#server/lib/lru-cache.ts';
import { encodeExplicit, encodeNull, encodeOctetString, encodeOid, encodeSequence, encodeTlv, readChildren, readTlv } from './der.ts';

/**
 * CMS (RFC 5652) detached SignedData in the CAdES baseline form PAdES B-B asks for: signed
 * attributes contentType, messageDigest and signing-certificate-v2 (no CMS signingTime: the
 * signing time lives in the PDF signature dictionary's /M), SHA-256 with RSA or ECDSA, the signer's
 * certificate and its chain embedded. With a timestamp token (RFC 3161) over the signature value
 * as the unsigned signature-time-stamp attribute, it is PAdES B-T.
 *
 * Written as DER by hand (der.ts) from pieces made once per signer, and signed with node:crypto
 * (forge's PKCS#7 writer can neither add signing-certificate-v2 nor leave signingTime out, and its
 * RSA is slower); node-forge's ASN.1 reader and writer serve the timestamp request and response.
 */

const { asn1 } = forge;
const { Class, Type } = asn1;

export const cmsOids = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

const oid = (value: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(value).getBytes());
const octets = (bytes: Buffer) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bytes.toString('binary'));
const integer = (value: number) => asn1.create(Class.UNIVERSAL, Type.INTEGER, false, asn1.integerToDer(value).getBytes());
const sequence = (items: forge.asn1.Asn1[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const algorithm = (value: string) => sequence([oid(value), asn1.create(Class.UNIVERSAL, Type.NULL, false, '')]);
const toDer = (node: forge.asn1.Asn1) => Buffer.from(asn1.toDer(node).getBytes(), 'binary');
const fromDer = (bytes: Buffer) => asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')));

const ders = new LruCache<string, Buffer>({ maxEntries: 256 });

/** The certificate's DER (parsed once per PEM per process: a signer's certificates are the same on every signature). */
export function pemToDer(pem: string): Buffer {
  let der = ders.get(pem);
  if (!der) {
    der = Buffer.from(new X509Certificate(pem).raw);
    ders.set(pem, der);
  }
  return der;
}

export interface CmsSignOptions {
  certificatePem: string;
  privateKeyPem: string;
  chainPems: string[];
  /** Returns an RFC 3161 TimeStampToken (DER ContentInfo) for the SHA-256 of the signature value. */
  timestamp?: (signatureDigest: Buffer) => Promise<Buffer>;
}

/**
 * What a signer's certificates contribute to every signature, as DER, made once per process: the
 * issuer and serial exactly as the certificate encodes them, the signing-certificate-v2 attribute,
 * and the certificates themselves (the signer's first).
 */
interface SignerIdentity {
  /** The chain's PEMs, joined: a certificate given with another chain is made again. */
  chain: string;
  issuerAndSerial: Buffer;
  signingCertificateAttribute: Buffer;
  certificates: Buffer;
}

const identities = new LruCache<string, SignerIdentity>({ maxEntries: 64 });
const privateKeys = new LruCache<string, KeyObject>({ maxEntries: 64 });

/** Empties the per-process caches of certificates and keys (benchmarks measure a signer's first signature). */
export function clearSignerCaches(): void {
  ders.clear();
  identities.clear();
  privateKeys.clear();
}

/** The DER of each piece that is the same in every signature. */
const der = {
  version1: Buffer.from([0x02, 0x01, 0x01]),
  sha256Algorithm: encodeSequence(encodeOid(cmsOids.sha256), encodeNull()),
  rsaAlgorithm: encodeSequence(encodeOid(cmsOids.rsaEncryption), encodeNull()),
  // ECDSA's AlgorithmIdentifier has no parameters (RFC 5758).
  ecdsaAlgorithm: encodeSequence(encodeOid(cmsOids.ecdsaWithSha256)),
  contentTypeAttribute: encodeSequence(encodeOid(cmsOids.contentType), encodeTlv(0x31, encodeOid(cmsOids.data))),
  messageDigestType: encodeOid(cmsOids.messageDigest),
  timestampType: encodeOid(cmsOids.signatureTimeStampToken),
  dataContent: encodeSequence(encodeOid(cmsOids.data)),
  signedDataType: encodeOid(cmsOids.signedData),
};

function getSignerIdentity(certificatePem: string, chainPems: string[]): SignerIdentity {
  // Keyed by the certificate itself (public), checked against the chain it was made with: no digest of the PEMs on every signature.
  const chain = chainPems.join('\n');
  let identity = identities.get(certificatePem);
  if (identity?.chain !== chain) {
    const certificateDer = pemToDer(certificatePem);
    // tbsCertificate: [0] version (present in v3), serialNumber, signature, issuer, ...
    const tbs = readChildren(certificateDer, readTlv(certificateDer, 0))[0];
    const fields = tbs ? readChildren(certificateDer, tbs) : [];
    const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
    const serial = fields[offset];
    const issuer = fields[offset + 2];
    if (!serial || !issuer) throw new Error('not an X.509 certificate');
    const serialDer = certificateDer.subarray(serial.offset, serial.end);
    const issuerDer = certificateDer.subarray(issuer.offset, issuer.end);
    const essCertIdV2 = encodeSequence(
      // hashAlgorithm is omitted: its DEFAULT is SHA-256.
      encodeOctetString(createHash('sha256').update(certificateDer).digest()),
      encodeSequence(encodeSequence(encodeExplicit(4, issuerDer)), serialDer),
    );
    identity = {
      issuerAndSerial: encodeSequence(issuerDer, serialDer),
      signingCertificateAttribute: encodeSequence(encodeOid(cmsOids.signingCertificateV2), encodeTlv(0x31, encodeSequence(encodeSequence(essCertIdV2)))),
      certificates: Buffer.concat([certificateDer, ...chainPems.map(pemToDer)]),
      chain,
    };
    identities.set(certificatePem, identity);
  }
  return identity;
}

/** The parsed private key, kept per process under the SHA-256 of its PEM (never the PEM itself as a key). */
function getPrivateKey(privateKeyPem: string): KeyObject {
  const key = hash('sha256', privateKeyPem, 'hex');
  let privateKey = privateKeys.get(key);
  if (!privateKey) {
    privateKey = createPrivateKey(privateKeyPem);
    privateKeys.set(key, privateKey);
  }
  return privateKey;
}

/** A detached CMS signature over `content` (the pieces one after the other, as a PDF's byte ranges), DER-encoded. */
export async function createDetachedCmsSignature(content: Buffer | Buffer[], options: CmsSignOptions): Promise<Buffer> {
  const { issuerAndSerial, signingCertificateAttribute, certificates } = getSignerIdentity(options.certificatePem, options.chainPems);
  const contentHash = createHash('sha256');
  for (const piece of Array.isArray(content) ? content : [content]) contentHash.update(piece);
  const messageDigestAttribute = encodeSequence(der.messageDigestType, encodeTlv(0x31, encodeOctetString(contentHash.digest())));
  // DER: the members of a SET OF are sorted by their encodings.
  const attributes = Buffer.concat([der.contentTypeAttribute, messageDigestAttribute, signingCertificateAttribute].sort(Buffer.compare));
  // The signature covers the DER of the attributes as a SET (tag 0x31), then they are stored [0] IMPLICIT.
  const privateKey = getPrivateKey(options.privateKeyPem);
  const signature = signWithKey('sha256', encodeTlv(0x31, attributes), privateKey);
  const signerInfoParts = [
    der.version1,
    issuerAndSerial,
    der.sha256Algorithm,
    encodeTlv(0xa0, attributes),
    // node:crypto's ECDSA signature is the DER Ecdsa-Sig-Value CMS wants.
    privateKey.asymmetricKeyType === 'ec' ? der.ecdsaAlgorithm : der.rsaAlgorithm,
    encodeOctetString(signature),
  ];
  if (options.timestamp) {
    const token = await options.timestamp(createHash('sha256').update(signature).digest());
    signerInfoParts.push(encodeTlv(0xa1, encodeSequence(der.timestampType, encodeTlv(0x31, token))));
  }
  const signedData = encodeSequence(
    der.version1,
    encodeTlv(0x31, der.sha256Algorithm),
    der.dataContent,
    encodeTlv(0xa0, certificates),
    encodeTlv(0x31, encodeSequence(...signerInfoParts)),
  );
  return encodeSequence(der.signedDataType, encodeExplicit(0, signedData));
}

/** Builds an RFC 3161 TimeStampReq for a SHA-256 digest (with a nonce and certReq). */
export function createTimestampRequest(digest: Buffer, nonce: Buffer): Buffer {
  // A positive INTEGER in its shortest form (DER): OpenSSL refuses "00 00 ..." and "00 7f ...", so a
  // fixed leading zero made one request in 256 (a nonce starting with a zero byte) unreadable to it.
  let first = 0;
  while (first < nonce.length - 1 && nonce[first] === 0) first += 1;
  const digits = nonce.length > 0 ? nonce.subarray(first) : Buffer.from([0]);
  const nonceValue = (digits[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits;
  const nonceInteger = asn1.create(Class.UNIVERSAL, Type.INTEGER, false, nonceValue.toString('binary'));
  return toDer(
    sequence([
      integer(1),
      sequence([algorithm(cmsOids.sha256), octets(digest)]),
      nonceInteger,
      asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, String.fromCharCode(0xff)),
    ]),
  );
}

/** The TimeStampToken of a granted TimeStampResp; throws with the TSA's status otherwise. */
export function readTimestampResponse(response: Buffer): Buffer {
  const parsed = fromDer(response);
  const [statusInfo, token] = parsed.value as forge.asn1.Asn1[];
  const statusNode = (statusInfo?.value as forge.asn1.Asn1[] | undefined)?.[0];
  const status = statusNode ? asn1.derToInteger(forge.util.createBuffer(statusNode.value as string)) : -1;
  // 0 granted, 1 grantedWithMods
  if ((status !== 0 && status !== 1) || !token) {
    const freeText = ((statusInfo?.value as forge.asn1.Asn1[] | undefined) ?? []).find((node) => node.type === Type.SEQUENCE);
    const reasons = ((freeText?.value as forge.asn1.Asn1[] | undefined) ?? []).map((node) => forge.util.decodeUtf8(node.value as string));
    throw new Error(`the timestamp authority refused the request (status ${status}${reasons.length > 0 ? `: ${reasons.join(' ')}` : ''})`);
  }
  return toDer(token);
}

export interface TimestampTokenFacts {
  genTime: Date;
  hashedMessage: Buffer;
  nonce: Buffer | null;
}

/** Reads TSTInfo from a TimeStampToken: when it was made, over which digest, with which nonce. */
export function readTimestampToken(token: Buffer): TimestampTokenFacts {
  const contentInfo = fromDer(token);
  const signedData = ((contentInfo.value as forge.asn1.Asn1[])[1]?.value as forge.asn1.Asn1[] | undefined)?.[0];
  const encapsulated = (signedData?.value as forge.asn1.Asn1[] | undefined)?.[2];
  const explicitContent = (encapsulated?.value as forge.asn1.Asn1[] | undefined)?.[1];
  const octetString = (explicitContent?.value as forge.asn1.Asn1[] | undefined)?.[0];
  if (!octetString) throw new Error('not a timestamp token');
  const tstInfo =
    typeof octetString.value === 'string'
      ? fromDer(Buffer.from(octetString.value, 'binary'))
      : octetString.value[0]?.tagClass === Class.UNIVERSAL && octetString.value[0]?.type === Type.SEQUENCE
        ? octetString.value[0]
        : fromDer(Buffer.from(octetString.value.map((chunk) => chunk.value as string).join(''), 'binary'));
  const fields = tstInfo.value as forge.asn1.Asn1[];
  const imprint = fields[2]?.value as forge.asn1.Asn1[] | undefined;
  const genTimeNode = fields[4];
  if (!imprint?.[1] || !genTimeNode) throw new Error('not a timestamp token');
  const nonceNode = fields.slice(5).find((field) => field.tagClass === Class.UNIVERSAL && field.type === Type.INTEGER);
  return {
    genTime: asn1.generalizedTimeToDate(genTimeNode.value as string),
    hashedMessage: Buffer.from(imprint[1].value as string, 'binary'),
    nonce: nonceNode ? Buffer.from(nonceNode.value as string, 'binary') : null,
  };
}
