import { createRequire } from 'node:module';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRawStream, PDFRef } from 'pdf-lib';
import type ByteStreamClass from 'pdf-lib/cjs/core/parser/ByteStream.js';

/**
 * Bounds on what reading a PDF may unpack (decision 062). pdf-lib decodes every object stream and
 * cross-reference stream it meets while it parses, with no limit: a 200 KB upload whose object
 * stream inflates to 200 MB held the event loop for 1.2 s and grew the process by 300 MB, and the
 * 50 MB upload limit would allow some 50 GB. Objects and cross-references are small: no legitimate
 * stream of them comes near these bounds.
 */
export const pdfStreamBounds = {
  /** The most one object or cross-reference stream may unpack to. */
  perStreamBytes: 32 * 1024 * 1024,
  /** The most all of one document's object and cross-reference streams may unpack to together. */
  perDocumentBytes: 128 * 1024 * 1024,
};

/** Thrown when a stream would unpack past a bound: the file is refused, nothing more is unpacked. */
export class PdfStreamTooLargeError extends Error {
  constructor(limit: number) {
    super(`a compressed stream of the PDF unpacks to more than ${Math.round(limit / (1024 * 1024))} MB`);
    this.name = 'PdfStreamTooLargeError';
  }
}

const unpackedByDocument = new WeakMap<PDFContext, number>();
/** The documents a stream of which was refused, and why: pdf-lib's lenient parse skips such an object and goes on. */
const refusedDocuments = new WeakMap<PDFContext, 'too_large' | 'damaged'>();

/** Why reading the document refused one of its streams (so the file must be refused), or null. */
export function getStreamRefusal(context: PDFContext): 'too_large' | 'damaged' | null {
  return refusedDocuments.get(context) ?? null;
}

/** A stream whose structure cannot be what it claims (thrown; the document is marked damaged). */
export class PdfStreamDamagedError extends Error {
  constructor(reason: string) {
    super(`a stream of the PDF is damaged: ${reason}`);
    this.name = 'PdfStreamDamagedError';
  }
}

const chunkBytes = 64 * 1024;
/** The most entries one cross-reference stream may list: far more objects than a 50 MB file holds. */
const maxCrossReferenceEntries = 1_000_000;

/**
 * An object or cross-reference stream's bytes, decoded within the bounds, its structure checked.
 * Flate is always Node's zlib, which stops at the bound (pdf-lib's JavaScript inflate decodes a
 * whole deflate block at once, however large); ASCII hex is pdf-lib's decoder, read a chunk at a
 * time, so nothing past the bound is ever produced. Other filters are refused (checkHexDigits).
 */
export function decodeBoundedStream(stream: PDFRawStream): Uint8Array {
  const context = stream.dict.context;
  const spent = unpackedByDocument.get(context) ?? 0;
  const limit = Math.min(pdfStreamBounds.perStreamBytes, pdfStreamBounds.perDocumentBytes - spent);
  try {
    const decoded = decodeWithin(stream, limit);
    unpackedByDocument.set(context, spent + decoded.length);
    checkStructure(stream, decoded);
    return decoded;
  } catch (error) {
    if (error instanceof PdfStreamTooLargeError) refusedDocuments.set(context, 'too_large');
    else if (error instanceof PdfStreamDamagedError && !refusedDocuments.has(context)) refusedDocuments.set(context, 'damaged');
    throw error;
  }
}

