import { buildChain, extendedKeyUsageOids, isIssuedBy, parseCertificate, uniqueCertificates, type Certificate, type ChainResult } from './certificates.ts';
import { digest, getDigestName, readAlgorithm, verifySignature, type DigestName } from './crypto.ts';
import {
  child,
  childrenOf,
  childrenWithTags,
  contentOf,
  DerError,
  equalBytes,
  expectTag,
  parseDer,
  rawOf,
  readIntegerHex,
  readNode,
  readOid,
  readSmallInteger,
  readTime,
  tags,
  type DerNode,
} from './der.ts';

export const cmsOids = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
} as const;

interface Attribute {
  oid: string;
  values: DerNode[];
}

function readAttributes(node: DerNode): Attribute[] {
  return childrenOf(node).map((attribute) => {
    if (attribute.tag !== tags.sequence) throw new DerError('a CMS attribute is malformed');
    const parts = childrenWithTags(attribute, [tags.oid, tags.set], 'a CMS attribute');
    if (parts.length !== 2) throw new DerError('a CMS attribute is malformed');
    const values = childrenOf(parts[1] as DerNode);
    if (values.length !== 1) throw new DerError('a CMS attribute has other than one value');
    return { oid: readOid(parts[0] as DerNode), values };
  });
}

const unsignedNodeAt = (fields: DerNode[], index: number) => fields[index]?.tag === tags.context(1);

export interface ParsedSignedData {
  certificates: Certificate[];
  contentType: string;
  /** The encapsulated content (a timestamp token's TSTInfo), null when detached. */
  content: Uint8Array | null;
  signerInfo: DerNode;
}

/** A ContentInfo holding SignedData with exactly one SignerInfo (how seals, manifests and timestamp tokens are made). */
export function parseSignedData(der: Uint8Array, allowTrailingZeros = false): ParsedSignedData {
  const contentInfo = expectTag(parseDer(der, allowTrailingZeros), tags.sequence, 'the CMS content info');
  const [type, explicit, ...rest] = childrenWithTags(contentInfo, [tags.oid, tags.context(0)], 'the CMS content info');
  if (rest.length > 0 || readOid(type as DerNode) !== cmsOids.signedData) throw new DerError('it is not CMS signed data');
  const wrapped = childrenOf(explicit as DerNode);
  if (wrapped.length !== 1) throw new DerError('the CMS content info is malformed');
  const signedData = expectTag(wrapped[0] as DerNode, tags.sequence, 'the CMS signed data');
  const fields = childrenWithTags(signedData, [tags.integer, tags.set, tags.sequence], 'the CMS signed data');
  const version = readSmallInteger(fields[0] as DerNode);
  if (version !== 1 && version !== 3) throw new DerError(`the CMS signed data has version ${version}`);
  const encapsulated = fields[2] as DerNode;
  const [contentTypeNode, contentExplicit, ...extra] = childrenOf(encapsulated);
  if (extra.length > 0 || (contentExplicit && contentExplicit.tag !== tags.context(0))) throw new DerError('the CMS content is malformed');
  const contentNode = contentExplicit ? expectTag(child(contentExplicit, 0), tags.octetString, 'the CMS content') : null;
  const optional = fields.slice(3, -1);
  if (optional.some((field) => field.tag !== tags.context(0) && field.tag !== tags.context(1))) throw new DerError('the CMS signed data is malformed');
  const certificatesNode = optional.find((field) => field.tag === tags.context(0));
  const signerInfos = fields[fields.length - 1];
  if (!signerInfos || signerInfos.tag !== tags.set || fields.length < 4) throw new DerError('the CMS signed data has no signer');
  const signers = childrenOf(signerInfos);
  if (signers.length !== 1) throw new DerError(`the CMS signed data has ${signers.length} signers instead of one`);
  const signerInfo = expectTag(signers[0] as DerNode, tags.sequence, 'the CMS signer');
  // The digest the signer uses must be among those the signed data announces.
  const signerDigest = childrenOf(signerInfo)[2];
  const announced = childrenOf(fields[1] as DerNode);
  if (!signerDigest || !announced.some((algorithm) => equalBytes(rawOf(algorithm), rawOf(signerDigest))))
    throw new DerError("the signer's digest algorithm is not the one announced");
  for (const algorithm of announced) readAlgorithm(algorithm);
  return {
    certificates: certificatesNode ? childrenOf(certificatesNode).map((node) => parseCertificate(rawOf(node).slice())) : [],
    contentType: readOid(contentTypeNode as DerNode),
    content: contentNode ? contentOf(contentNode) : null,
    signerInfo,
  };
}

