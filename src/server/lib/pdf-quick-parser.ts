import {
  PDFArray,
  PDFCatalog,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFPageLeaf,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  PDFString,
  type PDFContext,
  type PDFObject,
  type PDFStream,
} from 'pdf-lib';

/**
 * pdf-lib's object parser with its hottest steps done without building strings a character at
 * a time: names and integers, and strings without escapes (a document's information dictionary). Reading a page dictionary is mostly names (`/Font`, a resource key
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
const resourcesKey = PDFName.of('Resources');
const lengthKey = PDFName.of('Length');

const keyword = (text: string) => Array.from(text, (character) => character.charCodeAt(0));
/** pdf-lib's spellings of "stream" after a stream's dictionary, in the order it tries them (its Keywords). */
const streamKeywords = [keyword('stream \r\n'), keyword('stream\r\n'), keyword('stream\r'), keyword('stream\n'), keyword('stream')];
const endstreamKeyword = keyword('endstream');

/** pdf-lib's ByteStream, whose fields are private in its types. */
interface Bytes {
  idx: number;
  column: number;
  bytes: Uint8Array;
  length: number;
}

/**
 * Set just before the value of a /Resources entry is parsed when it is a dictionary written in
 * place, and cleared by the parseDict that reads it (at once: parsing is synchronous, and nothing
 * else is parsed between the two).
 */
let nextDictIsResources = false;

/** Smaller resource dictionaries are parsed at once: kept as bytes, they would cost more to read later than to parse now. */
const smallestRawDict = 128;

/**
 * The text between the delimiter at the stream's position and the one at `end`, one character a
 * byte (what pdf-lib's charFromCode makes of each); the stream moves past `end`.
 */