function decodeWithin(stream: PDFRawStream, limit: number): Uint8Array {
  const tooLarge = () => new PdfStreamTooLargeError(limit === pdfStreamBounds.perStreamBytes ? limit : pdfStreamBounds.perDocumentBytes);
  if (limit <= 0) throw tooLarge();
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const filters = filter instanceof PDFName ? [filter] : filter instanceof PDFArray ? filter.asArray().map((item) => stream.dict.context.lookup(item)) : [];
  const parameters = stream.dict.lookup(PDFName.of('DecodeParms'));
  let data: Uint8Array = stream.contents;
  for (const [index, name] of filters.entries()) {
    if (!(name instanceof PDFName)) throw new PdfStreamDamagedError('a filter is not a name');
    const found = stream.dict.context.lookup(parameters instanceof PDFArray ? parameters.get(index) : filters.length === 1 ? parameters : undefined);
    const stageParameters = found instanceof PDFDict ? found : null;
    if (name === PDFName.of('FlateDecode')) {
      data = inflateWithin(data, limit, tooLarge);
      if (stageParameters) data = undoPredictor(data, stageParameters);
    } else if (name === PDFName.of('ASCIIHexDecode')) {
      checkHexDigits(data);
      data = decodeOneFilter(data, name, stageParameters, limit, tooLarge);
    } else {
      throw new PdfStreamDamagedError(`its objects are packed with ${name.decodeText()}, which readers do not all unpack alike`);
    }
  }
  if (data.length > limit) throw tooLarge();
  return data;
}

function inflateWithin(data: Uint8Array, limit: number, tooLarge: () => Error): Uint8Array {
  try {
    // A stream cut short gives what it holds (as readers do), not an error.
    return inflateSync(data, { maxOutputLength: limit, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new PdfStreamDamagedError(`its compressed data cannot be read (${(error as Error).message})`);
  }
}

/**
 * Object and cross-reference streams are read only as every reader reads them (found by attack):
 * where pdf-lib's decoders and a viewer's differ, the references the seal looks for in an object
 * stream (incremental.ts, largestReferenced) could be other than the ones a viewer follows. Flate is
 * zlib everywhere; ASCII hex is read alike only when it holds hex digits and white space alone
 * (pdf-lib skips anything else, poppler reads it as a zero). Any other filter is refused: no program
 * packs objects with one, and each is a decoder more to agree on.
 */
function checkHexDigits(data: Uint8Array): void {
  for (const byte of data) {
    if (byte === 0x3e) return;
    const isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
    const isBlank = byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
    if (!isHex && !isBlank) throw new PdfStreamDamagedError('its hexadecimal data holds a character that is not a hex digit');
  }
}

/** A Flate stream's predictor undone: none (1), TIFF (2, 8 bits a component) or PNG (10-15); any other is refused. */
function undoPredictor(data: Uint8Array, parameters: PDFDict): Uint8Array {
  const predictor = numberIn(parameters, 'Predictor') ?? 1;
  if (predictor === 1) return data;
  if (predictor === 2) return undoTiffPredictor(data, parameters);
  if (predictor >= 10 && predictor <= 15) return undoPngPredictor(data, parameters);
  throw new PdfStreamDamagedError(`its predictor ${predictor} is not one a PDF may use`);
}

/**
 * The rows of a stream encoded with the TIFF predictor (/Predictor 2, ISO 32000-2, 7.4.4.4): each
 * component stored as its difference from the same component of the pixel before it in its row.
 * Only 8 bits a component, what any program writing objects would use; other depths are refused.
 */
function undoTiffPredictor(data: Uint8Array, parameters: PDFDict): Uint8Array {
  const colors = numberIn(parameters, 'Colors') ?? 1;
  const bitsPerComponent = numberIn(parameters, 'BitsPerComponent') ?? 8;
  const columns = numberIn(parameters, 'Columns') ?? 1;
  if (bitsPerComponent !== 8 || !Number.isInteger(colors) || colors < 1 || colors > 32 || !Number.isInteger(columns) || columns < 1) {
    throw new PdfStreamDamagedError('its TIFF predictor has parameters no reader agrees on');
  }
  const rowBytes = colors * columns;
  const out = new Uint8Array(data);
  for (let index = 0; index < out.length; index += 1) {
    if (index % rowBytes >= colors) out[index] = ((out[index] ?? 0) + (out[index - colors] ?? 0)) & 0xff;
  }
  return out;
}

/**
 * The rows of a stream encoded with a PNG predictor (/Predictor 10-15, ISO 32000-2, 7.4.4.4), as
 * they were before: most cross-reference streams are written so (pdf-lib's own decoders skip this).
 */
function undoPngPredictor(data: Uint8Array, parameters: PDFDict): Uint8Array {
  const colors = numberIn(parameters, 'Colors') ?? 1;
  const bitsPerComponent = numberIn(parameters, 'BitsPerComponent') ?? 8;
  const columns = numberIn(parameters, 'Columns') ?? 1;
  const pixelBytes = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  const rowBytes = Math.ceil((colors * bitsPerComponent * columns) / 8);
  if (!(rowBytes > 0 && rowBytes <= data.length)) throw new PdfStreamDamagedError('its predictor rows do not fit its data');
  // A last row shorter than the others is decoded as far as it goes, as readers decode it (found by
  // attack: dropped, the references in it went unread).
  const rows = Math.ceil(data.length / (rowBytes + 1));
  const out = new Uint8Array(data.length - rows);
  for (let row = 0; row < rows; row += 1) {
    const type = data[row * (rowBytes + 1)] ?? 0;
    const source = row * (rowBytes + 1) + 1;
    const target = row * rowBytes;
    const width = Math.min(rowBytes, out.length - target);
    for (let column = 0; column < width; column += 1) {
      const raw = data[source + column] ?? 0;
      const left = column >= pixelBytes ? (out[target + column - pixelBytes] ?? 0) : 0;
      const up = row > 0 ? (out[target - rowBytes + column] ?? 0) : 0;
      const upLeft = row > 0 && column >= pixelBytes ? (out[target - rowBytes + column - pixelBytes] ?? 0) : 0;
      let predicted = 0;
      if (type === 1) predicted = left;
      else if (type === 2) predicted = up;
      else if (type === 3) predicted = (left + up) >> 1;
      else if (type === 4) {
        const estimate = left + up - upLeft;
        const [toLeft, toUp, toUpLeft] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
        predicted = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
      }
      out[target + column] = (raw + predicted) & 0xff;
    }
  }
  return out;
}

/** ASCII hex by pdf-lib's decoder of it, read a chunk at a time. */
function decodeOneFilter(data: Uint8Array, name: PDFName, parameters: PDFDict | null, limit: number, tooLarge: () => Error): Uint8Array {
  const dict = PDFContext.create().obj({ Filter: name, ...(parameters ? { DecodeParms: parameters } : {}) }) as PDFDict;
  const decoder = decodePDFRawStream(PDFRawStream.of(dict, data));
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const chunk = decoder.getBytes(chunkBytes);
    if (chunk.length === 0) break;
    total += chunk.length;
    if (total > limit) throw tooLarge();
    chunks.push(new Uint8Array(chunk));
    if (chunk.length < chunkBytes) break;
  }
  return chunks.length === 1 ? (chunks[0] ?? new Uint8Array()) : Buffer.concat(chunks);
}

const numberIn = (dict: PDFDict, key: string): number | null => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : null;
};

