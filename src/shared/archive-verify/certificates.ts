import {
  child,
  childrenOf,
  childrenWithTags,
  contentOf,
  DerError,
  expectTag,
  equalBytes,
  parseDer,
  rawOf,
  readBitString,
  readIntegerHex,
  readNode,
  readOid,
  readString,
  readTime,
  tags,
  toHex,
  type DerNode,
} from './der.ts';
import { digest, readAlgorithm, verifySignature } from './crypto.ts';

export interface Certificate {
  der: Uint8Array;
  fingerprint: string;
  serialHex: string;
  issuerDer: Uint8Array;
  subjectDer: Uint8Array;
  /** The common name, else the whole subject: how a sentence names the holder. */
  holderName: string;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  /** The subjectPublicKey BIT STRING's bits (what an OCSP CertID's issuerKeyHash covers). */
  publicKeyBits: Uint8Array;
  isCa: boolean;
  extendedKeyUsages: string[];
  subjectKeyId: Uint8Array | null;
  tbs: Uint8Array;
  signatureOid: string;
  signature: Uint8Array;
}

export const extendedKeyUsageOids = { ocspSigning: '1.3.6.1.5.5.7.3.9', timeStamping: '1.3.6.1.5.5.7.3.8' } as const;

const attributeLabels: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.8': 'ST',
  '2.5.4.7': 'L',
  '2.5.4.5': 'serialNumber',
};

function readNameAttributes(name: DerNode): { oid: string; value: string }[] {
  const attributes: { oid: string; value: string }[] = [];
  for (const relative of childrenOf(name)) {
    for (const pair of childrenOf(relative)) {
      const [type, value] = childrenOf(pair);
      if (type && value) attributes.push({ oid: readOid(type), value: readString(value) });
    }
  }
  return attributes;
}

export function describeName(nameDer: Uint8Array): string {
  const attributes = readNameAttributes(readNode(nameDer));
  const commonName = attributes.find((attribute) => attribute.oid === '2.5.4.3');
  if (commonName) return commonName.value;
  return attributes.map((attribute) => `${attributeLabels[attribute.oid] ?? attribute.oid}=${attribute.value}`).join(', ') || 'an unnamed holder';
}

export function parseCertificate(der: Uint8Array): Certificate {
  const root = expectTag(parseDer(der), tags.sequence, 'a certificate');
  const parts = childrenWithTags(root, [tags.sequence, tags.sequence, tags.bitString], 'a certificate');
  if (parts.length !== 3) throw new DerError('a certificate is malformed');
  const [tbs, algorithm, signature] = parts as [DerNode, DerNode, DerNode];
  const fields = childrenOf(tbs);
  const offset = fields[0]?.tag === tags.context(0) ? 1 : 0;
  childrenWithTags(
    tbs,
    [...(offset ? [tags.context(0)] : []), tags.integer, tags.sequence, tags.sequence, tags.sequence, tags.sequence, tags.sequence],
    'a certificate',
  );
  const serial = fields[offset];
  const issuer = fields[offset + 2];
  const validity = fields[offset + 3];
  const subject = fields[offset + 4];
  const spki = fields[offset + 5];
  if (!serial || !issuer || !validity || !subject || !spki) throw new DerError('not an X.509 certificate');
  let isCa = false;
  let extendedKeyUsages: string[] = [];
  let subjectKeyId: Uint8Array | null = null;
  const extensions = fields.find((field) => field.tag === tags.context(3));
  if (extensions) {
    for (const extension of childrenOf(child(extensions, 0))) {
      const parts = childrenOf(extension);
      const id = readOid(parts[0] as DerNode);
      const value = parts[parts.length - 1] as DerNode;
      const inner = readNode(contentOf(value));
      if (id === '2.5.29.19') isCa = childrenOf(inner).some((node) => node.tag === tags.boolean && contentOf(node)[0] !== 0);
      if (id === '2.5.29.37') extendedKeyUsages = childrenOf(inner).map(readOid);
      if (id === '2.5.29.14') subjectKeyId = contentOf(inner);
    }
  }
  return {
    der,
    fingerprint: toHex(digest('SHA-256', der)),
    serialHex: readIntegerHex(serial),
    issuerDer: rawOf(issuer),
    subjectDer: rawOf(subject),
    holderName: describeName(rawOf(subject)),
    notBefore: readTime(child(validity, 0)),
    notAfter: readTime(child(validity, 1)),
    spki: rawOf(spki),
    publicKeyBits: readBitString(child(spki, 1)),
    isCa,
    extendedKeyUsages,
    subjectKeyId,
    tbs: rawOf(tbs),
    signatureOid: readAlgorithm(algorithm),
    signature: readBitString(signature),
  };
}