function takeDelimited(stream: Bytes, end: number): string {
  const { bytes, idx: start } = stream;
  stream.column += end + 1 - start;
  stream.idx = end + 1;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start + 1, end - start - 1).toString('latin1');
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

  /**
   * As pdf-lib's: a dictionary, and its stream if "stream" follows. pdf-lib tries five spellings of
   * that keyword after every dictionary, nested ones too; each starts with an "s", so a dictionary
   * followed by anything else is returned at once. The stream is read as pdf-lib reads it, from the
   * dictionary already parsed: parsing it again would read a dictionary's children twice at each
   * level of streams nested in dictionaries, 2^k reads (found by attack).
   */
  protected override parseDictOrStream(): PDFDict | PDFStream {
    const stream = this.bytes as unknown as Bytes;
    const startPos = this.bytes.position();
    const dict = this.parseDict();
    this.skipWhitespaceAndComments();
    if (stream.bytes[stream.idx] !== 0x73) return dict;
    if (!streamKeywords.some((keyword) => this.matchKeyword(keyword))) return dict;
    const start = this.bytes.offset();
    let end: number;
    const length = dict.get(lengthKey);
    if (length instanceof PDFNumber) {
      end = start + length.asNumber();
      this.bytes.moveTo(end);
      this.skipWhitespaceAndComments();
      if (!this.matchKeyword(endstreamKeyword)) {
        this.bytes.moveTo(start);
        end = this.findEndOfStreamFallback(startPos);
      }
    } else end = this.findEndOfStreamFallback(startPos);
    return PDFRawStream.of(dict, this.bytes.slice(start, end));
  }

  /** As pdf-lib's, without PDFArray's push: a list parsed is not an edit (the edit clock stamps every push, decision 066). */
  protected override parseArray(): PDFArray {
    this.bytes.assertNext(0x5b);
    this.skipWhitespaceAndComments();
    const items: PDFObject[] = [];
    while (this.bytes.peek() !== 0x5d) {
      items.push(this.parseObject());
      this.skipWhitespaceAndComments();
    }
    this.bytes.assertNext(0x5d);
    const array = PDFArray.withContext(this.context);
    (array as unknown as { array: PDFObject[] }).array = items;
    return array;
  }

  /** As pdf-lib's, down to when a dictionary ends (a `>` now or next); its /Type makes a catalog, a page tree node or a page. */
  protected override parseDict(): PDFDict {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    if (bytes[stream.idx] !== 0x3c || bytes[stream.idx + 1] !== 0x3c) return super.parseDict();
    // The entries of a /Resources dictionary written in place: each dictionary among them is kept as its bytes (RawDict).
    const keepsDictsRaw = nextDictIsResources;
    nextDictIsResources = false;
    stream.idx += 2;
    stream.column += 2;
    this.skipWhitespaceAndComments();
    const entries = new Map<PDFName, PDFObject>();
    while (stream.idx < length && bytes[stream.idx] !== 0x3e && bytes[stream.idx + 1] !== 0x3e) {
      const key = this.parseName();
      this.skipWhitespaceAndComments();
      const at = stream.idx;
      const isDict = bytes[at] === 0x3c && bytes[at + 1] === 0x3c;
      let end = isDict && keepsDictsRaw ? findDictEnd(bytes, at, length) : -1;
      // A dictionary followed by "stream" is a stream to pdf-lib (a direct one, against the standard, but read): parsed as usual.
      if (end !== -1 && bytes[skipBlank(bytes, end, length)] === 0x73) end = -1;
      if (end - at >= smallestRawDict) {
        entries.set(key, new RawDict(bytes.subarray(at, end), this.context));
        stream.column += end - at;
        stream.idx = end;
      } else {
        nextDictIsResources = isDict && key === resourcesKey;
        entries.set(key, this.parseObject());
        nextDictIsResources = false;
      }
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

  /** As pdf-lib's: the characters up to the `>`, as they are (one character a byte), taken in one slice. */
  protected override parseHexString(): PDFHexString {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    const start = stream.idx;
    const end = bytes[start] === 0x3c ? bytes.indexOf(0x3e, start + 1) : -1;
    if (end === -1 || end >= length) return super.parseHexString();
    return PDFHexString.of(takeDelimited(stream, end));
  }

  /** As pdf-lib's for a literal string with no backslash or parenthesis inside, taken in one slice; any other as pdf-lib reads it. */
  protected override parseString(): PDFString {
    const stream = this.bytes as unknown as Bytes;
    const { bytes, length } = stream;
    const start = stream.idx;
    if (bytes[start] !== 0x28) return super.parseString();
    let end = start + 1;
    for (; end < length; end += 1) {
      const byte = bytes[end];
      if (byte === 0x29) break;
      if (byte === 0x28 || byte === 0x5c) return super.parseString();
    }
    if (end >= length) return super.parseString();
    return PDFString.of(takeDelimited(stream, end));
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

// ---------------------------------------------------------------------------------------------
// Resource dictionaries kept as their bytes (decision 068)

/**
 * Whether a dictionary is still its bytes (a property under a global symbol, so a second copy of
 * this module, a test runner's, reads it too).
 */
const unread: unique symbol = Symbol.for('open-ron.pdf-lib.raw-dict-unread') as never;

/** Whether `object` is a RawDict nobody has read yet: nothing in it can have changed. */
export function isUnreadRawDict(object: PDFObject): boolean {
  return (object as { [unread]?: boolean })[unread] === true;
}

/** The bytes of a RawDict nobody has read yet (what it is written as), or null for any other object. */
export function unreadRawBytes(object: PDFObject): Uint8Array | null {
  return isUnreadRawDict(object) ? ((object as unknown as { raw: Uint8Array | null }).raw ?? null) : null;
}

/** pdf-lib's dictionary storage, private in its types. */
type WithEntries = { dict: Map<PDFName, PDFObject> };

/**
 * A dictionary among a page's resources (its fonts, images, graphics states...) kept as the bytes
 * it was written with until something reads it, and written back as those bytes if nothing did. A
 * seal draws on every page, so every page is read and written again in its update; the resources
 * of a page are most of its bytes (pdf-lib's own output names one font a line: 46 on a page of
 * text) and the seal reads none of them but the page it writes text on. Reading one (any method of
 * PDFDict) parses it then, with the parser that found it; it is a PDFDict in every other way.
 * Only bytes findDictEnd accepted are kept: they parse as pdf-lib would parse them in place.
 */
export class RawDict extends PDFDict {
  declare private raw: Uint8Array | null;
  declare private entries_: Map<PDFName, PDFObject> | undefined;
  declare [unread]: boolean;

  constructor(raw: Uint8Array, context: PDFContext) {
    // pdf-lib's constructor stores the map through the `dict` accessor below: none yet.
    super(undefined as unknown as Map<PDFName, PDFObject>, context);
    this.raw = raw;
    this[unread] = true;
  }

  private read(): Map<PDFName, PDFObject> {
    if (this.entries_ === undefined) {
      const parsed = QuickObjectParser.forBytes(this.raw ?? new Uint8Array(0), this.context).parseObject();
      this.entries_ = (parsed as unknown as WithEntries).dict;
      this.raw = null;
      this[unread] = false;
    }
    return this.entries_;
  }

  override toString(): string {
    return this.raw && this[unread] ? Buffer.from(this.raw.buffer, this.raw.byteOffset, this.raw.byteLength).toString('latin1') : super.toString();
  }

  override sizeInBytes(): number {
    return this.raw && this[unread] ? this.raw.byteLength : super.sizeInBytes();
  }

  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    if (!(this.raw && this[unread])) return super.copyBytesInto(buffer, offset);
    buffer.set(this.raw, offset);
    return this.raw.byteLength;
  }

  static {
    // Every PDFDict method goes through `this.dict`: reading it parses the bytes.
    Object.defineProperty(RawDict.prototype, 'dict', {
      get(this: RawDict) {
        return this.read();
      },
      set(this: RawDict, value: Map<PDFName, PDFObject> | undefined) {
        this.entries_ = value;
        if (value !== undefined) {
          this.raw = null;
          this[unread] = false;
        }
      },
    });
  }
}

const keywordTrue = [0x74, 0x72, 0x75, 0x65];
const keywordFalse = [0x66, 0x61, 0x6c, 0x73, 0x65];
const keywordNull = [0x6e, 0x75, 0x6c, 0x6c];

/** The deepest nesting of arrays and dictionaries findDictEnd follows; deeper ones are parsed as usual. */
const rawNestingLimit = 32;

function skipBlank(bytes: Uint8Array, at: number, length: number): number {
  let position = at;
  for (;;) {
    while (position < length && isWhitespace[bytes[position] ?? 0] === 1) position += 1;
    if (bytes[position] !== 0x25) return position;
    while (position < length && bytes[position] !== 0x0a && bytes[position] !== 0x0d) position += 1;
  }
}

/** The end of the run of regular characters (not white space, not a delimiter) starting at `at`. */
function runEnd(bytes: Uint8Array, at: number, length: number): number {
  let position = at;
  while (position < length && ends[bytes[position] ?? 0] !== 1) position += 1;
  return position;
}

function isRun(bytes: Uint8Array, start: number, end: number, word: number[]): boolean {
  if (end - start !== word.length) return false;
  for (let index = 0; index < word.length; index += 1) if (bytes[start + index] !== word[index]) return false;
  return true;
}

/** Whether the run is an unsigned integer; a number pdf-lib reads (sign, digits, one point) when `signed`. */
function isNumberRun(bytes: Uint8Array, start: number, end: number, integerOnly: boolean): boolean {
  let digits = 0;
  let points = 0;
  for (let position = start; position < end; position += 1) {
    const byte = bytes[position] ?? 0;
    if (byte >= 0x30 && byte <= 0x39) digits += 1;
    else if (integerOnly) return false;
    else if (byte === 0x2e) points += 1;
    else if ((byte === 0x2b || byte === 0x2d) && position === start) continue;
    else return false;
  }
  return digits > 0 && digits <= 15 && points <= 1;
}

/**
 * Where the dictionary starting at `start` ("<<") ends, just after its ">>", or -1 when it holds
 * anything this reading does not follow exactly as pdf-lib's parser would: then it is parsed as
 * usual. Stricter than pdf-lib: whatever it accepts, pdf-lib parses to the same objects.
 */
export function findDictEnd(bytes: Uint8Array, start: number, length: number): number {
  const flat = findFlatDictEnd(bytes, start, length);
  return flat === -1 ? walkDictEnd(bytes, start, length) : flat;
}

/** Bytes the flat reading looks at: a dictionary not ended within them is walked instead. */
const flatWindow = 4096;

/**
 * A dictionary of names, each followed by a reference ("12 0 R") or a name, with plain white space
 * between: a page's fonts or images as nearly every writer puts them. Each name and number must be
 * followed by white space or a delimiter, as the walk's runs end; names at most quickNameLength.
 */
const flatDict = (() => {
  const blank = '[\\0\\t\\n\\f\\r ]';
  const endsNext = '(?=[\\0\\t\\n\\f\\r ()<>[\\]{}/%])';
  const name = `\\/[A-Za-z0-9_.*+,:;!?@~-]{1,${quickNameLength}}${endsNext}`;
  const reference = `\\d{1,15}${blank}+\\d{1,15}${blank}+R${endsNext}`;
  return new RegExp(`^<<(?:${blank}*${name}${blank}*(?:${reference}|${name}))*${blank}*>>`);
})();

/**
 * findDictEnd for a flat dictionary (flatDict), by one regular expression over the bytes as text:
 * the engine's compiled matcher instead of a walk of JavaScript a byte at a time. -1 for anything
 * else, which the walk reads. A test holds the two to the same end over thousands of dictionaries.
 */
export function findFlatDictEnd(bytes: Uint8Array, start: number, length: number): number {
  const window = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, Math.min(length, start + flatWindow) - start));
  // A flat dictionary ends at the first ">>" (no name holds a '>'): only that much is read as text.
  const close = window.indexOf('>>');
  if (close === -1) return -1;
  const match = flatDict.exec(window.toString('latin1', 0, close + 2));
  return match ? start + match[0].length : -1;
}

