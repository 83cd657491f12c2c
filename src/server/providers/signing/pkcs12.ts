import { createPrivateKey, sign as signWithKey, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { AppError } from '#server/lib/errors.ts';

/**
 * Reads a notary's own PKCS#12 (.p12/.pfx) file: the one private key, the certificate it belongs
 * to and the issuer chain, checked so that a signature made with them is one a PDF reader accepts.
 * node-forge opens the container; node:crypto reads the keys and certificates (forge reads RSA
 * only, and node:crypto is what signs later).
 */

export interface UploadedCertificate {
  certificatePem: string;
  /** Issuer certificates found in the file, nearest first, then any others it held. */
  chainPems: string[];
  privateKeyPem: string;
  /** Hex, lower case (as the platform's own serial numbers are stored). */
  serialNumber: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
}

export const pkcs12Messages = {
  unreadable: 'The certificate file or its password is not right.',
  keyCount: 'The file must hold exactly one private key.',
  keyMismatch: 'The private key in the file does not belong to any certificate in it.',
  expired: 'This certificate has expired.',
  notYetValid: 'This certificate is not valid yet.',
  keyUsage: 'This certificate may not be used for signatures: its key usage allows neither digital signature nor non-repudiation.',
  keyType: 'The key must be an RSA (2048 bits or more) or an elliptic-curve key.',
  tooManyRounds: 'This file’s password protection uses more rounds than this server accepts. Export it again with standard settings.',
} as const;

const keyUsageOid = '2.5.29.15';
const minimumRsaBits = 2048;
/**
 * forge derives keys in JavaScript, on the event loop (~70 ms per 1,000 rounds): exporters use
 * 2,000 to 10,000 rounds a step; a crafted file with millions would stall the server.
 */
const maxIterations = 100_000;
const maxScanDepth = 16;
const { asn1 } = forge;
const { Class, Type } = asn1;

const invalid = (message: string) => new AppError(400, 'invalid_certificate', message);

/** "CN=Nora Notary, O=Example" from node's one-attribute-a-line form. */
export function formatDistinguishedNameLines(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

function toDer(node: forge.asn1.Asn1): Buffer {
  return Buffer.from(asn1.toDer(node).getBytes(), 'binary');
}

/**
 * The round counts a file asks for, wherever they can be seen before decrypting: MacData,
 * PKCS#12 PBE and PBKDF2 parameters all put an INTEGER count right after an OCTET STRING salt.
 * OCTET STRINGs are looked into when they hold DER (the authenticated safe, its SafeContents).
 */
export function findIterationCounts(node: forge.asn1.Asn1, depth = 0): number[] {
  if (depth > maxScanDepth) return [];
  const isOctetString = node.tagClass === Class.UNIVERSAL && node.type === Type.OCTETSTRING;
  // BER may split an OCTET STRING into a constructed one of chunks.
  const octets = !isOctetString
    ? null
    : typeof node.value === 'string'
      ? node.value
      : node.value.map((chunk) => (typeof chunk.value === 'string' ? chunk.value : '')).join('');
  if (octets !== null) {
    if (octets.length < 2) return [];
    try {
      const inner = (asn1.fromDer as unknown as (bytes: string, options: object) => forge.asn1.Asn1)(octets, {
        strict: true,
        parseAllBytes: true,
        decodeBitStrings: false,
      });
      return findIterationCounts(inner, depth + 1);
    } catch {
      return [];
    }
  }
  if (Array.isArray(node.value)) {
    return node.value.flatMap((child, index) => {
      const previous = index > 0 ? (node.value as forge.asn1.Asn1[])[index - 1] : undefined;
      const isCount =
        node.tagClass === Class.UNIVERSAL &&
        node.type === Type.SEQUENCE &&
        child.tagClass === Class.UNIVERSAL &&
        child.type === Type.INTEGER &&
        previous?.tagClass === Class.UNIVERSAL &&
        previous.type === Type.OCTETSTRING &&
        typeof child.value === 'string';
      const count = isCount ? [...(child.value as string)].reduce((total, character) => total * 256 + character.charCodeAt(0), 0) : null;
      return [...(count === null ? [] : [count]), ...findIterationCounts(child, depth + 1)];
    });
  }
  return [];
}

function openContainer(file: Buffer, password: string): forge.pkcs12.Bag[] {
  let container: forge.asn1.Asn1;
  try {
    container = asn1.fromDer(forge.util.createBuffer(file.toString('binary')));
  } catch {
    throw invalid(pkcs12Messages.unreadable);
  }
  if (findIterationCounts(container).some((count) => count > maxIterations)) throw invalid(pkcs12Messages.tooManyRounds);
  try {
    const pfx = forge.pkcs12.pkcs12FromAsn1(container, false, password);
    return pfx.safeContents.flatMap((contents) => contents.safeBags);
  } catch {
    // Not DER, not PKCS#12, a MAC that does not verify or a key that does not decrypt: to the
    // person uploading it, all of them mean the file or the password is wrong.
    throw invalid(pkcs12Messages.unreadable);
  }
}

function readPrivateKey(bag: forge.pkcs12.Bag): KeyObject {
  // forge decodes RSA keys; any other kind stays as the PrivateKeyInfo it could not read.
  const privateKeyInfo = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)) : bag.asn1;
  if (!privateKeyInfo) throw invalid(pkcs12Messages.unreadable);
  try {
    return createPrivateKey({ key: toDer(privateKeyInfo), format: 'der', type: 'pkcs8' });
  } catch {
    throw invalid(pkcs12Messages.keyType);
  }
}