export interface CmsVerification {
  /** Every problem found, as parts of a sentence ("the signed bytes were changed after signing"). */
  problems: string[];
  signer: Certificate | null;
  chain: ChainResult | null;
  digestName: DigestName;
  signatureValue: Uint8Array;
  claimedSigningTime: Date | null;
  hasSigningCertificateV2: boolean;
  /** The unsigned signature-time-stamp attribute's token, if any. */
  timestampToken: Uint8Array | null;
  certificates: Certificate[];
}

function findSigner(signerInfo: DerNode, pool: Certificate[]): Certificate | null {
  const identifier = child(signerInfo, 1);
  if (identifier.tag === tags.sequence) {
    const [issuer, serial] = childrenOf(identifier);
    if (!issuer || !serial) return null;
    const serialHex = readIntegerHex(serial);
    return pool.find((certificate) => certificate.serialHex === serialHex && equalBytes(certificate.issuerDer, rawOf(issuer))) ?? null;
  }
  if (identifier.tag === tags.context(0, false)) {
    const keyId = contentOf(identifier);
    return pool.find((certificate) => certificate.subjectKeyId && equalBytes(certificate.subjectKeyId, keyId)) ?? null;
  }
  return null;
}

/**
 * Verifies a SignerInfo: the signed attributes' message digest against `content` (the parts are
 * hashed in order), the signature over the attributes with the signer's key, the
 * signing-certificate-v2 binding, the signer's chain through `extraCertificates`, and that every
 * certificate carried verifies under its issuer when that issuer is at hand.
 */
export async function verifySignedData(
  parsed: ParsedSignedData,
  content: Uint8Array[],
  extraCertificates: Certificate[],
  at: (claimed: Date | null) => Date,
): Promise<CmsVerification> {
  const problems: string[] = [];
  const fields = childrenOf(parsed.signerInfo);
  const signerVersion = readSmallInteger(fields[0] as DerNode);
  const identifierTag = fields[1]?.tag;
  if (!((signerVersion === 1 && identifierTag === tags.sequence) || (signerVersion === 3 && identifierTag === tags.context(0, false))))
    throw new DerError('the CMS signer version does not match how it names its certificate');
  const digestName = getDigestName(readAlgorithm(fields[2] as DerNode));
  const signedAttributesNode = fields.find((field) => field.tag === tags.context(0));
  const signatureIndex = fields.findIndex((field) => field.tag === tags.octetString);
  const signatureAlgorithm = fields[signatureIndex - 1];
  const signatureNode = fields[signatureIndex];
  if (!signedAttributesNode || !signatureAlgorithm || !signatureNode || signatureIndex !== 5 || fields[3] !== signedAttributesNode)
    throw new DerError('the CMS signer has no signed attributes');
  if (fields.length > 7 || (fields.length === 7 && !unsignedNodeAt(fields, 6))) throw new DerError('the CMS signer is malformed');
  const signatureValue = contentOf(signatureNode);
  const unsignedNode = fields.slice(signatureIndex + 1).find((field) => field.tag === tags.context(1));

  const attributes = readAttributes(signedAttributesNode);
  const messageDigest = attributes.find((attribute) => attribute.oid === cmsOids.messageDigest)?.values[0];
  const contentType = attributes.find((attribute) => attribute.oid === cmsOids.contentType)?.values[0];
  const signingTimeNode = attributes.find((attribute) => attribute.oid === cmsOids.signingTime)?.values[0];
  const signingCertificateV2 = attributes.find((attribute) => attribute.oid === cmsOids.signingCertificateV2)?.values[0];
  const signingCertificateV1 = attributes.find((attribute) => attribute.oid === cmsOids.signingCertificate)?.values[0];
  if (!messageDigest) problems.push('the signature has no message digest');
  else if (!equalBytes(contentOf(messageDigest), digest(digestName, ...content)))
    problems.push('the signed bytes were changed after signing (their digest differs from the signed one)');
  if (!contentType || readOid(contentType) !== parsed.contentType) problems.push('the signed content type does not match');

  const pool = uniqueCertificates([...parsed.certificates, ...extraCertificates]);
  const signer = findSigner(parsed.signerInfo, pool);
  let chain: ChainResult | null = null;
  const claimedSigningTime = signingTimeNode ? readTime(signingTimeNode) : null;
  if (!signer) problems.push("the signer's certificate is not included");
  else {
    // The attributes are signed as a SET OF (tag 0x31), though stored with the tag [0] IMPLICIT.
    const signedBytes = rawOf(signedAttributesNode).slice();
    signedBytes[0] = tags.set;
    let isValid = false;
    try {
      isValid = await verifySignature(signer.spki, readAlgorithm(signatureAlgorithm), digestName, signedBytes, signatureValue);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : 'the signature could not be checked');
    }
    if (!isValid) problems.push("the signature value does not verify with the signer's key");
    const binding = signingCertificateV2 ?? signingCertificateV1;
    if (binding) {
      // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 ... }; ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256, certHash OCTET STRING, ... }
      const first = child(child(binding, 0), 0);
      const parts = childrenOf(first);
      const hashName: DigestName = signingCertificateV2 ? (parts[0]?.tag === tags.sequence ? getDigestName(readAlgorithm(parts[0])) : 'SHA-256') : 'SHA-1';
      const hashNode = parts.find((part) => part.tag === tags.octetString);
      if (!hashNode || !equalBytes(contentOf(hashNode), digest(hashName, signer.der)))
        problems.push('the signed reference to the signing certificate names another certificate');
    }
    chain = await buildChain(signer, pool, at(claimedSigningTime));
    problems.push(...chain.problems);
  }
  // A certificate carried but not on the signer's path still has to be intact when its issuer is at hand.
  for (const certificate of parsed.certificates) {
    if (chain?.chain.includes(certificate)) continue;
    for (const issuer of pool) {
      if (equalBytes(issuer.subjectDer, certificate.issuerDer) && !(await isIssuedBy(certificate, issuer))) {
        problems.push(`the included certificate of ${certificate.holderName} does not verify under ${issuer.holderName}'s key`);
      }
    }
  }
  let timestampToken: Uint8Array | null = null;
  if (unsignedNode) {
    // Unsigned attributes are outside the signature: one this verifier does not know could be a changed one, so it is named.
    for (const attribute of readAttributes(unsignedNode)) {
      if (attribute.oid === cmsOids.signatureTimeStampToken && !timestampToken) timestampToken = rawOf(attribute.values[0] as DerNode);
      else problems.push(`the signature carries an unsigned attribute this verifier does not know (${attribute.oid})`);
    }
  }
  return {
    problems,
    signer,
    chain,
    digestName,
    signatureValue,
    claimedSigningTime,
    hasSigningCertificateV2: Boolean(signingCertificateV2),
    timestampToken,
    certificates: parsed.certificates,
  };
}

