import {
  ParseSpeeds,
  PDFCatalog,
  PDFArray,
  PDFContentStream,
  PDFCrossRefSection,
  PDFContext,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFFlateStream,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFTrailerDict,
  type PDFObject,
} from 'pdf-lib';
import { findDictEnd, isUnreadRawDict, QuickObjectParser, unreadRawBytes } from '#server/lib/pdf-quick-parser.ts';
import { decodeBoundedStream, readObjectStreamOffsets } from '#server/lib/pdf-stream-bounds.ts';

/**
 * Incremental updates over pdf-lib (ISO 32000-2 section 7.5.6): the original bytes stay as they are
 * and only the objects added or changed since the last save are appended, with a cross-reference
 * section whose /Prev points at the previous one. pdf-lib itself can only rewrite a whole file,
 * which costs the full serialization and breaks any signature the original carries.
 *
 * Changes are found against a snapshot of each indirect object taken when it was parsed (or last
 * written): its identity, the identity of a stream's bytes, and whether any dictionary or array in
 * it was edited since (the edit clock below). pdf-lib edits many objects in place (a page's
 * resources when it draws, the catalog and the last page when a signature field is added), so
 * identity alone does not tell an edited object from an untouched one.
 *
 * A file whose cross-reference sections can be trusted is read lazily (LazyObjects): only the
 * objects looked up are parsed, each snapshotted as it is parsed (decision 056, amendment).
 */

/** The newest cross-reference section of the bytes appended to. */
interface Section {
  kind: 'table' | 'stream';
  /** Where it starts: the value of the file's last startxref. */
  offset: number;
  size: number;
}

/**
 * Where an object of the original is, as its newest cross-reference section says: at a byte offset,
 * as the index-th object of an object stream, or free (deleted).
 */
type ObjectLocation = { kind: 'offset'; offset: number; generation: number } | { kind: 'compressed'; streamNumber: number; index: number } | { kind: 'free' };

/** Each object number's location, filled newest section first: the first one recorded wins. */
type Locations = Map<number, ObjectLocation>;

function recordLocation(locations: Locations | null, objectNumber: number, location: ObjectLocation) {
  if (locations && !locations.has(objectNumber)) locations.set(objectNumber, location);
}

/**
 * What an object was when last parsed or written: pdf-lib changes an object in place, so its
 * identity alone does not tell. `at` is the edit clock's reading then (below).
 */
interface Snapshot {
  object: PDFObject;
  /** A stream's bytes (their identity): pdf-lib replaces them, it never edits them in place. */
  contents: Uint8Array | null;
  /** How many operators a content stream held (-1 for any other object). */
  operators: number;
  at: number;
}

/**
 * Edits are found by when they happened, not by comparing the object with a copy of it (decision
 * 066): pdf-lib changes a dictionary or an array only through PDFDict's set and delete and
 * PDFArray's push, insert, remove and set (its parsers build them with those too, or from a
 * finished map). Those methods are wrapped once, for the whole process, to stamp the container
 * with the edit clock's next reading before they change it. Every other value in a PDF object
 * (numbers, names, strings, references) is immutable in pdf-lib, and a stream's bytes are replaced,
 * never edited. The clock and the stamp are shared through the global symbol registry, so a second
 * copy of this module (a test runner's) reads the same stamps instead of wrapping the methods again.
 */
const editedAt: unique symbol = Symbol.for('open-ron.pdf-lib.edited-at') as never;
const editClock: { now: number } = ((globalThis as Record<symbol, unknown>)[Symbol.for('open-ron.pdf-lib.edit-clock')] ??= { now: 1 }) as { now: number };
type Stamped = { [editedAt]?: number };

/** Whether `value` put in place of `current` changes nothing: the same object, or a number of the same value. */
function isSameValue(current: PDFObject | undefined, value: PDFObject): boolean {
  return current === value || (current instanceof PDFNumber && value instanceof PDFNumber && current.asNumber() === value.asNumber());
}

function installEditClock(): void {
  const installed = Symbol.for('open-ron.pdf-lib.edit-clock-installed');
  const dict = PDFDict.prototype as unknown as Record<string | symbol, unknown>;
  if (dict[installed]) return;
  dict[installed] = true;
  const clock = editClock;
  const { set: setEntry, delete: deleteEntry } = PDFDict.prototype;
  // Putting back what is there (pdf-lib's normalize() sets a page's resources to themselves) is no edit.
  PDFDict.prototype.set = function (this: PDFDict & Stamped, key, value) {
    if (!isSameValue((this as unknown as { dict: Map<PDFName, PDFObject> }).dict.get(key), value)) this[editedAt] = clock.now++;
    setEntry.call(this, key, value);
  };
  PDFDict.prototype.delete = function (this: PDFDict & Stamped, key) {
    const deleted = deleteEntry.call(this, key);
    if (deleted) this[editedAt] = clock.now++;
    return deleted;
  };
  const { push, insert, remove, set: setItem } = PDFArray.prototype;
  PDFArray.prototype.push = function (this: PDFArray & Stamped, object) {
    this[editedAt] = clock.now++;
    push.call(this, object);
  };
  PDFArray.prototype.insert = function (this: PDFArray & Stamped, index, object) {
    this[editedAt] = clock.now++;
    insert.call(this, index, object);
  };
  PDFArray.prototype.remove = function (this: PDFArray & Stamped, index) {
    this[editedAt] = clock.now++;
    remove.call(this, index);
  };
  PDFArray.prototype.set = function (this: PDFArray & Stamped, index, object) {
    if (!isSameValue((this as unknown as { array: PDFObject[] }).array[index], object)) this[editedAt] = clock.now++;
    setItem.call(this, index, object);
  };
}
installEditClock();

/** Past this many containers walked, the walk keeps a set of those seen: a dictionary pdf-lib has put inside itself ends the walk. */
const walkWithoutSet = 10_000;

/**
 * Whether `root` or any dictionary or array directly inside it (not through references) was edited
 * at or after `at`. Walked with a list of its own, not by recursion: an original may nest arrays
 * thousands deep.
 */