/**
 * What pdf-lib builds from a stream must be paid for by its bytes: a cross-reference stream's
 * entries by their width (/W [0 0 0] made millions of entries from no bytes at all), an object
 * stream's objects by their own stretch of it (offsets all at one place parsed one large object
 * again for every entry).
 */
function checkStructure(stream: PDFRawStream, decoded: Uint8Array): void {
  const type = stream.dict.lookup(PDFName.of('Type'));
  if (type === PDFName.of('XRef')) {
    const widths = stream.dict.lookup(PDFName.of('W'));
    const width =
      widths instanceof PDFArray ? widths.asArray().reduce((sum, item) => sum + (item instanceof PDFNumber ? Math.max(0, item.asNumber()) : 0), 0) : 0;
    const index = stream.dict.lookup(PDFName.of('Index'));
    const counts = index instanceof PDFArray ? index.asArray().filter((_, position) => position % 2 === 1) : [];
    const entries =
      counts.length > 0
        ? counts.reduce((sum, item) => sum + (item instanceof PDFNumber ? Math.max(0, item.asNumber()) : 0), 0)
        : (numberIn(stream.dict, 'Size') ?? 0);
    if (width < 1) throw new PdfStreamDamagedError('a cross-reference stream gives its entries no width');
    if (entries > maxCrossReferenceEntries) throw new PdfStreamDamagedError(`a cross-reference stream lists ${entries} entries`);
    if (entries * width > decoded.length) throw new PdfStreamDamagedError('a cross-reference stream lists more entries than its bytes hold');
  } else if (type === PDFName.of('ObjStm')) readObjectStreamOffsets(stream, decoded);
}

