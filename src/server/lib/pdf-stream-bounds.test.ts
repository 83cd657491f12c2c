import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFContext, PDFDocument, PDFRawStream, type PDFDict } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { buildPdfWith, oneBlockFlateBomb, streamObject } from '#test/pdf-attacks.ts';
import { makeUnpackingBombPdf } from '#test/pdf-fixtures.ts';
import { decodeBoundedStream, getStreamRefusal, PdfStreamDamagedError, PdfStreamTooLargeError, pdfStreamBounds } from './pdf-stream-bounds.ts';

const megabyte = 1024 * 1024;

/** An object stream in a fresh document's context, with the filters and decode parameters given. */
function makeStream(contents: Uint8Array, dict: Record<string, string | string[] | Record<string, number>>, context = PDFContext.create()): PDFRawStream {
  return PDFRawStream.of(context.obj(dict) as PDFDict, contents);
}

describe('unpacking a PDF’s object and cross-reference streams within bounds', () => {
  it('gives the same bytes as pdf-lib’s own decoders: plain Flate, Flate with decode parameters, a chain of filters', () => {
    const text = Buffer.from('1 0 2 40 << /Type /Font >> << /Length 5 >> '.repeat(5000));
    const streams = [
      makeStream(deflateSync(text), { Type: 'ObjStm', Filter: 'FlateDecode' }),
      makeStream(deflateSync(text), { Filter: 'FlateDecode', DecodeParms: { Columns: 1 } }),
      makeStream(Buffer.from(`${deflateSync(text).toString('hex')}>`), { Type: 'ObjStm', Filter: ['ASCIIHexDecode', 'FlateDecode'] }),
    ];
    for (const stream of streams) {
      const expected = Buffer.from(decodePDFRawStream(stream).decode());
      // Buffer.equals: a deep comparison of 215 KB element by element takes seconds.
      expect(expected.equals(text)).toBe(true);
      expect(Buffer.from(decodeBoundedStream(stream)).equals(expected)).toBe(true);
    }
  });

  it('stops at the bound of one stream, by Node’s zlib and by pdf-lib’s own decoders alike, and marks the document refused', () => {
    const spaces = deflateSync(Buffer.alloc(pdfStreamBounds.perStreamBytes + megabyte, 0x20), { level: 9 });
    const plain = makeStream(spaces, { Type: 'ObjStm', Filter: 'FlateDecode' });
    expect(() => decodeBoundedStream(plain)).toThrow(PdfStreamTooLargeError);
    expect(getStreamRefusal(plain.dict.context)).toBe('too_large');
    // A chain of filters goes through pdf-lib's decoders, read a chunk at a time.
    const hex = Buffer.from(`${spaces.toString('hex')}>`);
    const chained = makeStream(hex, { Type: 'ObjStm', Filter: ['ASCIIHexDecode', 'FlateDecode'] });
    expect(() => decodeBoundedStream(chained)).toThrow('a compressed stream of the PDF unpacks to more than 32 MB');
  });

  it('never hands Flate to pdf-lib’s inflate, which unpacks a whole deflate block at once: one block of 512 MB in 520 KB is refused as damaged', () => {
    const DecodeStream = (
      createRequire(import.meta.url)('pdf-lib/cjs/core/streams/DecodeStream.js') as { default: { prototype: { ensureBuffer(requested: number): Uint8Array } } }
    ).default;
    const ensureBuffer = DecodeStream.prototype.ensureBuffer;
    let largestBuffer = 0;
    DecodeStream.prototype.ensureBuffer = function (this: unknown, requested: number) {
      largestBuffer = Math.max(largestBuffer, requested);
      return ensureBuffer.call(this, requested);
    };
    try {
      const bomb = oneBlockFlateBomb(512 * megabyte);
      const dicts: Array<Parameters<typeof makeStream>[1]> = [
        { Type: 'ObjStm', Filter: 'FlateDecode' },
        { Type: 'ObjStm', Filter: 'FlateDecode', DecodeParms: { Columns: 1 } },
        { Type: 'ObjStm', Filter: ['FlateDecode', 'FlateDecode'] },
      ];
      for (const dict of dicts) {
        const stream = makeStream(bomb, dict);
        expect(() => decodeBoundedStream(stream)).toThrow(PdfStreamDamagedError);
        expect(getStreamRefusal(stream.dict.context)).toBe('damaged');
      }
      expect(largestBuffer).toBeLessThanOrEqual(pdfStreamBounds.perStreamBytes);
    } finally {
      DecodeStream.prototype.ensureBuffer = ensureBuffer;
    }
  });

  it('counts what one document unpacks across its streams, and another document starts afresh', () => {
    const context = PDFContext.create();
    const thirtyMegabytes = deflateSync(Buffer.alloc(30 * megabyte, 0x20), { level: 9 });
    for (let index = 0; index < 4; index += 1) decodeBoundedStream(makeStream(thirtyMegabytes, { Type: 'ObjStm', Filter: 'FlateDecode' }, context));
    expect(getStreamRefusal(context)).toBeNull();
    expect(() => decodeBoundedStream(makeStream(thirtyMegabytes, { Type: 'ObjStm', Filter: 'FlateDecode' }, context))).toThrow(
      'a compressed stream of the PDF unpacks to more than 128 MB',
    );
    expect(getStreamRefusal(context)).toBe('too_large');
    expect(decodeBoundedStream(makeStream(thirtyMegabytes, { Type: 'ObjStm', Filter: 'FlateDecode' })).length).toBe(30 * megabyte);
  });

  it('reads each object of an object stream from its own stretch only: entries a byte apart in a run of spaces are not parsed to its end once each', async () => {
    // 200 entries at offsets 0, 1, 2… in 256 KB of spaces, then one number: read from its offset to
    // wherever its parse ended, each entry skipped the rest of the spaces (52 s for 4,000 in 4 MB).
    const count = 200;
    let header = '';
    for (let index = 0; index < count; index += 1) header += `${100 + index} ${index} `;
    const body = Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(256 * 1024, 0x20), Buffer.from('1 ')]);
    const pdf = buildPdfWith({ 4: streamObject(`/Type /ObjStm /N ${count} /First ${header.length} /Filter /FlateDecode`, deflateSync(body)) });
    const ByteStream = (createRequire(import.meta.url)('pdf-lib/cjs/core/parser/ByteStream.js') as { default: { prototype: { next(): number } } }).default;
    const next = ByteStream.prototype.next;
    let steps = 0;
    ByteStream.prototype.next = function (this: unknown) {
      steps += 1;
      return next.call(this);
    };
    try {
      await PDFDocument.load(pdf, { updateMetadata: false });
    } finally {
      ByteStream.prototype.next = next;
    }
    // Linear in the file and the stream (a few hundred thousand steps), not entries x stream (51 million).
    expect(steps).toBeLessThan(4 * body.length);
  });

  it('is what pdf-lib’s parser uses: a bomb is skipped unread and the document is marked', async () => {
    const document = await PDFDocument.load(makeUnpackingBombPdf(200), { updateMetadata: false });
    expect(getStreamRefusal(document.context)).toBe('too_large');
    expect(document.getPageCount()).toBe(1);
  });

  it('undoes a TIFF predictor as readers do, and refuses what readers would read apart: a hex digit that is not one, other filters, other predictors (found by attack)', () => {
    const text = Buffer.from('8 0 9 21 << /XObject << /Im1 42 0 R >> >> << /Length 5 >> ');
    // TIFF predictor 2: each byte of a row written as its difference from the byte one pixel before it.
    const tiff = (colors: number, columns: number) => {
      const row = colors * columns;
      return Buffer.from(text.map((byte, index) => (index % row >= colors ? (byte - (text[index - colors] ?? 0)) & 0xff : byte)));
    };
    for (const [colors, columns] of [
      [1, 7],
      [3, 4],
      [1, text.length],
    ] as const) {
      const stream = makeStream(deflateSync(tiff(colors, columns)), {
        Type: 'ObjStm',
        Filter: 'FlateDecode',
        DecodeParms: { Predictor: 2, Colors: colors, Columns: columns, BitsPerComponent: 8 },
      });
      expect(Buffer.from(decodeBoundedStream(stream)).toString('latin1'), `${colors} colours, ${columns} columns`).toBe(text.toString('latin1'));
    }
    // A last row shorter than the others is decoded too, as readers decode it (second attack: its references went unread).
    const columns = 7;
    const rows = Buffer.concat(
      Array.from({ length: Math.ceil(text.length / columns) }, (_, row) =>
        Buffer.concat([Buffer.from([0]), text.subarray(row * columns, row * columns + columns)]),
      ),
    );
    expect(text.length % columns).not.toBe(0);
    const png = makeStream(deflateSync(rows), { Type: 'ObjStm', Filter: 'FlateDecode', DecodeParms: { Predictor: 12, Columns: columns } });
    expect(Buffer.from(decodeBoundedStream(png)).toString('latin1')).toBe(text.toString('latin1'));
    const refused = (contents: Uint8Array, dict: Record<string, string | string[] | Record<string, number>>) => {
      const stream = makeStream(contents, { Type: 'ObjStm', ...dict });
      expect(() => decodeBoundedStream(stream), JSON.stringify(dict)).toThrow(PdfStreamDamagedError);
      expect(getStreamRefusal(stream.dict.context)).toBe('damaged');
    };
    // pdf-lib skips a character that is not a hex digit; poppler reads it as a zero.
    expect(Buffer.from(decodeBoundedStream(makeStream(Buffer.from('34 32\n>'), { Type: 'ObjStm', Filter: 'ASCIIHexDecode' }))).toString()).toBe('42');
    refused(Buffer.from('34x32>'), { Filter: 'ASCIIHexDecode' });
    refused(Buffer.from('3432g>'), { Filter: 'ASCIIHexDecode' });
    for (const filter of ['LZWDecode', 'ASCII85Decode', 'RunLengthDecode', 'DCTDecode']) refused(Buffer.from('34'), { Filter: filter });
    refused(deflateSync(text), { Filter: 'FlateDecode', DecodeParms: { Predictor: 5 } });
    refused(deflateSync(text), { Filter: 'FlateDecode', DecodeParms: { Predictor: 2, BitsPerComponent: 4 } });
  });
});