function isEditedSince(root: PDFObject, at: number): boolean {
  if (!(root instanceof PDFDict || root instanceof PDFArray)) return false;
  const pending: Array<PDFDict | PDFArray> = [root];
  let walked = 0;
  let seen: Set<PDFObject> | null = null;
  while (pending.length > 0) {
    const container = pending.pop() as (PDFDict | PDFArray) & Stamped;
    if ((container[editedAt] ?? 0) >= at) return true;
    walked += 1;
    if (walked > walkWithoutSet) {
      seen ??= new Set();
      if (seen.has(container)) continue;
      seen.add(container);
    }
    // pdf-lib's own storage (private in its types): read without the copies entries() and asArray() make.
    const values =
      container instanceof PDFDict
        ? (container as unknown as { dict: Map<PDFName, PDFObject> }).dict.values()
        : (container as unknown as { array: PDFObject[] }).array;
    // A dictionary still as its bytes (a page's fonts, say) was not read, so nothing in it was edited.
    for (const value of values) if ((value instanceof PDFDict && !isUnreadRawDict(value)) || value instanceof PDFArray) pending.push(value);
  }
  return false;
}

/** A content stream's operators (private in pdf-lib's types; pdf-lib only ever pushes onto them). */
const operatorsOf = (stream: PDFContentStream) => (stream as unknown as { operators: unknown[] }).operators;

function takeSnapshotOf(object: PDFObject): Snapshot {
  const contents = object instanceof PDFRawStream ? object.contents : object instanceof PDFFlateStream ? object.getContents() : null;
  return { object, contents, operators: object instanceof PDFContentStream ? operatorsOf(object).length : -1, at: editClock.now };
}

/** Whether the object is as it was at its snapshot. */
function isSame(known: Snapshot, object: PDFObject): boolean {
  if (known.object !== object) return false;
  // pdf-lib's own streams encode lazily and cache the result until their operators change.
  if (object instanceof PDFRawStream) return object.contents === known.contents && !isEditedSince(object.dict, known.at);
  if (object instanceof PDFContentStream && operatorsOf(object).length !== known.operators) {
    // pdf-lib (1.17) does not forget the bytes it encoded when operators are pushed afterwards: drawing after a save.
    (object as unknown as { contentsCache: { invalidate(): void } }).contentsCache.invalidate();
    return false;
  }
  if (object instanceof PDFFlateStream) return object.getContents() === known.contents && !isEditedSince(object.dict, known.at);
  if (object instanceof PDFInvalidObject) return true;
  return !isEditedSince(object, known.at);
}

/** A file whose own structure keeps it from being sealed or extended as asked (the file's fault, not the server's). */
export class DocumentStructureError extends Error {}

export interface SaveResult {
  pdf: Buffer;
  /** True when the whole file was rewritten instead of appended to. */
  fullSave: boolean;
  /** Why the whole file was rewritten (a sentence), or null. */
  reason: string | null;
}

const whitespace = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const sectionLimit = 1000;

function skipWhitespace(bytes: Buffer, offset: number): number {
  let position = offset;
  while (position < bytes.length && whitespace.has(bytes[position] ?? 0)) position += 1;
  return position;
}

function parseObjectAt(bytes: Buffer, offset: number, context: PDFContext): PDFObject {
  return QuickObjectParser.forBytes(bytes.subarray(offset), context).parseObject();
}

/** The object of an in-use entry: its "12 0 obj" header, checked by the section checks, skipped. */
function parseIndirectObjectAt(bytes: Buffer, offset: number, context: PDFContext): PDFObject {
  const start = skipWhitespace(bytes, offset);
  const header = /^\d+\s+\d+\s+obj/.exec(bytes.subarray(start, start + 32).toString('latin1'));
  return parseObjectAt(bytes, start + (header?.[0].length ?? 0), context);
}

/** Whether `text` (ASCII) is in `bytes` at `at`. */
function hasAsciiAt(bytes: Buffer, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let index = 0; index < text.length; index += 1) if (bytes[at + index] !== text.charCodeAt(index)) return false;
  return true;
}

/** Whether the object starts at `offset` (after whitespace, which readers skip too). */
function startsObject(bytes: Buffer, offset: number, objectNumber: number, generation: number): boolean {
  const start = skipWhitespace(bytes, offset);
  // As nearly every writer puts it ("12 0 obj"), compared in place; any other spacing (or leading zeros) read as below.
  if (hasAsciiAt(bytes, start, `${objectNumber} ${generation} obj`)) return true;
  const header = /^(\d+)\s+(\d+)\s+obj/.exec(bytes.subarray(start, start + 32).toString('latin1'));
  return header !== null && Number(header[1]) === objectNumber && Number(header[2]) === generation;
}

/** The bytes JavaScript's trim() removes from a line read as Latin-1 text (tab, line feed, vertical tab, form feed, carriage return, space, no-break space). */
const trimmed = new Uint8Array(256);
for (const byte of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) trimmed[byte] = 1;

/** Whether bytes[start, end) are all decimal digits (and there is at least one). */
function isDigits(bytes: Buffer, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let at = start; at < end; at += 1) if ((bytes[at] ?? 0) < 0x30 || (bytes[at] ?? 0) > 0x39) return false;
  return true;
}

/** The decimal number bytes[start, end) spell (digits only), as Number() reads it. */
function digitsValue(bytes: Buffer, start: number, end: number): number {
  if (end - start > 15) return Number(bytes.toString('latin1', start, end));
  let value = 0;
  for (let at = start; at < end; at += 1) value = value * 10 + ((bytes[at] ?? 0) - 0x30);
  return value;
}

/**
 * The offset an in-use entry of a classic table points at must start that object ("12 0 obj").
 * Read byte by byte, line by line (a line ends at CR, LF or CRLF, and is trimmed as trim() trims
 * it): a subsection header "first count", or an entry "nnnnnnnnnn ggggg n|f".
 */