export const isSelfIssued = (certificate: Certificate) => equalBytes(certificate.issuerDer, certificate.subjectDer);

/** "AB:CD:…" as certificate viewers print a fingerprint. */
export function formatFingerprint(hex: string): string {
  return (hex.toUpperCase().match(/../g) ?? []).join(':');
}

export async function isIssuedBy(certificate: Certificate, issuer: Certificate): Promise<boolean> {
  if (!equalBytes(certificate.issuerDer, issuer.subjectDer)) return false;
  try {
    return await verifySignature(issuer.spki, certificate.signatureOid, null, certificate.tbs, certificate.signature);
  } catch {
    return false;
  }
}

export function uniqueCertificates(certificates: Certificate[]): Certificate[] {
  const seen = new Set<string>();
  return certificates.filter((certificate) => !seen.has(certificate.fingerprint) && seen.add(certificate.fingerprint));
}

export interface ChainResult {
  /** Leaf first, up to the last certificate found. */
  chain: Certificate[];
  /** The self-signed certificate the chain ends at, if it does. */
  root: Certificate | null;
  problems: string[];
}

/**
 * Follows issuers from `leaf` through `pool` (every signature checked) to a self-signed
 * certificate, and checks each certificate was within its validity at `at`.
 */
export async function buildChain(leaf: Certificate, pool: Certificate[], at: Date): Promise<ChainResult> {
  const chain = [leaf];
  const problems: string[] = [];
  let current = leaf;
  for (let depth = 0; depth < 8; depth++) {
    if (isSelfIssued(current)) {
      if (!(await isIssuedBy(current, current))) {
        problems.push(`the self-signed certificate of ${current.holderName} does not verify (it was altered)`);
        return { chain, root: null, problems };
      }
      break;
    }
    let issuer: Certificate | undefined;
    for (const candidate of pool) {
      if (candidate.fingerprint !== current.fingerprint && (await isIssuedBy(current, candidate))) {
        issuer = candidate;
        break;
      }
    }
    if (!issuer) {
      const sameName = pool.some((candidate) => equalBytes(candidate.subjectDer, current.issuerDer));
      problems.push(
        sameName
          ? `the certificate of ${current.holderName} does not verify under its issuer ${describeName(current.issuerDer)}'s key (one of them was altered)`
          : `the issuer of ${current.holderName}'s certificate, ${describeName(current.issuerDer)}, is not included`,
      );
      return { chain, root: null, problems };
    }
    if (chain.length > 1 || issuer !== leaf) {
      if (!issuer.isCa) problems.push(`${issuer.holderName}'s certificate is not a certificate authority's`);
    }
    chain.push(issuer);
    current = issuer;
  }
  for (const certificate of chain) {
    if (at < certificate.notBefore || at > certificate.notAfter) problems.push(`${certificate.holderName}'s certificate was not valid at that time`);
  }
  const last = chain[chain.length - 1] as Certificate;
  return { chain, root: isSelfIssued(last) ? last : null, problems };
}

/** "Nora Notary's" for a certificate's holder. */
export function possessiveHolder(certificate: Certificate): string {
  const name = certificate.holderName;
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}