export interface TimestampVerification {
  problems: string[];
  time: Date | null;
  authority: Certificate | null;
  chain: ChainResult | null;
  certificates: Certificate[];
}

/** Verifies an RFC 3161 token: its TSTInfo's message imprint against `data`, the TSA's signature and chain. */
export async function verifyTimestampToken(
  token: Uint8Array,
  data: Uint8Array[],
  extraCertificates: Certificate[],
  allowTrailingZeros = false,
): Promise<TimestampVerification> {
  let parsed: ParsedSignedData;
  try {
    parsed = parseSignedData(token, allowTrailingZeros);
  } catch (error) {
    return {
      problems: [`the timestamp token cannot be read (${error instanceof Error ? error.message : 'malformed'})`],
      time: null,
      authority: null,
      chain: null,
      certificates: [],
    };
  }
  if (parsed.contentType !== cmsOids.tstInfo || !parsed.content) {
    return { problems: ['the timestamp token holds no timestamp'], time: null, authority: null, chain: null, certificates: parsed.certificates };
  }
  const problems: string[] = [];
  const tstInfo = readNode(parsed.content);
  const fields = childrenOf(tstInfo);
  const imprint = fields[2];
  const genTime = fields[4];
  if (!imprint || !genTime) throw new DerError('the timestamp is incomplete');
  const time = readTime(genTime);
  const imprintName = getDigestName(readAlgorithm(child(imprint, 0)));
  if (!equalBytes(contentOf(child(imprint, 1)), digest(imprintName, ...data)))
    problems.push('the timestamp is for other data (its message imprint does not match)');
  const cms = await verifySignedData(parsed, [parsed.content], extraCertificates, () => time);
  problems.push(...cms.problems.map((problem) => problem.replace("the signer's", "the timestamp authority's")));
  if (cms.signer && !cms.signer.extendedKeyUsages.includes(extendedKeyUsageOids.timeStamping))
    problems.push("the timestamp authority's certificate is not one for timestamps");
  return { problems, time, authority: cms.signer, chain: cms.chain, certificates: parsed.certificates };
}