export function checkTableEntries(bytes: Buffer, start: number, end: number, locations: Locations | null): string | null {
  let objectNumber = 0;
  let lineStart = start;
  while (lineStart <= end) {
    let lineEnd = lineStart;
    while (lineEnd < end && bytes[lineEnd] !== 0x0a && bytes[lineEnd] !== 0x0d) lineEnd += 1;
    const next = lineEnd >= end ? end + 1 : lineEnd + (bytes[lineEnd] === 0x0d && lineEnd + 1 < end && bytes[lineEnd + 1] === 0x0a ? 2 : 1);
    let first = lineStart;
    let last = lineEnd;
    lineStart = next;
    while (first < last && trimmed[bytes[first] ?? 0] === 1) first += 1;
    while (last > first && trimmed[bytes[last - 1] ?? 0] === 1) last -= 1;
    if (first === last) continue;
    // "first count": digits, one space, digits.
    let space = first;
    while (space < last && bytes[space] !== 0x20) space += 1;
    if (space < last && isDigits(bytes, first, space) && isDigits(bytes, space + 1, last)) {
      objectNumber = digitsValue(bytes, first, space);
      continue;
    }
    const kind = bytes[first + 17];
    const isEntry =
      last - first === 18 &&
      isDigits(bytes, first, first + 10) &&
      bytes[first + 10] === 0x20 &&
      isDigits(bytes, first + 11, first + 16) &&
      bytes[first + 16] === 0x20 &&
      (kind === 0x6e || kind === 0x66);
    if (!isEntry) return `its cross-reference table has a line that is not an entry ("${bytes.toString('latin1', first, last).slice(0, 30)}")`;
    if (kind === 0x6e) {
      const at = digitsValue(bytes, first, first + 10);
      const generation = digitsValue(bytes, first + 11, first + 16);
      if (!startsObject(bytes, at, objectNumber, generation)) {
        return `its cross-reference table places object ${objectNumber} at byte ${at}, where that object does not start`;
      }
      recordLocation(locations, objectNumber, { kind: 'offset', offset: at, generation });
    } else recordLocation(locations, objectNumber, { kind: 'free' });
    objectNumber += 1;
  }
  return null;
}

/** The same check for a cross-reference stream's in-use entries (type 1; type 2 live in object streams). */
function checkStreamEntries(bytes: Buffer, stream: PDFRawStream, locations: Locations | null): string | null {
  const numbers = (key: string) =>
    stream.dict
      .lookupMaybe(PDFName.of(key), PDFArray)
      ?.asArray()
      .map((item) => (item instanceof PDFNumber ? item.asNumber() : NaN));
  const widths = numbers('W');
  const size = stream.dict.lookupMaybe(PDFName.of('Size'), PDFNumber)?.asNumber() ?? 0;
  const index = numbers('Index') ?? [0, size];
  if (!widths || widths.length !== 3 || widths.some((width) => !Number.isInteger(width) || width < 0)) return 'its cross-reference stream has no usable /W';
  let data: Uint8Array;
  try {
    data = decodeBoundedStream(stream);
  } catch {
    return 'its cross-reference stream cannot be decoded';
  }
  const [typeWidth = 0, offsetWidth = 0, generationWidth = 0] = widths;
  const read = (at: number, width: number) => {
    let value = 0;
    for (let byte = 0; byte < width; byte += 1) value = value * 256 + (data[at + byte] ?? 0);
    return value;
  };
  let at = 0;
  for (let pair = 0; pair + 1 < index.length; pair += 2) {
    const first = index[pair] ?? NaN;
    const count = index[pair + 1] ?? NaN;
    if (!Number.isInteger(first) || !Number.isInteger(count)) return 'its cross-reference stream has an unusable /Index';
    for (let objectNumber = first; objectNumber < first + count; objectNumber += 1) {
      if (at + typeWidth + offsetWidth + generationWidth > data.length) return 'its cross-reference stream is shorter than its /Index says';
      const type = typeWidth === 0 ? 1 : read(at, typeWidth);
      const offset = read(at + typeWidth, offsetWidth);
      const generation = read(at + typeWidth + offsetWidth, generationWidth);
      at += typeWidth + offsetWidth + generationWidth;
      // Type 2: the object is the generation-th of object stream number `offset`; type 0 free; others are read as free (ISO 32000-2, 7.5.8.3).
      if (type === 2) recordLocation(locations, objectNumber, { kind: 'compressed', streamNumber: offset, index: generation });
      if (type !== 1) {
        if (type !== 2) recordLocation(locations, objectNumber, { kind: 'free' });
        continue;
      }
      if (!startsObject(bytes, offset, objectNumber, generation)) {
        return `its cross-reference stream places object ${objectNumber} at byte ${offset}, where that object does not start`;
      }
      recordLocation(locations, objectNumber, { kind: 'offset', offset, generation });
    }
  }
  return null;
}

/**
 * An indirect object as pdf-lib's save writes it ("12 0 obj", the object, "endobj"), in pieces: text
 * of one character a byte, and a stream's contents as they are. Writing the text of dictionaries
 * and arrays in one piece is several times quicker than pdf-lib's byte-by-byte copy, and gives the
 * same bytes: pdf-lib's toString of every object is what it copies, except a stream's (its contents
 * are bytes) and an unreadable object's (kept as its bytes).
 */
export function writeIndirectObject(ref: PDFRef, object: PDFObject): Array<string | Uint8Array> {
  const header = `${ref.objectNumber} ${ref.generationNumber} obj\n`;
  if (object instanceof PDFStream) {
    // What pdf-lib's copyBytesInto does first: /Length set to the contents' size.
    (object as unknown as { updateDict(): void }).updateDict();
    const pieces: Array<string | Uint8Array> = [header];
    writeDict(object.dict, pieces);
    appendText(pieces, '\nstream\n');
    pieces.push(object.getContents(), '\nendstream\nendobj\n');
    return pieces;
  }
  // Its bytes as they are: copied once, into the output.
  if (object instanceof PDFInvalidObject) return [header, (object as unknown as { data: Uint8Array }).data, '\nendobj\n'];
  if (!(object instanceof PDFDict)) return [`${header}${object.toString()}\nendobj\n`];
  const pieces: Array<string | Uint8Array> = [header];
  writeDict(object, pieces);
  appendText(pieces, '\nendobj\n');
  return pieces;
}

function appendText(pieces: Array<string | Uint8Array>, text: string): void {
  const last = pieces.length - 1;
  if (typeof pieces[last] === 'string') pieces[last] += text;
  else pieces.push(text);
}

/**
 * A dictionary as pdf-lib's toString writes it, with each dictionary in it still kept as its bytes
 * (a page's fonts, decision 068) going in as those bytes, not through a string and back.
 */
function writeDict(dict: PDFDict, pieces: Array<string | Uint8Array>): void {
  appendText(pieces, '<<\n');
  // The entries themselves, not entries()'s copy of them as an array.
  for (const [key, value] of (dict as unknown as { dict: Map<PDFName, PDFObject> }).dict) {
    const raw = unreadRawBytes(value);
    if (raw) {
      appendText(pieces, `${key.toString()} `);
      pieces.push(raw);
      pieces.push('\n');
    } else if (value instanceof PDFDict) {
      appendText(pieces, `${key.toString()} `);
      writeDict(value, pieces);
      appendText(pieces, '\n');
    } else appendText(pieces, `${key.toString()} ${value.toString()}\n`);
  }
  appendText(pieces, '>>');
}

