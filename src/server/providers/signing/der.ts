/**
 * A few DER pieces written and read by hand where re-encoding through a schema could change bytes
 * that a signature covers (a certificate's name and key, a signed structure around its raw body).
 */

export interface Tlv {
  tag: number;
  /** Where the value starts. */
  start: number;
  /** One past the last byte of the value. */
  end: number;
  /** Where the element (tag and length) starts. */
  offset: number;
}

/** Reads one element at `offset`; throws on a length that runs past the buffer. */
export function readTlv(buffer: Uint8Array, offset: number): Tlv {
  if (offset + 2 > buffer.length) throw new Error('DER element cut short');
  const tag = buffer[offset] ?? 0;
  let position = offset + 1;
  const first = buffer[position] ?? 0;
  position += 1;
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4 || position + octets > buffer.length) throw new Error('DER length not supported');
    length = 0;
    for (let index = 0; index < octets; index += 1) length = length * 256 + (buffer[position + index] ?? 0);
    position += octets;
  }
  if (position + length > buffer.length) throw new Error('DER element runs past its container');
  return { tag, start: position, end: position + length, offset };
}

/** The children of a constructed element. */
export function readChildren(buffer: Uint8Array, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  let position = parent.start;
  while (position < parent.end) {
    const child = readTlv(buffer, position);
    children.push(child);
    position = child.end;
  }
  return children;
}

export function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function encodeTlv(tag: number, ...values: Uint8Array[]): Buffer {
  const value = Buffer.concat(values);
  return Buffer.concat([Buffer.from([tag]), encodeLength(value.length), value]);
}

export const encodeSequence = (...values: Uint8Array[]) => encodeTlv(0x30, ...values);

/** A non-negative INTEGER, minimal, with a leading zero where the top bit is set. */
export function encodeUnsignedInteger(value: bigint): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return encodeTlv(0x02, bytes);
}

export const encodeBitString = (bytes: Uint8Array) => encodeTlv(0x03, Buffer.from([0]), bytes);

/** The raw parts of a certificate a revocation check needs, as their exact DER bytes. */
export interface CertificateParts {
  /** The serial's value octets, hex, without leading zeros. */
  serialHex: string;
  issuerDer: Buffer;
  subjectDer: Buffer;
  /** The subjectPublicKey BIT STRING's bits (no unused-bits octet): what an OCSP issuerKeyHash hashes. */
  publicKeyBits: Buffer;
  /** The extensions by OID, each its extnValue's content. */
  extensions: Map<string, Buffer>;
}

function decodeOid(bytes: Uint8Array): string {
  const parts: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** Normalizes a serial in hex: lowercase, no leading zero octets (how a stored serial compares). */
export function normalizeSerialHex(hex: string): string {
  return hex.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, '') || '00';
}

export function readCertificateParts(der: Uint8Array): CertificateParts {
  const buffer = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  const certificate = readTlv(buffer, 0);
  const [tbs] = readChildren(buffer, certificate);
  if (!tbs) throw new Error('not a certificate');
  const fields = readChildren(buffer, tbs);
  const hasVersion = fields[0]?.tag === 0xa0;
  const [serial, , issuer, , subject, publicKeyInfo] = hasVersion ? fields.slice(1) : fields;
  if (!serial || !issuer || !subject || !publicKeyInfo) throw new Error('not a certificate');
  const [, bitString] = readChildren(buffer, publicKeyInfo);
  if (!bitString) throw new Error('certificate without a public key');
  const extensions = new Map<string, Buffer>();
  const extensionsField = fields.find((field) => field.tag === 0xa3);
  if (extensionsField) {
    const [list] = readChildren(buffer, extensionsField);
    for (const extension of list ? readChildren(buffer, list) : []) {
      const parts = readChildren(buffer, extension);
      const id = parts[0];
      const value = parts.at(-1);
      if (id && value) extensions.set(decodeOid(buffer.subarray(id.start, id.end)), buffer.subarray(value.start, value.end));
    }
  }
  return {
    serialHex: normalizeSerialHex(buffer.subarray(serial.start, serial.end).toString('hex')),
    issuerDer: buffer.subarray(issuer.offset, issuer.end),
    subjectDer: buffer.subarray(subject.offset, subject.end),
    publicKeyBits: buffer.subarray(bitString.start + 1, bitString.end),
    extensions,
  };
}

export function pemToDer(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

export function encodeOid(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const bytes: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let rest = Math.floor(part / 128); rest > 0; rest = Math.floor(rest / 128)) chunk.unshift((rest & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return encodeTlv(0x06, Buffer.from(bytes));
}

export const encodeNull = () => Buffer.from([0x05, 0x00]);
export const encodeOctetString = (bytes: Uint8Array) => encodeTlv(0x04, bytes);
export const encodeEnumerated = (value: number) => encodeTlv(0x0a, Buffer.from([value]));
/** [n] EXPLICIT around one element. */
export const encodeExplicit = (tagNumber: number, ...values: Uint8Array[]) => encodeTlv(0xa0 + tagNumber, ...values);

const pad = (value: number) => String(value).padStart(2, '0');

/** GeneralizedTime in whole seconds (RFC 5280 forbids fractions). */
export function encodeGeneralizedTime(date: Date): Buffer {
  const text = `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
  return encodeTlv(0x18, Buffer.from(text, 'ascii'));
}

/** RFC 5280 Time: UTCTime through 2049, GeneralizedTime after. */
export function encodeTime(date: Date): Buffer {
  if (date.getUTCFullYear() >= 2050) return encodeGeneralizedTime(date);
  const text = `${pad(date.getUTCFullYear() % 100)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
  return encodeTlv(0x17, Buffer.from(text, 'ascii'));
}

export function encodeExtension(oid: string, value: Uint8Array, isCritical = false): Buffer {
  return encodeSequence(encodeOid(oid), ...(isCritical ? [Buffer.from([0x01, 0x01, 0xff])] : []), encodeOctetString(value));
}

export const sha256WithRsaAlgorithm = () => encodeSequence(encodeOid('1.2.840.113549.1.1.11'), encodeNull());
