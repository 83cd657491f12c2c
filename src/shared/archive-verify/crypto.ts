import { sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { child, childrenOf, contentOf, DerError, parseDer, readNode, readOid, tags, type DerNode } from './der.ts';

/** The digest and signature algorithms a platform seal, a TSA or an OCSP responder uses (RSA PKCS#1 v1.5 and ECDSA). */
export const oids = {
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRsa: '1.2.840.113549.1.1.5',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  sha384WithRsa: '1.2.840.113549.1.1.12',
  sha512WithRsa: '1.2.840.113549.1.1.13',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  p521: '1.3.132.0.35',
} as const;

export type DigestName = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

const digestByOid: Record<string, DigestName> = { [oids.sha1]: 'SHA-1', [oids.sha256]: 'SHA-256', [oids.sha384]: 'SHA-384', [oids.sha512]: 'SHA-512' };

export function getDigestName(oid: string): DigestName {
  const name = digestByOid[oid];
  if (!name) throw new DerError(`the digest algorithm ${oid} is not supported`);
  return name;
}

const hashers = { 'SHA-1': sha1, 'SHA-256': sha256, 'SHA-384': sha384, 'SHA-512': sha512 } as const;

/** An incremental hash (for file contents read in chunks). */
export function createDigest(name: DigestName) {
  return hashers[name].create();
}

export function digest(name: DigestName, ...parts: Uint8Array[]): Uint8Array {
  const hash = createDigest(name);
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** The signature algorithm: a combined OID (sha256WithRSAEncryption) or a bare key type with the digest given apart (CMS SignerInfo). */
function getSignatureScheme(signatureOid: string, separateDigest: DigestName | null): { kind: 'rsa' | 'ecdsa'; hash: DigestName } {
  switch (signatureOid) {
    case oids.sha1WithRsa:
      return { kind: 'rsa', hash: 'SHA-1' };
    case oids.sha256WithRsa:
      return { kind: 'rsa', hash: 'SHA-256' };
    case oids.sha384WithRsa:
      return { kind: 'rsa', hash: 'SHA-384' };
    case oids.sha512WithRsa:
      return { kind: 'rsa', hash: 'SHA-512' };
    case oids.ecdsaWithSha256:
      return { kind: 'ecdsa', hash: 'SHA-256' };
    case oids.ecdsaWithSha384:
      return { kind: 'ecdsa', hash: 'SHA-384' };
    case oids.ecdsaWithSha512:
      return { kind: 'ecdsa', hash: 'SHA-512' };
    case oids.rsaEncryption:
      if (separateDigest) return { kind: 'rsa', hash: separateDigest };
      break;
    case oids.ecPublicKey:
      if (separateDigest) return { kind: 'ecdsa', hash: separateDigest };
      break;
  }
  throw new DerError(`the signature algorithm ${signatureOid} is not supported`);
}

const curves: Record<string, { name: string; size: number }> = {
  [oids.p256]: { name: 'P-256', size: 32 },
  [oids.p384]: { name: 'P-384', size: 48 },
  [oids.p521]: { name: 'P-521', size: 66 },
};

/** DER Ecdsa-Sig-Value, SEQUENCE { r INTEGER, s INTEGER } and nothing else, to the fixed-size r||s WebCrypto verifies. */
function toRawEcdsaSignature(signature: Uint8Array, size: number): Uint8Array {
  const value = parseDer(signature);
  const parts = value.tag === tags.sequence ? childrenOf(value) : [];
  const [r, s] = parts;
  if (parts.length !== 2 || r?.tag !== tags.integer || s?.tag !== tags.integer) throw new DerError('an ECDSA signature is malformed');
  const raw = new Uint8Array(size * 2);
  for (const [index, part] of [r, s].entries()) {
    let value = contentOf(part);
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    if (value.length > size) throw new DerError('an ECDSA signature is malformed');
    raw.set(value, index * size + (size - value.length));
  }
  return raw;
}

const copy = (bytes: Uint8Array): ArrayBuffer => bytes.slice().buffer as ArrayBuffer;

/**
 * Verifies a signature with WebCrypto (the same code in Node and the browser). `spki` is the
 * signer's SubjectPublicKeyInfo DER. False for a wrong signature; throws for an unsupported key.
 */
export async function verifySignature(
  spki: Uint8Array,
  signatureOid: string,
  separateDigest: DigestName | null,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const scheme = getSignatureScheme(signatureOid, separateDigest);
  const keyAlgorithm = child(readNode(spki), 0);
  const keyOid = readOid(child(keyAlgorithm, 0));
  if (scheme.kind === 'rsa') {
    if (keyOid !== oids.rsaEncryption) return false;
    const key = await crypto.subtle.importKey('spki', copy(spki), { name: 'RSASSA-PKCS1-v1_5', hash: scheme.hash }, false, ['verify']);
    return crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, copy(signature), copy(data));
  }
  if (keyOid !== oids.ecPublicKey) return false;
  const curveNode = childrenOf(keyAlgorithm)[1];
  const curve = curveNode && curveNode.tag === tags.oid ? curves[readOid(curveNode)] : undefined;
  if (!curve) throw new DerError('the elliptic curve of a key is not supported');
  const key = await crypto.subtle.importKey('spki', copy(spki), { name: 'ECDSA', namedCurve: curve.name }, false, ['verify']);
  let raw: Uint8Array;
  try {
    raw = toRawEcdsaSignature(signature, curve.size);
  } catch {
    return false;
  }
  return crypto.subtle.verify({ name: 'ECDSA', hash: scheme.hash }, key, copy(raw), copy(data));
}

/** An AlgorithmIdentifier's OID; its parameters must be absent or NULL (every algorithm used here has none). */
export function readAlgorithm(node: DerNode): string {
  if (node.tag !== tags.sequence) throw new DerError('an algorithm identifier is malformed');
  const parts = childrenOf(node);
  const parameters = parts[1];
  if (parts.length > 2 || (parameters && (parameters.tag !== tags.null || parameters.end !== parameters.contentStart)))
    throw new DerError('an algorithm identifier has unexpected parameters');
  return readOid(parts[0] as DerNode);
}