/**
 * Reads the chain of cross-reference sections from the file's last startxref through every /Prev,
 * checking each one is where it is said to be. A sentence saying what is wrong when it cannot be
 * trusted: appending to such a file would give readers a broken chain.
 */
function readSections(bytes: Buffer, context: PDFContext, locations: Locations | null = null, limit = sectionLimit): Section | string {
  const tail = bytes.subarray(Math.max(0, bytes.length - 2048)).toString('latin1');
  const at = tail.lastIndexOf('startxref');
  if (at === -1) return 'it has no startxref at its end';
  const match = /^startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail.slice(at));
  if (!match) return 'it does not end with a startxref offset and %%EOF';
  let offset = Number(match[1]);
  let newest: Section | null = null;
  const visited = new Set<number>();
  for (let count = 0; count < limit; count += 1) {
    if (visited.has(offset)) return 'the /Prev chain of its cross-reference sections loops';
    visited.add(offset);
    if (!(offset > 0 && offset < bytes.length)) return `a cross-reference section is said to start at byte ${offset}, outside the file`;
    let trailer: PDFDict;
    let kind: Section['kind'];
    const start = skipWhitespace(bytes, offset);
    if (bytes.subarray(start, start + 4).toString('latin1') === 'xref') {
      kind = 'table';
      const trailerAt = bytes.indexOf('trailer', start);
      if (trailerAt === -1) return `the cross-reference table at byte ${offset} has no trailer`;
      const problem = checkTableEntries(bytes, start + 4, trailerAt, locations);
      if (problem) return problem;
      try {
        const parsed = parseObjectAt(bytes, trailerAt + 'trailer'.length, context);
        if (!(parsed instanceof PDFDict)) return `the trailer after byte ${trailerAt} is not a dictionary`;
        trailer = parsed;
      } catch {
        return `the trailer after byte ${trailerAt} cannot be read`;
      }
    } else {
      kind = 'stream';
      const header = /^(\d+)\s+(\d+)\s+obj/.exec(bytes.subarray(start, start + 40).toString('latin1'));
      if (!header) return `no cross-reference table or stream starts at byte ${offset}, where its startxref or a /Prev points`;
      let parsed: PDFObject;
      try {
        parsed = parseObjectAt(bytes, start + header[0].length, context);
      } catch {
        return `the cross-reference stream at byte ${offset} cannot be read`;
      }
      if (!(parsed instanceof PDFRawStream) || parsed.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
        return `the object at byte ${offset} is not a cross-reference stream`;
      }
      const problem = checkStreamEntries(bytes, parsed, locations);
      if (problem) return problem;
      trailer = parsed.dict;
    }
    const size = trailer.get(PDFName.of('Size'));
    if (!(size instanceof PDFNumber)) return `the cross-reference section at byte ${offset} has no /Size`;
    if (!newest) {
      const root = trailer.get(PDFName.of('Root'));
      if (!(root instanceof PDFRef)) return 'its newest trailer has no /Root';
      if (locations) {
        // Read lazily: the newest trailer is the document's.
        context.trailerInfo = {
          Root: root,
          Encrypt: trailer.get(PDFName.of('Encrypt')),
          Info: trailer.get(PDFName.of('Info')),
          ID: trailer.get(PDFName.of('ID')),
        };
      } else if (root !== context.trailerInfo.Root) {
        // pdf-lib reads the file front to back; the newest trailer must name the catalog it settled on.
        return 'pdf-lib recovered a catalog other than the one its newest trailer names';
      }
      newest = { kind, offset, size: size.asNumber() };
    }
    // A hybrid file's classic trailer names a cross-reference stream beside it: read such a file whole.
    if (locations && trailer.has(PDFName.of('XRefStm'))) return 'its trailer names a second cross-reference stream (/XRefStm)';
    const prev = trailer.get(PDFName.of('Prev'));
    if (prev === undefined) return newest;
    if (!(prev instanceof PDFNumber)) return `the /Prev of the cross-reference section at byte ${offset} is not a number`;
    offset = prev.asNumber();
  }
  return `the file has more than ${limit} cross-reference sections`;
}

/** Why pdf-lib's reading of the file cannot be appended to, or null. */
function findParseDamage(document: PDFDocument): string | null {
  const { context } = document;
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (object instanceof PDFInvalidObject) return `pdf-lib could not read object ${ref.objectNumber} and kept its bytes as they were`;
  }
  const root = context.trailerInfo.Root;
  if (!(root instanceof PDFRef) || !(context.lookup(root) instanceof PDFDict)) return 'it has no readable catalog';
  return null;
}

/**
 * The PDF's limit on object numbers (ISO 32000-1, Annex C.2). A reference past it is not one the
 * seal could ever give a new object, so it does not lift where new numbers start.
 */
const largestObjectNumberAllowed = 8_388_607;

/**
 * The largest object number an original may use, defined, counted by its /Size or referred to: the
 * seal, its validation data and years of archive timestamps number their objects above it, and must
 * stay within the PDF's limit (found by attack: an original listing object 9,000,000 made the seal
 * number its own past the limit, where references are not looked for). Refused at upload too.
 */
export const largestOriginalObjectNumber = largestObjectNumberAllowed - 100_000;

/** The longest comment read between the parts of a reference; a file with longer ones is read as below. */
const referenceCommentLimit = 1024;

const lineBreak = /[\r\n]/g;
/** What may follow a comment's line to make it part of a reference: white space, then a number, an R or another comment. */
const afterComment = /[\r\n][\0\t\n\f\r ]*[0-9R%+\-.]/y;

/**
 * Whether a line's first '%' has more than referenceCommentLimit characters after it, and a number,
 * an R or another comment follows the line: a comment there might hide a reference from the
 * reading. Only the first '%' of a line is looked at (a later one has less after it), and each line
 * once: linear time.
 */
function hasLongComment(text: string): boolean {
  for (let at = text.indexOf('%'); at !== -1;) {
    lineBreak.lastIndex = at;
    const found = lineBreak.exec(text);
    if (!found) return false;
    afterComment.lastIndex = found.index;
    if (found.index - at - 1 > referenceCommentLimit && afterComment.test(text)) return true;
    at = text.indexOf('%', found.index);
  }
  return false;
}

