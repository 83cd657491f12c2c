/**
 * A small DER reader: every node keeps its exact bytes, because signatures cover encodings as they
 * were written (a schema parser that re-encodes could hide or invent a difference).
 */

export interface DerNode {
  /** The whole identifier octet (class, constructed bit and tag number below 31). */
  tag: number;
  /** Offset of the identifier octet inside `bytes`. */
  start: number;
  /** Offset of the first content octet. */
  contentStart: number;
  /** Offset just after the last content octet. */
  end: number;
  bytes: Uint8Array;
}

export class DerError extends Error {}

export function readNode(bytes: Uint8Array, offset = 0, limit = bytes.length): DerNode {
  if (offset + 2 > limit) throw new DerError('the data ends inside an ASN.1 header');
  const tag = bytes[offset] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError('an ASN.1 tag number above 30 is not expected here');
  let position = offset + 1;
  const first = bytes[position++] as number;
  let length: number;
  if (first < 0x80) length = first;
  else {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 6) throw new DerError('an ASN.1 length is indefinite or too long');
    if (position + octets > limit) throw new DerError('the data ends inside an ASN.1 length');
    length = 0;
    for (let index = 0; index < octets; index++) length = length * 256 + (bytes[position++] as number);
  }
  if (position + length > limit) throw new DerError('an ASN.1 value runs past the end of its container');
  return { tag, start: offset, contentStart: position, end: position + length, bytes };
}

/** The node's children, each checked to carry the expected tag (a changed tag octet is a changed file). */
export function childrenWithTags(node: DerNode, expected: number[], what: string): DerNode[] {
  const found = childrenOf(node);
  if (found.length < expected.length || expected.some((tag, index) => found[index]?.tag !== tag)) throw new DerError(`${what} is malformed`);
  return found;
}

/** Parses one complete DER value; extra bytes after it are refused unless `allowTrailing` (a PDF's /Contents is padded with zeros). */
export function parseDer(bytes: Uint8Array, allowTrailing = false): DerNode {
  const node = readNode(bytes, 0);
  if (!allowTrailing && node.end !== bytes.length) throw new DerError('there are bytes after the ASN.1 value');
  if (allowTrailing && bytes.subarray(node.end).some((byte) => byte !== 0)) throw new DerError('there are bytes after the ASN.1 value');
  return node;
}

export function childrenOf(node: DerNode): DerNode[] {
  const children: DerNode[] = [];
  let position = node.contentStart;
  while (position < node.end) {
    const child = readNode(node.bytes, position, node.end);
    children.push(child);
    position = child.end;
  }
  return children;
}

export const rawOf = (node: DerNode): Uint8Array => node.bytes.subarray(node.start, node.end);
export const contentOf = (node: DerNode): Uint8Array => node.bytes.subarray(node.contentStart, node.end);

export function child(node: DerNode, index: number): DerNode {
  const found = childrenOf(node)[index];
  if (!found) throw new DerError('an expected ASN.1 field is missing');
  return found;
}

export function expectTag(node: DerNode, tag: number, what: string): DerNode {
  if (node.tag !== tag) throw new DerError(`${what} is not where it should be`);
  return node;
}

export const tags = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  enumerated: 0x0a,
  utf8String: 0x0c,
  sequence: 0x30,
  set: 0x31,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  context: (number: number, constructed = true) => (constructed ? 0xa0 : 0x80) | number,
} as const;

export function readOid(node: DerNode): string {
  expectTag(node, tags.oid, 'an object identifier');
  const content = contentOf(node);
  if (content.length === 0 || ((content[content.length - 1] as number) & 0x80) !== 0) throw new DerError('an object identifier is malformed');
  const parts: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** An INTEGER's content as lower-case hex without leading zero octets (how serials are compared). */
export function readIntegerHex(node: DerNode): string {
  expectTag(node, tags.integer, 'an integer');
  const content = contentOf(node);
  if (content.length === 0) throw new DerError('an integer is empty');
  let start = 0;
  while (start < content.length - 1 && content[start] === 0) start++;
  return toHex(content.subarray(start));
}

export function readSmallInteger(node: DerNode): number {
  expectTag(node, tags.integer, 'an integer');
  return contentOf(node).reduce((total, byte) => total * 256 + byte, 0);
}

/** A BIT STRING's bits (the unused-bits octet dropped; every signature and key here is whole octets). */
export function readBitString(node: DerNode): Uint8Array {
  expectTag(node, tags.bitString, 'a bit string');
  if (contentOf(node)[0] !== 0) throw new DerError('a bit string does not hold whole octets');
  return contentOf(node).subarray(1);
}

export function readTime(node: DerNode): Date {
  if (node.tag !== tags.utcTime && node.tag !== tags.generalizedTime) throw new DerError('a time is not where it should be');
  const text = new TextDecoder('latin1').decode(contentOf(node));
  const match =
    node.tag === tags.utcTime
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/.exec(text)
      : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:[.,](\d+))?Z$/.exec(text);
  if (!match) throw new DerError('a time is not in the expected form');
  let year = Number(match[1]);
  if (node.tag === tags.utcTime) year += year < 50 ? 2000 : 1900;
  const milliseconds = match[7] ? Math.round(Number(`0.${match[7]}`) * 1000) : 0;
  return new Date(Date.UTC(year, Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6] ?? 0), milliseconds));
}

export function readString(node: DerNode): string {
  const content = contentOf(node);
  if (node.tag === 0x1e) {
    let text = '';
    for (let index = 0; index + 1 < content.length; index += 2) text += String.fromCharCode(((content[index] as number) << 8) | (content[index + 1] as number));
    return text;
  }
  return new TextDecoder(node.tag === tags.utf8String ? 'utf-8' : 'latin1').decode(content);
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false;
  return true;
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const result = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

/** The DER of a BER/DER-encoded PEM block's base64 body (every `-----BEGIN CERTIFICATE-----` block in order). */
export function readPemBlocks(text: string, label = 'CERTIFICATE'): Uint8Array[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g');
  const blocks: Uint8Array[] = [];
  for (const match of text.matchAll(pattern)) {
    const base64 = (match[1] ?? '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new DerError('a PEM block holds characters that are not base64');
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    blocks.push(bytes);
  }
  return blocks;
}