/**
 * Where each object of an object stream starts in its decoded bytes (/First added), increasing and
 * inside them (ISO 32000-2, 7.5.7); PdfStreamDamagedError when the header cannot say so.
 */
export function readObjectStreamOffsets(stream: PDFRawStream, decoded: Uint8Array): number[] {
  const count = numberIn(stream.dict, 'N') ?? 0;
  const first = numberIn(stream.dict, 'First') ?? 0;
  // Each entry is two numbers and two spaces at least, in the header before /First.
  if (count < 0 || first < 0 || first > decoded.length || count * 4 > first)
    throw new PdfStreamDamagedError('an object stream’s header cannot hold its entries');
  const numbers = Buffer.from(decoded.buffer, decoded.byteOffset, first).toString('latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  const offsets: number[] = [];
  for (let entry = 0; entry < count; entry += 1) {
    const offset = first + (numbers[entry * 2 + 1] ?? Number.NaN);
    if (!Number.isInteger(offset) || offset <= (offsets.at(-1) ?? first - 1) || offset >= decoded.length) {
      throw new PdfStreamDamagedError('an object stream’s objects are not each at their own place in it');
    }
    offsets.push(offset);
  }
  return offsets;
}

const requirePdfLib = createRequire(import.meta.url);

// pdf-lib's parser reads object and cross-reference streams through this one function (the
// CommonJS build is the one Node loads for 'pdf-lib').
const ByteStream = (requirePdfLib('pdf-lib/cjs/core/parser/ByteStream.js') as { default: typeof ByteStreamClass }).default;
ByteStream.fromPDFRawStream = (rawStream: PDFRawStream) => ByteStream.of(decodeBoundedStream(rawStream));

interface ObjectStreamParser {
  alreadyParsed: boolean;
  firstOffset: number;
  context: PDFContext;
  bytes: { bytes: Uint8Array };
  shouldWaitForTick: () => boolean;
  parseOffsetsAndObjectNumbers(): Array<{ objectNumber: number; offset: number }>;
  parseIntoContext(): Promise<void>;
}

// Each object of an object stream is read from its own stretch of it, up to where the next one
// starts: pdf-lib read each from its offset to wherever its parse ended, so entries one byte apart
// in a run of spaces (or in nested brackets) parsed the rest of the stream once per entry (1,000
// entries in 1 MB of spaces: 2.9 s, 4,000 in 4 MB: 52 s, from files of 5 and 19 KB).
const ObjectStreamParserClass = (requirePdfLib('pdf-lib/cjs/core/parser/PDFObjectStreamParser.js') as { default: { prototype: ObjectStreamParser } }).default;
ObjectStreamParserClass.prototype.parseIntoContext = async function parseIntoContext(this: ObjectStreamParser): Promise<void> {
  if (this.alreadyParsed) throw new Error('This object stream was parsed already.');
  this.alreadyParsed = true;
  const entries = this.parseOffsetsAndObjectNumbers();
  const bytes = this.bytes.bytes;
  for (const [index, entry] of entries.entries()) {
    const start = this.firstOffset + entry.offset;
    const next = entries[index + 1];
    const end = next ? this.firstOffset + next.offset : bytes.length;
    const object = PDFObjectParser.forBytes(bytes.subarray(start, Math.max(start, end)), this.context).parseObject();
    this.context.assign(PDFRef.of(entry.objectNumber, 0), object);
    if (this.shouldWaitForTick()) await new Promise((resolve) => setImmediate(resolve));
  }
};