/** Every run of the characters a number may be spelled with (each is looked at once: linear time; found by attack, a pattern that needed a digit inside was quadratic). */
const numberLike = /[0-9+\-.eE]+/g;
const digitRuns = /\d+/g;

/**
 * The largest object number above `largest` that a token spelled as a number could mean to some
 * reader: each run of its digits ("42-0" is 42 and 0 to poppler), its value as a number ("4.2e1",
 * "--42", "42." are 42 to pdf.js) and its whole part's digits together ("4-2" is 42 to pdf.js). Numbers past the PDF's limit are not ones the seal could give.
 */
function largestMeant(token: string, largest: number): number {
  let result = largest;
  if (/^\d+$/.test(token)) {
    const number = Number(token);
    return number > result && number <= largestObjectNumberAllowed ? number : result;
  }
  for (let match = digitRuns.exec(token); match; match = digitRuns.exec(token)) {
    const number = Number(match[0]);
    if (number > result && number <= largestObjectNumberAllowed) result = number;
  }
  digitRuns.lastIndex = 0;
  const value = Math.trunc(Math.abs(Number(token.replace(/^[+-]+/, ''))));
  if (value > result && value <= largestObjectNumberAllowed) result = value;
  // pdf.js passes over a minus inside a number ("4-2" is 42): every digit before a point or an exponent, together.
  const together = Number((token.split(/[.eE]/)[0] ?? '').replace(/[^0-9]/g, '').slice(0, 16));
  if (together > result && together <= largestObjectNumberAllowed) result = together;
  return result;
}

/**
 * The largest object number above `known` that `bytes` refer to ("12 0 R"), defined or not; `known`
 * when there is none. A reader resolves a reference to an object nobody defined as null: an original
 * may name objects it does not have, and draw them, to draw nothing. The seal numbers its new objects
 * above every number found here, or the original would come to draw the signer's initials or the
 * notary's seal where the notary saw nothing (found by attack). Read generously: anything that only
 * looks like a reference (in a string, in compressed bytes), and every spelling some reader takes for
 * one ("42 +0 R", "42.0 0 R", "42 0R", found by attack), counts; it only moves the new numbers up.
 */
export function largestReferenced(bytes: Uint8Array, known: number): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (hasLongComment(text)) return largestNumberIn(text, known);
  return readReferencesBackwards(text, known) ?? largestNumberIn(text, known);
}

/** Above every number the text spells, any reference's among them: more than needed, never less. */
function largestNumberIn(text: string, known: number): number {
  let largest = known;
  for (let match = numberLike.exec(text); match; match = numberLike.exec(text)) {
    if (/[0-9]/.test(match[0])) largest = largestMeant(match[0], largest);
  }
  numberLike.lastIndex = 0;
  return largest;
}

/** Whether the character is PDF white space (ISO 32000-2, 7.2.3). */
function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c || code === 0x00;
}

/** Whether the character ends a token: white space or a delimiter. */
function endsToken(code: number): boolean {
  return (
    isBlank(code) ||
    code === 0x28 ||
    code === 0x29 ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x5b ||
    code === 0x5d ||
    code === 0x7b ||
    code === 0x7d ||
    code === 0x2f ||
    code === 0x25
  );
}

/** Whether the character may be part of a number as some reader spells one: a digit, a sign, a point, an exponent. */
function spellsNumber(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2d || code === 0x2e || code === 0x45 || code === 0x65;
}

/**
 * White space read backwards from `at` (inclusive); the index before it, or -2 when it crosses into
 * a line holding a '%' (a comment might be part of the space: the caller reads otherwise).
 */
function skipBlankBackwards(text: string, at: number): number {
  let index = at;
  while (index >= 0 && isBlank(text.charCodeAt(index))) {
    const code = text.charCodeAt(index);
    index -= 1;
    if (code === 0x0a || code === 0x0d) {
      // The end of the line before: a '%' on it may begin a comment that runs to here. Read back
      // to the line's start only (each line is crossed from the one after it, once).
      for (let back = index; back >= 0; back -= 1) {
        const character = text.charCodeAt(back);
        if (character === 0x0a || character === 0x0d) break;
        if (character === 0x25) return -2;
      }
    }
  }
  return index;
}

/**
 * The tokens before an R that may be a reference's numbers: two holding digits, with up to one
 * without between or after them (a sign a line break split from its digits, "-\n0"; a point, ".").
 */
const tokensBeforeR = 3;

/**
 * largestReferenced read from each R that could end a reference (a token of its own: white space or
 * a character of a number before it, white space, a delimiter or the end after it), backwards over up to three tokens
 * spelled as numbers; each counts (largestMeant). Most of a file is not looked at. Null when a
 * comment might sit inside a reference: then every number in the file counts (largestNumberIn).
 */
function readReferencesBackwards(text: string, known: number): number | null {
  let largest = known;
  for (let at = text.indexOf('R'); at !== -1; at = text.indexOf('R', at + 1)) {
    if (at === 0) continue;
    // White space before it, or a number run into it ("42 0R", "42 0.R", "42 0-R", "42 0e+R": pdf.js ends a number there).
    const before = text.charCodeAt(at - 1);
    if (!isBlank(before) && !spellsNumber(before)) continue;
    if (at + 1 < text.length && !endsToken(text.charCodeAt(at + 1))) continue;
    let index = at - 1;
    let digitTokens = 0;
    for (let token = 0; token < tokensBeforeR && digitTokens < 2; token += 1) {
      index = skipBlankBackwards(text, index);
      if (index === -2) return null;
      const end = index;
      // Plain digits (nearly every reference) are read as they are passed; any other spelling by largestMeant.
      let value = 0;
      let scale = 1;
      let isPlainDigits = true;
      let hasDigit = false;
      for (; index >= 0; index -= 1) {
        const code = text.charCodeAt(index);
        if (code >= 0x30 && code <= 0x39) {
          hasDigit = true;
          // Past ten digits only zeros keep it within the limit; anything else puts it past.
          if (scale > 1e9) {
            if (code !== 0x30) value = largestObjectNumberAllowed + 1;
          } else {
            value += (code - 0x30) * scale;
            scale *= 10;
          }
        } else if (spellsNumber(code)) isPlainDigits = false;
        else break;
      }
      // Not a token of its own (a word's end: "x41"), or no token at all.
      if (index === end || (index >= 0 && !endsToken(text.charCodeAt(index)))) break;
      if (hasDigit) digitTokens += 1;
      if (isPlainDigits) {
        if (value > largest && value <= largestObjectNumberAllowed) largest = value;
      } else if (hasDigit) largest = largestMeant(text.slice(index + 1, end + 1), largest);
      if (index < 0 || !isBlank(text.charCodeAt(index))) break;
    }
  }
  return largest;
}