/**
 * findDictEnd by walking names, numbers, references, strings, arrays and dictionaries without
 * making objects, in a loop of its own (no recursion), at most rawNestingLimit deep.
 */
export function walkDictEnd(bytes: Uint8Array, start: number, length: number): number {
  // For each open container: true for a dictionary (its next token is a key or its end), false for an array.
  const open: boolean[] = [];
  let position = start;
  let expectsKey = false;
  for (;;) {
    position = skipBlank(bytes, position, length);
    if (position >= length) return -1;
    const byte = bytes[position] ?? 0;
    const next = bytes[position + 1];
    const inDict = open.length > 0 && open[open.length - 1] === true;
    if (inDict && expectsKey) {
      if (byte === 0x3e) {
        if (next !== 0x3e) return -1;
        position += 2;
        open.pop();
        if (open.length === 0) return position;
        expectsKey = open[open.length - 1] === true;
        continue;
      }
      // A key must be a name not followed at once by '>' (pdf-lib would end the dictionary there).
      if (byte !== 0x2f || next === 0x3e) return -1;
      const end = runEnd(bytes, position + 1, length);
      if (end - position - 1 > quickNameLength) return -1;
      position = end;
      expectsKey = false;
      continue;
    }
    if (!inDict && open.length > 0 && byte === 0x5d) {
      position += 1;
      open.pop();
      if (open.length === 0) return -1;
      expectsKey = open[open.length - 1] === true;
      continue;
    }
    // A value.
    if (byte === 0x3c && next === 0x3c) {
      if (open.length >= rawNestingLimit) return -1;
      open.push(true);
      position += 2;
      expectsKey = true;
      continue;
    }
    if (open.length === 0) return -1;
    if (byte === 0x5b) {
      if (open.length >= rawNestingLimit) return -1;
      open.push(false);
      position += 1;
      expectsKey = false;
      continue;
    }
    if (byte === 0x2f) {
      const end = runEnd(bytes, position + 1, length);
      if (end - position - 1 > quickNameLength) return -1;
      position = end;
    } else if (byte === 0x28) {
      // A literal string: balanced parentheses, a backslash escapes the next byte.
      let depth = 0;
      let escaped = false;
      let closed = false;
      while (position < length) {
        const character = bytes[position] ?? 0;
        position += 1;
        if (!escaped) {
          if (character === 0x28) depth += 1;
          if (character === 0x29) depth -= 1;
        }
        escaped = character === 0x5c ? !escaped : false;
        if (depth === 0) {
          closed = true;
          break;
        }
      }
      if (!closed) return -1;
    } else if (byte === 0x3c) {
      let end = position + 1;
      while (end < length && bytes[end] !== 0x3e) end += 1;
      if (end >= length) return -1;
      position = end + 1;
    } else {
      const end = runEnd(bytes, position, length);
      if (end === position) return -1;
      if (isRun(bytes, position, end, keywordTrue) || isRun(bytes, position, end, keywordFalse) || isRun(bytes, position, end, keywordNull)) position = end;
      else if (isNumberRun(bytes, position, end, true)) {
        // An integer, or the first of "12 0 R".
        position = end;
        const second = skipBlank(bytes, position, length);
        const secondEnd = runEnd(bytes, second, length);
        if (secondEnd > second && isNumberRun(bytes, second, secondEnd, true)) {
          const r = skipBlank(bytes, secondEnd, length);
          if (bytes[r] === 0x52 && runEnd(bytes, r, length) === r + 1) position = r + 1;
          // Two integers not followed by R: pdf-lib reads the first alone, then the second as the next token.
        }
      } else if (isNumberRun(bytes, position, end, false)) position = end;
      else return -1;
    }
    if (open[open.length - 1] === true) expectsKey = true;
  }
}
