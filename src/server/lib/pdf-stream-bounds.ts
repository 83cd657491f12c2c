import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFName, type PDFContext, type PDFRawStream } from 'pdf-lib';
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
/** The documents a stream of which was refused: pdf-lib's lenient parse skips such an object and goes on. */
const refusedDocuments = new WeakSet<PDFContext>();

/** Whether reading the document met a stream that unpacks past a bound (so the file must be refused). */
export function hasUnpackedPastBound(context: PDFContext): boolean {
  return refusedDocuments.has(context);
}
const chunkBytes = 64 * 1024;

/**
 * An object or cross-reference stream's bytes, decoded within the bounds: Node's zlib for plain
 * Flate (several times faster than pdf-lib's JavaScript inflate), else pdf-lib's decoders read
 * a chunk at a time, so nothing past the bound is ever produced.
 */
export function decodeBoundedStream(stream: PDFRawStream): Uint8Array {
  const context = stream.dict.context;
  const spent = unpackedByDocument.get(context) ?? 0;
  const limit = Math.min(pdfStreamBounds.perStreamBytes, pdfStreamBounds.perDocumentBytes - spent);
  try {
    const decoded = decodeWithin(stream, limit);
    unpackedByDocument.set(context, spent + decoded.length);
    return decoded;
  } catch (error) {
    if (error instanceof PdfStreamTooLargeError) refusedDocuments.add(context);
    throw error;
  }
}

function decodeWithin(stream: PDFRawStream, limit: number): Uint8Array {
  const tooLarge = () => new PdfStreamTooLargeError(limit === pdfStreamBounds.perStreamBytes ? limit : pdfStreamBounds.perDocumentBytes);
  if (limit <= 0) throw tooLarge();
  const isPlainFlate = stream.dict.get(PDFName.of('Filter')) === PDFName.of('FlateDecode') && !stream.dict.has(PDFName.of('DecodeParms'));
  if (isPlainFlate) {
    try {
      return inflateSync(stream.contents, { maxOutputLength: limit });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      // Damaged data zlib refuses outright: pdf-lib's inflate below reads what it can, as before.
    }
  }
  const decoder = decodePDFRawStream(stream);
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

// pdf-lib's parser reads object and cross-reference streams through this one function (the
// CommonJS build is the one Node loads for 'pdf-lib').
const ByteStream = (createRequire(import.meta.url)('pdf-lib/cjs/core/parser/ByteStream.js') as { default: typeof ByteStreamClass }).default;
ByteStream.fromPDFRawStream = (rawStream: PDFRawStream) => ByteStream.of(decodeBoundedStream(rawStream));