/** An object's header anywhere in the file, as a viewer that rebuilds a damaged table finds it. */
const objectHeader = /(?<![0-9])\d+[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]+obj(?![A-Za-z0-9])/g;

/**
 * largestReferenced over every stream of the file a viewer could read objects from (found by
 * attack): each object whose dictionary is followed by a stream and holds /First or /Type /ObjStm,
 * names decoded. A cross-reference section need not list it: a viewer that rebuilds a damaged table
 * finds it. Its /Type need not say so: a viewer reads objects from a stream a table names without
 * looking, and pdf-lib's whole reading skips one that does not say so, or that a later plain object
 * of the same number shadows. Such a stream that cannot be decoded as every reader decodes it
 * (pdf-stream-bounds.ts) makes the original unsealable. The objects are found by their headers and
 * only those with a stream after their dictionary are parsed.
 */
export function largestReferencedInObjectStreams(bytes: Buffer, known: number): number {
  const text = bytes.toString('latin1');
  const context = PDFContext.create();
  let largest = known;
  objectHeader.lastIndex = 0;
  for (let match = objectHeader.exec(text); match; match = objectHeader.exec(text)) {
    const body = skipWhitespace(bytes, match.index + match[0].length);
    if (bytes[body] !== 0x3c || bytes[body + 1] !== 0x3c) continue;
    const end = findDictEnd(bytes, body, bytes.length);
    if (end !== -1) {
      // A dictionary read quickly: a stream must follow it, and it must name what an object stream names.
      if (!hasAsciiAt(bytes, skipWhitespace(bytes, end), 'stream')) continue;
      const dictionary = text.slice(body, end);
      if (!dictionary.includes('First') && !dictionary.includes('ObjStm') && !dictionary.includes('#')) continue;
    }
    let object: PDFObject;
    try {
      object = parseObjectAt(bytes, body, context);
    } catch {
      continue;
    }
    if (!(object instanceof PDFRawStream)) continue;
    if (!object.dict.has(PDFName.of('First')) && object.dict.lookup(PDFName.of('Type')) !== PDFName.of('ObjStm')) continue;
    let decoded: Uint8Array;
    try {
      decoded = decodeBoundedStream(object);
    } catch (error) {
      throw new DocumentStructureError(`an object stream of it cannot be read as every reader reads it (${(error as Error).message})`);
    }
    largest = largestReferenced(decoded, largest);
  }
  return largest;
}

/** largestReferenced over the objects pdf-lib parsed (a whole load: object streams' objects included). */
function largestReferencedIn(context: PDFContext, known: number): number {
  let largest = known;
  const pending: PDFObject[] = context.enumerateIndirectObjects().map(([, object]) => object);
  const seen = new Set<PDFObject>();
  while (pending.length > 0) {
    const object = pending.pop() as PDFObject;
    if (seen.has(object)) continue;
    seen.add(object);
    if (object instanceof PDFRef) {
      if (object.objectNumber > largest && object.objectNumber <= largestObjectNumberAllowed) largest = object.objectNumber;
    } else if (object instanceof PDFDict) for (const [, value] of object.entries()) pending.push(value);
    else if (object instanceof PDFArray) pending.push(...object.asArray());
    else if (object instanceof PDFStream) pending.push(object.dict);
  }
  return largest;
}

/**
 * The original's objects, each parsed the first time pdf-lib looks it up (from where the newest
 * cross-reference section places it) instead of all at load: a seal reads the catalog, the page
 * tree and the pages it draws on, and leaves the rest (content streams, fonts, images) as bytes it
 * never needs to read. `onParsed` sees each object as parsed, before anyone edits it (its snapshot).
 * Iterating the map lists the objects parsed or added so far, which are the only ones that can
 * have changed.
 */
class LazyObjects extends Map<PDFRef, PDFObject> {
  private readonly streams = new Map<number, { bytes: Uint8Array; offsets: number[] } | null>();
  private readonly forgotten = new Set<PDFRef>();
  /** Objects looked up that could not be parsed (kept as PDFInvalidObject). */
  unreadable = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly locations: Locations,
    private readonly context: PDFContext,
    private readonly onParsed: (ref: PDFRef, object: PDFObject) => void,
  ) {
    super();
  }

  override get(ref: PDFRef): PDFObject | undefined {
    const known = super.get(ref);
    if (known !== undefined || this.forgotten.has(ref)) return known;
    const object = this.parse(ref);
    if (object === undefined) return undefined;
    if (object instanceof PDFInvalidObject) this.unreadable += 1;
    super.set(ref, object);
    this.onParsed(ref, object);
    return object;
  }

  override has(ref: PDFRef): boolean {
    return this.get(ref) !== undefined;
  }

  override delete(ref: PDFRef): boolean {
    this.forgotten.add(ref);
    return super.delete(ref);
  }

  override set(ref: PDFRef, object: PDFObject): this {
    this.forgotten.delete(ref);
    return super.set(ref, object);
  }

  private parse(ref: PDFRef): PDFObject | undefined {
    const location = this.locations.get(ref.objectNumber);
    if (!location || location.kind === 'free') return undefined;
    try {
      if (location.kind === 'offset') {
        if (location.generation !== ref.generationNumber) return undefined;
        return parseIndirectObjectAt(this.bytes, location.offset, this.context);
      }
      if (ref.generationNumber !== 0) return undefined;
      const stream = this.readObjectStream(location.streamNumber);
      const offset = stream?.offsets[location.index];
      if (!stream || offset === undefined) return PDFInvalidObject.of(new Uint8Array(0));
      // Up to where the next object starts: no object is read past its own stretch (decision 062).
      const end = stream.offsets[location.index + 1] ?? stream.bytes.length;
      return QuickObjectParser.forBytes(stream.bytes.subarray(offset, Math.max(offset, end)), this.context).parseObject();
    } catch {
      // As pdf-lib keeps an object it cannot read: its bytes stay as they are in the original.
      return PDFInvalidObject.of(new Uint8Array(0));
    }
  }

  /** largestReferenced over every object stream the sections list: their decoded bytes, which the file's bytes do not show. */
  largestReferencedInStreams(known: number): number {
    const streamNumbers = new Set<number>();
    for (const location of this.locations.values()) if (location.kind === 'compressed') streamNumbers.add(location.streamNumber);
    let largest = known;
    for (const streamNumber of streamNumbers) {
      const stream = this.readObjectStream(streamNumber);
      if (stream) largest = largestReferenced(stream.bytes, largest);
    }
    return largest;
  }

  /** An object stream's decoded bytes and where each of its objects starts in them (ISO 32000-2, 7.5.7). */
  private readObjectStream(streamNumber: number): { bytes: Uint8Array; offsets: number[] } | null {
    if (!this.streams.has(streamNumber)) {
      // Tried once: a stream that cannot be read stays unreadable for every object in it.
      this.streams.set(streamNumber, null);
      const location = this.locations.get(streamNumber);
      const stream = location?.kind === 'offset' ? parseIndirectObjectAt(this.bytes, location.offset, this.context) : null;
      if (stream instanceof PDFRawStream) {
        // Decoding checks the header (decision 062): a damaged one throws, and the stream stays unreadable.
        const decoded = decodeBoundedStream(stream);
        this.streams.set(streamNumber, { bytes: decoded, offsets: readObjectStreamOffsets(stream, decoded) });
      }
    }
    return this.streams.get(streamNumber) ?? null;
  }
}

