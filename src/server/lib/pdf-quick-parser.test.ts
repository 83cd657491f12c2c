import type { PDFDict } from 'pdf-lib';
import { PDFCatalog, PDFContext, PDFName, PDFNumber, PDFObjectParser, PDFPageLeaf, PDFPageTree, PDFRawStream, PDFRef } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { nameComparisons, QuickObjectParser } from './pdf-quick-parser.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

/** What pdf-lib's own parser makes of the bytes, and what the quick one makes: same kind, same serialization, same end. */
function parseBoth(text: string) {
  const theirs = PDFObjectParser.forBytes(bytes(text), PDFContext.create());
  const ours = QuickObjectParser.forBytes(bytes(text), PDFContext.create());
  const expected = theirs.parseObject();
  const actual = ours.parseObject();
  return { expected, actual };
}

describe('the quick PDF object parser', () => {
  const samples = [
    '<< /Type /Page /Parent 1 0 R /MediaBox [ 0 0 612 792 ] /Contents [ 6 0 R 8 0 R ] >>',
    '<</Type/Catalog/Pages 2 0 R/Lang(en-US)>>',
    '<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>',
    '<< /A#20B /x#2Fy /Long' + 'n'.repeat(100) + ' 1 >>',
    '<< /N -12 /P +3 /D 4.25 /E .5 /F 7. /G 1234567890123456 /H 0012 >>',
    '<< % a comment\n /Key % another\r\n /Value >>',
    '<< /S (a (nested) string \\) here) /H <48656c6c6f> /B true /F false /Z null >>',
    '[ 1 2 R 3 4 5 R 6 ]',
    '<< /Length 5 >>\nstream\nhello\nendstream',
    '<< /Length 99 >>\nstream\nhello\nendstream',
    '<< /Empty />>',
    '<< /A 1 0 R/B 2 0 R>>',
    '<< /ÿé 1 >>',
    '/Name',
    '42',
    '7 0 R',
  ];
  for (const sample of samples) {
    it(`reads ${JSON.stringify(sample.slice(0, 40))} as pdf-lib does`, () => {
      const { expected, actual } = parseBoth(sample);
      expect(actual.constructor).toBe(expected.constructor);
      expect(actual.toString()).toBe(expected.toString());
      if (expected instanceof PDFRawStream && actual instanceof PDFRawStream) expect(Buffer.from(actual.contents)).toEqual(Buffer.from(expected.contents));
    });
  }

  it('gives the same shared instances of names and references as pdf-lib', () => {
    const { actual } = parseBoth('<< /Type /Page /Parent 1 0 R /Q#41 2 >>');
    expect(actual).toBeInstanceOf(PDFPageLeaf);
    const dict = actual as PDFDict;
    expect(dict.get(PDFName.of('Type'))).toBe(PDFName.of('Page'));
    expect(dict.get(PDFName.of('Parent'))).toBe(PDFRef.of(1, 0));
    expect(dict.get(PDFName.of('QA'))).toBeInstanceOf(PDFNumber);
  });

  it('makes a catalog and a page tree node of dictionaries with those types', () => {
    expect(parseBoth('<< /Type /Catalog >>').actual).toBeInstanceOf(PDFCatalog);
    expect(parseBoth('<< /Type /Pages /Kids [] /Count 0 >>').actual).toBeInstanceOf(PDFPageTree);
  });

  it('refuses what pdf-lib refuses', () => {
    for (const broken of ['<< /A 1 ', '<< /A 1 >', '1-2', '<< /A ) >>']) {
      expect(() => PDFObjectParser.forBytes(bytes(broken), PDFContext.create()).parseObject(), broken).toThrow();
      expect(() => QuickObjectParser.forBytes(bytes(broken), PDFContext.create()).parseObject(), broken).toThrow();
    }
  });

  it('agrees with pdf-lib on thousands of damaged variants of a page dictionary', () => {
    const base =
      '<< /Type /Page /Parent 1 0 R /Resources << /Font << /F1 4 0 R /F#232 5 0 R >> >> /MediaBox [ 0 0 612.5 -792 ] /Contents 6 0 R /S (a\\)b) %c\n/H <4142> >>';
    const alphabet = '0123456789 /<>[]()#%.+-R\n\rabc';
    let seed = 26;
    const random = (limit: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % limit;
    };
    for (let round = 0; round < 3000; round += 1) {
      const chars = base.split('');
      for (let edit = 0; edit <= random(4); edit += 1) chars.splice(random(chars.length), random(3), alphabet[random(alphabet.length)] ?? '');
      const text = chars.join('');
      const run = (parser: PDFObjectParser) => {
        try {
          const object = parser.parseObject();
          return `${object.constructor.name} ${object.toString()}`;
        } catch {
          return 'refused';
        }
      };
      const theirs = run(PDFObjectParser.forBytes(bytes(text), PDFContext.create()));
      const ours = run(QuickObjectParser.forBytes(bytes(text), PDFContext.create()));
      expect(ours, text).toBe(theirs);
    }
  });

  it('stays as quick as pdf-lib on names made to share one hash (found by attack: 4,000 of them made every look-up a scan)', () => {
    // "Aa" and "BB" have the same hash: 12 places of either make 4,096 names of one hash.
    const names = Array.from(
      { length: 4000 },
      (_, index) => `/${'P'.repeat(40)}${Array.from({ length: 12 }, (_, bit) => ((index >> bit) & 1 ? 'BB' : 'Aa')).join('')}`,
    );
    const text = `<< /K [ ${names.join(' ')} ${`${names[3999]} `.repeat(4000)}] >>`;
    const before = nameComparisons();
    const { expected, actual } = parseBoth(text);
    const compared = nameComparisons() - before;
    expect(actual.toString()).toBe(expected.toString());
    // Bytes compared with cached names while reading them all: a few per name, not thousands.
    expect(compared).toBeLessThan(8000 * 64 * 8);
  });

  it('keeps its caches bounded while reading many distinct names and references', () => {
    const entries = Array.from({ length: 20_000 }, (_, index) => `/N${index} ${index + 1} 0 R`).join(' ');
    const { expected, actual } = parseBoth(`<< ${entries} >>`);
    expect(actual.toString()).toBe(expected.toString());
    expect((actual as PDFDict).get(PDFName.of('N19999'))).toBe(PDFRef.of(20_000, 0));
  });
});
