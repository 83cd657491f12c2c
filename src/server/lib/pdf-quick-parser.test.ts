import {
  PDFArray,
  PDFCatalog,
  PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFPageLeaf,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  type PDFObject,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { findDictEnd, findFlatDictEnd, isUnreadRawDict, nameComparisons, QuickObjectParser, RawDict, walkDictEnd } from './pdf-quick-parser.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

/** The resource dictionaries still as their bytes inside `object`, outermost first. */
function unreadDicts(object: PDFObject): RawDict[] {
  const found: RawDict[] = [];
  const visit = (value: PDFObject) => {
    if (isUnreadRawDict(value)) found.push(value as RawDict);
    else if (value instanceof PDFDict) for (const [, entry] of value.entries()) visit(entry);
    else if (value instanceof PDFArray) for (const entry of value.asArray()) visit(entry);
    else if (value instanceof PDFRawStream) visit(value.dict);
  };
  visit(object);
  return found;
}

/** Reads every resource dictionary kept as its bytes, as anyone looking inside would. */
function readAll(object: PDFObject): PDFObject {
  for (let unread = unreadDicts(object); unread.length > 0; unread = unreadDicts(object)) for (const dict of unread) dict.keys();
  return object;
}

/** What pdf-lib's own parser makes of the bytes, and what the quick one makes (read through): same kind, same serialization, same end. */
function parseBoth(text: string) {
  const theirs = PDFObjectParser.forBytes(bytes(text), PDFContext.create());
  const ours = QuickObjectParser.forBytes(bytes(text), PDFContext.create());
  const expected = theirs.parseObject();
  const actual = readAll(ours.parseObject());
  return { expected, actual };
}

/**
 * Damages `base` `rounds` times (a few random edits each, between `from` and `length - to`) and
 * expects the quick parser to read each variant as pdf-lib does: the same kind and serialization
 * (every resource dictionary kept as bytes read through), or both refusing it. A dictionary kept
 * as bytes must write exactly bytes of the variant. Returns how many were kept as bytes.
 */
function expectSameAsPdfLib(base: string, options: { rounds: number; seed: number; alphabet: string; maxEdits: number; from?: number; to?: number }): number {
  let seed = options.seed;
  const random = (limit: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % limit;
  };
  const from = options.from ?? 0;
  let keptRaw = 0;
  for (let round = 0; round < options.rounds; round += 1) {
    const chars = base.split('');
    for (let edit = 0; edit < options.maxEdits && edit <= random(options.maxEdits); edit += 1) {
      chars.splice(from + random(chars.length - from - (options.to ?? 0)), random(3), options.alphabet[random(options.alphabet.length)] ?? '');
    }
    const text = chars.join('');
    const run = (parser: PDFObjectParser) => {
      try {
        const object = parser.parseObject();
        const raw = unreadDicts(object);
        keptRaw += raw.length;
        for (const dict of raw) expect(text.includes(dict.toString()), text).toBe(true);
        return `${object.constructor.name} ${readAll(object).toString()}`;
      } catch {
        return 'refused';
      }
    };
    const theirs = run(PDFObjectParser.forBytes(bytes(text), PDFContext.create()));
    const ours = run(QuickObjectParser.forBytes(bytes(text), PDFContext.create()));
    expect(ours, text).toBe(theirs);
  }
  return keptRaw;
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
    expectSameAsPdfLib(base, { rounds: 3000, seed: 26, alphabet: '0123456789 /<>[]()#%.+-R\n\rabc', maxEdits: 5 });
  });

  it('reads the strings of an information dictionary as pdf-lib does, over thousands of damaged variants', () => {
    const base =
      '<< /Producer <FEFF0070006400660020\n0041> /Title (Deed of trust) /CreationDate (D:20260314150000Z) /Empty () /Odd <4G 41\r> /Latin (\xe9\xff) >>';
    expectSameAsPdfLib(base, { rounds: 3000, seed: 58, alphabet: '0123456789ABCDEF <>()\\/\n\r\xe9', maxEdits: 5 });
    const { actual } = parseBoth('[ (caf\xe9) <00ff> ]');
    expect(actual.toString()).toBe('[ (caf\xe9) <00ff> ]');
    // From a view into a larger buffer, as the parser reads a file's objects.
    const view = bytes('(skip) [ (caf\xe9) <00ff> ]').subarray(7);
    expect(QuickObjectParser.forBytes(view, PDFContext.create()).parseObject().toString()).toBe('[ (caf\xe9) <00ff> ]');
  });

  it('keeps the dictionaries of a /Resources written in place as their bytes until something reads them (decision 068)', () => {
    const fonts = Array.from({ length: 12 }, (_, index) => `/F${index} ${index + 10} 0 R`).join('\n');
    const text = `<< /Type /Page /Resources << /Font << ${fonts} >> /XObject << >> /ProcSet [ /PDF /Text ] >> /Contents 6 0 R >>`;
    const page = QuickObjectParser.forBytes(bytes(text), PDFContext.create()).parseObject() as PDFDict;
    const resources = page.lookup(PDFName.of('Resources'), PDFDict);
    const font = resources.get(PDFName.of('Font'));
    expect(font).toBeInstanceOf(RawDict);
    expect(isUnreadRawDict(font as PDFObject)).toBe(true);
    // Small ones are parsed at once: read later, they would cost more than they save.
    expect(resources.get(PDFName.of('XObject'))).not.toBeInstanceOf(RawDict);
    // Written as the bytes it was read from.
    expect(page.toString()).toContain(`/Font << ${fonts} >>`);
    // Read when asked, as pdf-lib reads it.
    expect((font as PDFDict).get(PDFName.of('F3'))).toBe(PDFRef.of(13, 0));
    expect(isUnreadRawDict(font as PDFObject)).toBe(false);
    expect(page.toString()).toBe(parseBoth(text).expected.toString());
    // A dictionary anywhere else is parsed at once.
    const elsewhere = QuickObjectParser.forBytes(bytes(`<< /Other << /Font << ${fonts} >> >> >>`), PDFContext.create()).parseObject() as PDFDict;
    expect(elsewhere.lookup(PDFName.of('Other'), PDFDict).get(PDFName.of('Font'))).not.toBeInstanceOf(RawDict);
  });

  it('reads every kind of value in a resource dictionary kept as bytes as pdf-lib does, over thousands of damaged variants', () => {
    const base =
      '<< /Type /Page /Resources << /Font << /F1 4 0 R /F#232 5 0 R /F3 6 0 R /F4 7 0 R /F5 8 0 R /F6 9 0 R /F7 10 0 R /F8 11 0 R /F9 12 0 R /F10 13 0 R >> ' +
      '/ExtGState << /G0 << /CA 0.5 /ca .5 /BM /Normal /D [ [ 3 2 ] 0 ] /SMask /None /TR 12 0 R >> /G1 << /LW -1.5 /T true /F false /N null /ML 10. >> >> ' +
      '/Properties << /P0 << /Name (a (b) \\) c) /H <41 42> %note\n /R 7 0 R /A [ 1 2 R 3 4 5 R 6 ] /Title (Open RON properties) /Lang (en-US) >> >> >> /Contents 6 0 R >>';
    const keptRaw = expectSameAsPdfLib(base, { rounds: 4000, seed: 68, alphabet: '0123456789 /<>[]()#%.+-R\n\rabcst\\', maxEdits: 3, from: 70, to: 20 });
    // Hundreds of variants kept a dictionary as bytes (the rest were damaged where it stands): the comparison above covered that path.
    expect(keptRaw).toBeGreaterThan(500);
  });

  it('reads each dictionary once when streams are nested in dictionaries (found by attack: each level read its children twice, 2^k reads)', () => {
    const depth = 22;
    let text = '<< >>stream\nendstream';
    for (let level = 0; level < depth; level += 1) text = `<< /K ${text} >>stream\nendstream`;
    let reads = 0;
    const parseDict = Object.getOwnPropertyDescriptor(QuickObjectParser.prototype, 'parseDict')?.value as () => PDFDict;
    const counting = function (this: QuickObjectParser) {
      reads += 1;
      return parseDict.call(this);
    };
    Object.defineProperty(QuickObjectParser.prototype, 'parseDict', { value: counting, configurable: true, writable: true });
    try {
      const { expected, actual } = parseBoth(text);
      expect(actual.constructor).toBe(expected.constructor);
      expect(actual.toString()).toBe(expected.toString());
    } finally {
      Object.defineProperty(QuickObjectParser.prototype, 'parseDict', { value: parseDict, configurable: true, writable: true });
    }
    expect(reads).toBeLessThanOrEqual(depth + 1);
  });

  it('parses a resource dictionary followed by "stream" as the stream pdf-lib makes of it, not as bytes (found by attack)', () => {
    const entries = Array.from({ length: 12 }, (_, index) => `/P${index} ${index + 10} 0 R`).join(' ');
    const text = `<< /Type /Page /Resources << /Properties << ${entries} >>stream\nabc\nendstream /Font << /F1 4 0 R >> >> >>`;
    const { expected, actual } = parseBoth(text);
    expect(unreadDicts(actual)).toEqual([]);
    expect(actual.toString()).toBe(expected.toString());
    expect((actual as PDFDict).lookup(PDFName.of('Resources'), PDFDict).get(PDFName.of('Properties'))).toBeInstanceOf(PDFRawStream);
  });

  it('finds the end of a dictionary only where pdf-lib would, and gives up on anything else', () => {
    const end = (text: string) => findDictEnd(bytes(text), 0, text.length);
    expect(end('<< /A 1 0 R /B (x>>y) /C <3e3e> >> tail')).toBe('<< /A 1 0 R /B (x>>y) /C <3e3e> >>'.length);
    expect(end('<< /A [ << /B 1 >> ] >>')).toBe(23);
    for (const broken of [
      '<< /A 1 ',
      '<< /A >>',
      '<< /A ) >>',
      '<< 1 2 >>',
      '<< /A 1 2 >>',
      '<< /A {1} >>',
      '<< /A (open >>',
      '<< /A 1.2.3 >>',
      '<< /A +-1 >>',
      '<< /A 1 />>',
      '<< /A << >> stream >>',
    ])
      expect(end(broken), broken).toBe(-1);
    // Nesting deeper than it follows: parsed as usual instead.
    expect(end(`<< /A ${'['.repeat(40)}${']'.repeat(40)} >>`)).toBe(-1);
  });

  it('finds the end of a flat dictionary by its regular expression exactly where the walk finds it, over thousands of generated and damaged ones', () => {
    // A seeded generator: the same dictionaries on every run.
    let seed = 0x2f5a17;
    const random = (below: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % below;
    };
    const pick = <T>(items: T[]): T => items[random(items.length)] as T;
    const blanks = [' ', ' ', ' ', '\n', '\r\n', '\t', '\f', '\0', '', '  ', '%c\n'];
    const nameCharacters = 'AbcF0123456789_.-+*,:;!?@~#()<>[]{}/%';
    const name = () => {
      const length = pick([1, 2, 3, 5, 8, 63, 64, 65, 0]);
      let text = '/';
      for (let index = 0; index < length; index += 1) text += random(8) === 0 ? pick([...nameCharacters]) : pick([...'AbcF01_-']);
      return text;
    };
    const value = () =>
      pick([
        () => `${random(1000)}${pick(blanks)}${random(3)}${pick(blanks)}R`,
        () => `${random(1000)} 0 R`,
        () => `${'9'.repeat(pick([15, 16]))} 0 R`,
        name,
        () => `${random(100)}`,
        () => `${random(10)} ${random(10)}`,
        () => '(x>>y)',
        () => '<< /A 1 0 R >>',
        () => '[1 0 R]',
        () => 'true',
        () => '12 0 Rx',
        () => '12 0R',
      ])();
    let flatFound = 0;
    for (let round = 0; round < 10_000; round += 1) {
      const entries = Array.from(
        { length: random(12) },
        () => `${pick(blanks)}${random(3) === 0 ? name() : `/F${random(99)}`} ${random(5) === 0 ? value() : `${random(900) + 1} 0 R`}`,
      );
      let text = `<<${entries.join('')}${pick(blanks)}>>${pick(['', ' tail', 'stream', '>', '/X'])}`;
      // Damage: a byte changed, dropped or added here and there.
      for (let damage = random(2) === 0 ? random(3) : 0; damage > 0; damage -= 1) {
        const at = random(text.length);
        const byte = pick([' ', '>', '<', '/', 'R', '0', '%', '(', '\n', '#']);
        text = pick([
          () => text.slice(0, at) + byte + text.slice(at + 1),
          () => text.slice(0, at) + text.slice(at + 1),
          () => text.slice(0, at) + byte + text.slice(at),
        ])();
      }
      const data = bytes(`${pick(['', '  ', '1 0 obj '])}${text}`);
      const start = data.indexOf(0x3c);
      if (start === -1) continue;
      const flat = findFlatDictEnd(data, start, data.length);
      if (flat === -1) continue;
      flatFound += 1;
      expect(flat, Buffer.from(data).toString('latin1')).toBe(walkDictEnd(data, start, data.length));
    }
    // Most generated dictionaries are flat ones: the comparison is not empty.
    expect(flatFound).toBeGreaterThan(1000);
  });

  it('reads the fonts of a page as pdf-lib writes them by the flat reading, and a flat dictionary longer than its window by the walk', () => {
    const fonts = `<< ${Array.from({ length: 46 }, (_, index) => `/F-${7_000_000_000 + index} 5 0 R`).join(' ')} >>`;
    expect(findFlatDictEnd(bytes(fonts), 0, fonts.length)).toBe(fonts.length);
    const long = `<< ${Array.from({ length: 600 }, (_, index) => `/F${index} ${index + 1} 0 R`).join(' ')} >>`;
    expect(long.length).toBeGreaterThan(4096);
    expect(findFlatDictEnd(bytes(long), 0, long.length)).toBe(-1);
    expect(findDictEnd(bytes(long), 0, long.length)).toBe(long.length);
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