/**
 * A PDF loaded for incremental updates: edit `document` with pdf-lib as usual, then `save()` appends
 * what changed. Several saves in a row each append one revision over the previous output.
 */
export class IncrementalPdf {
  /** The file as it stands: the original, then every revision appended so far. */
  bytes: Buffer;
  /** Why the next save rewrites the whole file (the original is damaged), or null. */
  fullSaveReason: string | null;
  private section: Section | null;
  private snapshot = new Map<PDFRef, Snapshot>();

  private constructor(
    readonly document: PDFDocument,
    bytes: Buffer,
    section: Section | string,
    /** Given by a lazy load: filled as each object is parsed. */
    lazySnapshot?: Map<PDFRef, Snapshot>,
  ) {
    this.bytes = bytes;
    this.section = typeof section === 'string' ? null : section;
    this.fullSaveReason = typeof section === 'string' ? section : null;
    if (this.section) {
      // New objects must not reuse a number the original's cross-reference sections already count.
      document.context.largestObjectNumber = Math.max(document.context.largestObjectNumber, this.section.size - 1);
    }
    const largest = document.context.largestObjectNumber;
    if (largest > largestOriginalObjectNumber) {
      throw new DocumentStructureError(
        `it numbers its objects up to ${largest}, which leaves no room below the PDF's limit of ${largestObjectNumberAllowed} for the seal's own`,
      );
    }
    if (lazySnapshot) this.snapshot = lazySnapshot;
    else this.takeSnapshot();
  }

