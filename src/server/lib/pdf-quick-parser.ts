import { PDFCatalog, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFPageLeaf, PDFPageTree, PDFRef, type PDFContext, type PDFObject } from 'pdf-lib';

/**
 * pdf-lib's object parser with its two hottest steps done without building strings a character at
 * a time: names and integers. Reading a page dictionary is mostly names (`/Font`, a resource key
 * per font) and numbers (`4 0 R`); pdf-lib concatenates each one byte by byte and runs every name
 * through a regular expression for `#xx` escapes, which is most of the time a seal spends reading
 * the pages it draws on (decision 063). Everything else, and anything unusual in these two
 * (signs, decimals, very long names and numbers), goes through pdf-lib's own code, so the objects
 * are the ones pdf-lib would make from the same bytes.
 */

/** ISO 32000-2, 7.2.3: the bytes that end a name or a number. */
const ends = new Uint8Array(256);
for (const byte of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) ends[byte] = 1;

/**
 * Names already read, by a hash of their raw bytes: each entry holds the bytes and pdf-lib's shared
 * instance of the name, so a name seen before is found without making a string. Bounded: an
 * upload's names are untrusted.
 */
const names = new Map<number, Array<{ raw: Uint8Array; name: PDFName }>>();
let nameCount = 0;
const nameLimit = 4096;
/** Names of one hash kept: real names rarely share one; an upload's could be made to, thousands of them. */
const bucketLimit = 4;
/** Longer names are rare; they go through pdf-lib's reading as they are. */
const quickNameLength = 64;

let comparedBytes = 0;

/** Bytes compared with cached names since the process started (what the tests hold to a bound). */
export function nameComparisons(): number {
  return comparedBytes;
}

function findName(bytes: Uint8Array, start: number, end: number, hash: number): PDFName {
  const bucket = names.get(hash);
  if (bucket) {
    for (const known of bucket) {
      if (known.raw.length !== end - start) continue;
      let same = true;
      for (let index = 0; index < known.raw.length; index += 1) {
        comparedBytes += 1;
        if (known.raw[index] !== bytes[start + index]) {
          same = false;
          break;
        }
      }
      if (same) return known.name;
    }
  }
  const raw = bytes.slice(start, end);
  const name = PDFName.of(String.fromCharCode.apply(null, raw as unknown as number[]));
  // A full bucket is names made to share a hash: they are made each time, as pdf-lib makes them, never scanned for.
  if (bucket && bucket.length >= bucketLimit) return name;
  if (nameCount >= nameLimit) {
    names.clear();
    nameCount = 0;
  }
  const entry = { raw, name };
  if (bucket && names.has(hash)) bucket.push(entry);
  else names.set(hash, [entry]);
  nameCount += 1;
  return name;
}

/** Generation-0 references by object number (PDFRef.of makes a string to find its shared instance). Bounded. */
const references = new Map<number, PDFRef>();
const referenceLimit = 65536;

function reference(objectNumber: number, generation: number): PDFRef {
  if (generation !== 0) return PDFRef.of(objectNumber, generation);
  let ref = references.get(objectNumber);
  if (ref === undefined) {
    if (references.size >= referenceLimit) references.clear();
    ref = PDFRef.of(objectNumber, 0);
    references.set(objectNumber, ref);
  }
  return ref;
}

const isWhitespace = new Uint8Array(256);
for (const byte of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) isWhitespace[byte] = 1;

const typeKey = PDFName.of('Type');
const catalogType = PDFName.of('Catalog');
const pagesType = PDFName.of('Pages');
const pageType = PDFName.of('Page');

/** pdf-lib's ByteStream, whose fields are private in its types. */
interface Bytes {
  idx: number;
  column: number;
  bytes: Uint8Array;
  length: number;
}

export class QuickObjectParser extends PDFObjectParser {
  static override forBytes(bytes: Uint8Array, context: PDFContext): QuickObjectParser {
    const parser = PDFObjectParser.forBytes(bytes, context);
    Object.setPrototypeOf(parser, QuickObjectParser.prototype);
    return parser as QuickObjectParser;
  }