function readCertificate(bag: forge.pkcs12.Bag): X509Certificate | null {
  const node = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
  if (!node) return null;
  try {
    return new X509Certificate(toDer(node));
  } catch {
    return null;
  }
}

/** The keyUsage bits for signing, or null when the certificate has no keyUsage extension. */
export function readSigningKeyUsage(certificate: X509Certificate): { digitalSignature: boolean; nonRepudiation: boolean } | null {
  const parse = (bytes: string) => (asn1.fromDer as unknown as (bytes: string, options: object) => forge.asn1.Asn1)(bytes, { decodeBitStrings: false });
  const children = (node: forge.asn1.Asn1 | undefined) => (Array.isArray(node?.value) ? node.value : []);
  const tbs = children(parse(Buffer.from(certificate.raw).toString('binary')))[0];
  const extensionsField = children(tbs).find((node) => node.tagClass === asn1.Class.CONTEXT_SPECIFIC && node.type === 3);
  for (const extension of children(children(extensionsField)[0])) {
    const parts = children(extension);
    const [identifier, value] = [parts[0], parts.at(-1)];
    if (typeof identifier?.value !== 'string' || asn1.derToOid(identifier.value) !== keyUsageOid || typeof value?.value !== 'string') continue;
    const bits = parse(value.value).value;
    // BIT STRING: the count of unused bits, then the bits; digitalSignature is bit 0, nonRepudiation bit 1.
    const first = typeof bits === 'string' ? bits.charCodeAt(1) || 0 : 0;
    return { digitalSignature: (first & 0x80) !== 0, nonRepudiation: (first & 0x40) !== 0 };
  }
  return null;
}

function assertCanSign(key: KeyObject, certificate: X509Certificate) {
  const isRsa = key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= minimumRsaBits;
  if (!isRsa && key.asymmetricKeyType !== 'ec') throw invalid(pkcs12Messages.keyType);
  const probe = Buffer.from('open-ron signing probe');
  try {
    if (!verifySignature('sha256', probe, certificate.publicKey, signWithKey('sha256', probe, key))) throw new Error('the signature does not verify');
  } catch {
    throw invalid(pkcs12Messages.keyType);
  }
}

/** Orders the other certificates from the leaf's issuer upwards; what is not on that path follows. */
function orderChain(leaf: X509Certificate, others: X509Certificate[]): X509Certificate[] {
  const remaining = others.filter((certificate) => !Buffer.from(certificate.raw).equals(Buffer.from(leaf.raw)));
  const chain: X509Certificate[] = [];
  let current = leaf;
  while (!current.checkIssued(current)) {
    const child = current;
    const index = remaining.findIndex((candidate) => child.checkIssued(candidate) && child.verify(candidate.publicKey));
    if (index < 0) break;
    const [issuer] = remaining.splice(index, 1);
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return [...chain, ...remaining];
}

/**
 * Opens a PKCS#12 file with its password and checks it holds exactly one private key, that the key
 * belongs to a certificate in the file, and that this certificate is valid now, allowed to sign,
 * and carries an RSA or EC key node:crypto signs with. Throws a 400 with a plain message otherwise.
 */
export function readPkcs12(file: Buffer, password: string, now = new Date()): UploadedCertificate {
  const bags = openContainer(file, password);
  const keyBags = bags.filter((bag) => bag.type === forge.pki.oids.keyBag || bag.type === forge.pki.oids.pkcs8ShroudedKeyBag);
  if (keyBags.length !== 1 || !keyBags[0]) throw invalid(pkcs12Messages.keyCount);
  const key = readPrivateKey(keyBags[0]);
  const certificates = bags
    .filter((bag) => bag.type === forge.pki.oids.certBag)
    .map(readCertificate)
    .filter((certificate) => certificate !== null);
  const leaf = certificates.find((certificate) => certificate.checkPrivateKey(key));
  if (!leaf) throw invalid(pkcs12Messages.keyMismatch);

  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime()) throw invalid(pkcs12Messages.expired);
  if (notBefore.getTime() > now.getTime()) throw invalid(pkcs12Messages.notYetValid);
  const keyUsage = readSigningKeyUsage(leaf);
  if (keyUsage && !keyUsage.digitalSignature && !keyUsage.nonRepudiation) throw invalid(pkcs12Messages.keyUsage);
  assertCanSign(key, leaf);

  return {
    certificatePem: leaf.toString(),
    chainPems: orderChain(leaf, certificates).map((certificate) => certificate.toString()),
    privateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    serialNumber: leaf.serialNumber.toLowerCase(),
    subject: formatDistinguishedNameLines(leaf.subject),
    issuer: formatDistinguishedNameLines(leaf.issuer),
    notBefore,
    notAfter,
  };
}