  /**
   * Loads `bytes` without changing its metadata (pdf-lib's default rewrites /Info's dates and
   * producer). A file whose cross-reference sections can be trusted is read lazily (LazyObjects);
   * any other is parsed whole by pdf-lib, which recovers what it can, and saved again as a whole.
   */
  static async load(
    bytes: Buffer,
    options: {
      parseSpeed?: number;
      /**
       * Revisions that will be appended after this one's (a signature's validation data, archive
       * timestamps): a file with fewer than that many sections left before the limit is saved again
       * as a whole now, while it can be, so the later ones can still be appended.
       */
      sectionsForLater?: number;
      /** The file is signed: rewriting it would break its signatures, so a file that cannot be appended to is refused. */
      isAppendOnly?: boolean;
    } = {},
  ): Promise<IncrementalPdf> {
    const limit = sectionLimit - (options.sectionsForLater ?? 0);
    const lazy = IncrementalPdf.loadLazily(bytes, limit);
    if (lazy) return lazy;
    if (options.isAppendOnly) {
      const why = readSections(bytes, PDFContext.create(), null, limit);
      throw new DocumentStructureError(`the signed file cannot be appended to: ${typeof why === 'string' ? why : 'its catalog cannot be read'}`);
    }
    const document = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: options.parseSpeed ?? ParseSpeeds.Fast });
    // New objects above every number the original refers to, defined or not (largestReferenced).
    document.context.largestObjectNumber = largestReferencedInObjectStreams(
      bytes,
      largestReferencedIn(document.context, largestReferenced(bytes, document.context.largestObjectNumber)),
    );
    const damage = findParseDamage(document);
    const section = damage ?? readSections(bytes, document.context, null, limit);
    const reason = typeof section === 'string' ? `The original was saved again as a whole because ${section}.` : section;
    return new IncrementalPdf(document, bytes, reason);
  }

  /** The document over LazyObjects, or null when its cross-reference sections or its catalog cannot be read that way. */
  private static loadLazily(bytes: Buffer, limit: number): IncrementalPdf | null {
    const context = PDFContext.create();
    const locations: Locations = new Map();
    const section = readSections(bytes, context, locations, limit);
    if (typeof section === 'string') return null;
    // New objects must not take a number any section lists, even past its /Size (an object the seal
    // numbered 7 would replace the original's object 7 for every reader).
    for (const objectNumber of locations.keys()) if (objectNumber > context.largestObjectNumber) context.largestObjectNumber = objectNumber;
    const snapshot = new Map<PDFRef, Snapshot>();
    const objects = new LazyObjects(bytes, locations, context, (ref, object) => snapshot.set(ref, takeSnapshotOf(object)));
    // Nor one the original refers to without defining it (largestReferenced).
    context.largestObjectNumber = largestReferencedInObjectStreams(
      bytes,
      objects.largestReferencedInStreams(largestReferenced(bytes, context.largestObjectNumber)),
    );
    (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects = objects;
    const catalog = context.lookup(context.trailerInfo.Root);
    const pages = catalog instanceof PDFDict ? catalog.lookup(PDFName.of('Pages')) : undefined;
    if (!(catalog instanceof PDFCatalog) || !(pages instanceof PDFPageTree)) return null;
    // PDFDocument's constructor is private in its types; it is what PDFDocument.load calls once its parser is done.
    const Document = PDFDocument as unknown as new (context: PDFContext, ignoreEncryption: boolean, updateMetadata: boolean) => PDFDocument;
    const document = new Document(context, false, false);
    // Every page is read now (a seal draws on them): a page tree with an unreadable node would lose
    // that page from the list, so such a file is read whole instead, as pdf-lib reads it.
    document.getPages();
    if (objects.unreadable > 0) return null;
    return new IncrementalPdf(document, bytes, section, snapshot);
  }

  get catalog(): PDFCatalog {
    return this.document.catalog;
  }

  /**
   * Appends a revision holding every object added or changed since the last snapshot (or rewrites
   * the whole file when the original is damaged); `bytes` becomes the result. The file ends exactly
   * at %%EOF.
   */
  async save(options: { objectsPerTick?: number } = {}): Promise<SaveResult> {
    const { document } = this;
    // What pdf-lib's own save() does first: refresh the appearances of a form it was asked for, embed fonts and images.
    const form = (document as unknown as { formCache: { getValue(): { updateFieldAppearances(): void } | undefined } }).formCache.getValue();
    form?.updateFieldAppearances();
    await document.flush();
    if (this.section) {
      const { pdf, written } = this.appendRevision(this.section);
      this.bytes = pdf;
      // What was not written is as it was at the last snapshot.
      for (const [ref, object] of written) this.snapshot.set(ref, takeSnapshotOf(object));
      return { pdf, fullSave: false, reason: null };
    }
    const pdf = Buffer.from(await document.save({ useObjectStreams: false, objectsPerTick: options.objectsPerTick ?? ParseSpeeds.Fast }));
    const result = { pdf, fullSave: true, reason: this.fullSaveReason };
    const section = readSections(pdf, document.context);
    // pdf-lib's own output always has a readable table; should it not, every later save is whole too.
    this.section = typeof section === 'string' ? null : section;
    this.fullSaveReason = this.section ? null : this.fullSaveReason;
    this.bytes = pdf;
    this.takeSnapshot();
    return result;
  }

  /**
   * Puts bytes of the same length in place of the last save's (the signed file: the signer only
   * fills the placeholder in), so the next revision is appended to them.
   */
  replaceBytes(bytes: Buffer): void {
    if (bytes.length !== this.bytes.length) throw new Error('the replacement bytes do not have the length of the saved file');
    this.bytes = bytes;
  }

  private takeSnapshot(): void {
    // The same map a lazy load fills: objects parsed after a save are snapshotted as they are parsed.
    this.snapshot.clear();
    for (const [ref, object] of this.document.context.enumerateIndirectObjects()) this.snapshot.set(ref, takeSnapshotOf(object));
  }

  private appendRevision(previous: Section): { pdf: Buffer; written: Array<[PDFRef, PDFObject]> } {
    const { context } = this.document;
    const changed: Array<[PDFRef, PDFObject]> = [];
    for (const entry of context.enumerateIndirectObjects()) {
      const known = this.snapshot.get(entry[0]);
      if (!known || !isSame(known, entry[1])) changed.push(entry);
    }
    const base = this.bytes;
    const separator = base[base.length - 1] === 0x0a || base[base.length - 1] === 0x0d ? '' : '\n';
    let size = separator.length;
    const offsets: number[] = [];
    const pieces: Array<string | Uint8Array> = [separator];
    for (const [ref, object] of changed) {
      offsets.push(base.length + size);
      for (const piece of writeIndirectObject(ref, object)) {
        size += piece.length;
        if (typeof piece === 'string' && typeof pieces[pieces.length - 1] === 'string') pieces[pieces.length - 1] += piece;
        else pieces.push(piece);
      }
    }
    const xrefOffset = base.length + size;
    const trailer = context.obj({
      Size: 0,
      Root: context.trailerInfo.Root,
      Info: context.trailerInfo.Info,
      ID: context.trailerInfo.ID,
      Prev: previous.offset,
    });
    let xrefBytes: Buffer;
    let newSize: number;
    if (previous.kind === 'table') {
      // A section holds at least one subsection (ISO 32000-2, 7.5.4): with nothing changed, the head of the free list.
      const table = changed.length === 0 ? PDFCrossRefSection.create() : PDFCrossRefSection.createEmpty();
      changed.forEach(([ref], index) => table.addEntry(ref, offsets[index] ?? 0));
      newSize = Math.max(previous.size, context.largestObjectNumber + 1);
      trailer.set(PDFName.of('Size'), PDFNumber.of(newSize));
      const trailerDict = PDFTrailerDict.of(trailer);
      const out = Buffer.alloc(table.sizeInBytes() + trailerDict.sizeInBytes() + 1);
      const written = table.copyBytesInto(out, 0);
      trailerDict.copyBytesInto(out, written);
      out[out.length - 1] = 0x0a;
      xrefBytes = out;
    } else {
      // The stream lists itself; it is not kept in the document, its number only reserved.
      const streamRef = context.nextRef();
      newSize = Math.max(previous.size, context.largestObjectNumber + 1);
      trailer.set(PDFName.of('Size'), PDFNumber.of(newSize));
      // Left unencoded: a few hundred bytes, and pdf-lib's JavaScript deflate would cost more than the rest of the update.
      const stream = PDFCrossRefStream.of(trailer, [], false);
      changed.forEach(([ref], index) => stream.addUncompressedEntry(ref, offsets[index] ?? 0));
      stream.addUncompressedEntry(streamRef, xrefOffset);
      const header = `${streamRef.objectNumber} 0 obj\n`;
      const out = Buffer.alloc(header.length + stream.sizeInBytes() + '\nendobj\n'.length);
      out.write(header, 0, 'latin1');
      const written = stream.copyBytesInto(out, header.length);
      out.write('\nendobj\n', header.length + written, 'latin1');
      xrefBytes = out;
    }
    const ending = Buffer.from(`startxref\n${xrefOffset}\n%%EOF`, 'latin1');
    const output = Buffer.allocUnsafe(base.length + size + xrefBytes.length + ending.length);
    base.copy(output, 0);
    let position = base.length;
    for (const piece of pieces) {
      if (typeof piece === 'string') position += output.write(piece, position, 'latin1');
      else {
        output.set(piece, position);
        position += piece.length;
      }
    }
    if (position !== xrefOffset) throw new Error('the incremental update was not written where its cross-reference section says');
    position += xrefBytes.copy(output, position);
    ending.copy(output, position);
    this.section = { kind: previous.kind, offset: xrefOffset, size: newSize };
    return { pdf: output, written: changed };
  }
}