  protected override parseName(): PDFName {
    const stream = this.bytes as unknown as Bytes;
    const start = stream.idx + 1;
    if (stream.bytes[stream.idx] !== 0x2f) return super.parseName();
    const { bytes, length } = stream;
    let end = start;
    let hash = 0;
    while (end < length) {
      const byte = bytes[end] ?? 0;
      if (ends[byte] === 1) break;
      hash = (Math.imul(hash, 31) + byte) | 0;
      end += 1;
    }
    if (end - start > quickNameLength) return super.parseName();
    const name = findName(bytes, start, end, hash);
    stream.column += end - stream.idx;
    stream.idx = end;
    return name;
  }

  /** As pdf-lib's, down to when a dictionary ends (a `>` now or next); its /Type makes a catalog, a page tree node or a page. */
  protected override parseDict(): PDFDict {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    if (bytes[stream.idx] !== 0x3c || bytes[stream.idx + 1] !== 0x3c) return super.parseDict();
    stream.idx += 2;
    stream.column += 2;
    this.skipWhitespaceAndComments();
    const entries = new Map<PDFName, PDFObject>();
    while (stream.idx < length && bytes[stream.idx] !== 0x3e && bytes[stream.idx + 1] !== 0x3e) {
      const key = this.parseName();
      entries.set(key, this.parseObject());
      this.skipWhitespaceAndComments();
    }
    this.skipWhitespaceAndComments();
    if (bytes[stream.idx] !== 0x3e || bytes[stream.idx + 1] !== 0x3e) {
      // pdf-lib's own error, with its position.
      this.bytes.assertNext(0x3e);
      this.bytes.assertNext(0x3e);
    }
    stream.idx += 2;
    stream.column += 2;
    const type = entries.get(typeKey);
    if (type === catalogType) return PDFCatalog.fromMapWithContext(entries, this.context);
    if (type === pagesType) return PDFPageTree.fromMapWithContext(entries, this.context);
    if (type === pageType) return PDFPageLeaf.fromMapWithContext(entries, this.context);
    return PDFDict.fromMapWithContext(entries, this.context);
  }

  /** As pdf-lib's: whitespace, and comments to the end of their line. */
  protected override skipWhitespaceAndComments(): void {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    let at = stream.idx;
    for (;;) {
      while (at < length && isWhitespace[bytes[at] ?? 0] === 1) at += 1;
      if (bytes[at] !== 0x25) break;
      while (at < length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at += 1;
    }
    stream.column += at - stream.idx;
    stream.idx = at;
  }

  /** As pdf-lib's: a number, or two unsigned integers and `R` (a reference). */
  protected override parseNumberOrRef(): PDFNumber | PDFRef {
    const stream = this.bytes as unknown as Bytes;
    const first = this.parseRawNumber();
    this.skipWhitespaceAndComments();
    const lookahead = stream.idx;
    const next = stream.bytes[lookahead] ?? 0;
    if (next >= 0x30 && next <= 0x39) {
      const second = this.parseRawNumber();
      this.skipWhitespaceAndComments();
      if (stream.bytes[stream.idx] === 0x52) {
        stream.idx += 1;
        stream.column += 1;
        return reference(first, second);
      }
    }
    stream.idx = lookahead;
    return PDFNumber.of(first);
  }

  /** An unsigned integer of up to 15 digits is read as a number directly; anything else as pdf-lib reads it. */
  protected override parseRawNumber(): number {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    const start = stream.idx;
    let end = start;
    let value = 0;
    while (end < length) {
      const byte = bytes[end] ?? 0;
      if (byte < 0x30 || byte > 0x39) break;
      value = value * 10 + (byte - 0x30);
      end += 1;
    }
    const next = bytes[end];
    // A sign, a decimal point, no digit at all or a very long number: pdf-lib's own reading.
    if (end === start || end - start > 15 || next === 0x2e || next === 0x2b || next === 0x2d) return super.parseRawNumber();
    stream.column += end - start;
    stream.idx = end;
    return value;
  }
}
