import {
  PDFHexString,
  PDFName,
  PDFOperator,
  rgb,
  StandardFonts,
  type PDFDocument,
  type PDFFont,
  type PDFDict,
  type PDFOperatorNames,
  type PDFRef,
  type PDFPage,
  type RGB,
} from 'pdf-lib';
import { randomBytes } from 'node:crypto';
import bidiFactory from 'bidi-js';
import { faceHas, findFaceForAll, formatCodePoint, getFallbackFont, hasFallbackFace, isFallbackFont } from './pdf-fonts.ts';

/**
 * Text on the notarized output's pages: what a standard (WinAnsi) font can encode, measured,
 * wrapped and drawn. The standard fonts' metrics never change, so each character's class, width,
 * kerning and code are looked up once per process (pdf-lib re-encodes the whole string
 * for every measurement, and its drawText adds a new font resource to the page on every call).
 * Widths are the same numbers font.widthOfTextAtSize gives. Text outside Windows-1252 is printed
 * with the embedded Noto faces of pdf-fonts.ts, a run at a time, in visual (bidi) order.
 */

export const ink = rgb(0.1, 0.1, 0.12);

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  italic: PDFFont;
  serif: PDFFont;
  serifBold: PDFFont;
  mono: PDFFont;
}

/** The six standard fonts the certificate, audit and seal use, embedded in a document. */
export function embedFonts(document: PDFDocument): Fonts {
  return {
    regular: document.embedStandardFont(StandardFonts.Helvetica),
    bold: document.embedStandardFont(StandardFonts.HelveticaBold),
    italic: document.embedStandardFont(StandardFonts.TimesRomanItalic),
    serif: document.embedStandardFont(StandardFonts.TimesRoman),
    serifBold: document.embedStandardFont(StandardFonts.TimesRomanBold),
    mono: document.embedStandardFont(StandardFonts.Courier),
  };
}

const unknown = -1;
const keep = 1;
const blank = 2;
const replaced = 3;
const fallback = 4;

/** One standard font's tables, indexed by UTF-16 code unit (what the font can encode is all in the BMP). */
interface FontTables {
  /** unknown, keep, blank (printed as a space), replaced (no font has it: printed as its code point) or fallback (printed by an embedded face). */
  classes: Int8Array;
  /** Glyph widths in 1/1000 em; NaN until first asked. */
  widths: Float64Array;
  /**
   * The advance in 1/1000 em of a Latin-1 character after another: the right one's width plus the
   * pair's kerning, at left * 256 + right; NaN until first asked. Measuring a line reads one entry a
   * character instead of two tables.
   */
  latinAdvance: Float64Array;
  /** Pair kerning in 1/1000 em of other pairs, keyed left * 65536 + right. */
  kerning: Map<number, number>;
  /** The glyph's code as two hex digits. */
  codes: Map<number, string>;
  supported: Set<number>;
  /** Every printable ASCII character is the font's own, encoded as its ASCII code (WinAnsi): such text needs no look-up per character. */
  isAsciiVerbatim: boolean;
}

const printableAscii = /^[\x20-\x7e]*$/;

/** Whether the font keeps every printable ASCII character and encodes it as its own code. */
function isAsciiVerbatim(font: PDFFont, supported: Set<number>): boolean {
  for (let code = 0x20; code <= 0x7e; code += 1) {
    if (!supported.has(code)) return false;
    if (font.encodeText(String.fromCharCode(code)).asString() !== code.toString(16).toUpperCase().padStart(2, '0')) return false;
  }
  return true;
}

const standardFontNames = new Set<string>(Object.values(StandardFonts));
const tablesByFont = new Map<string, FontTables>();

/** The font's tables, or null for a font that is not one of the 14 standard fonts (measured the slow way). */
function getTables(font: PDFFont): FontTables | null {
  if (!standardFontNames.has(font.name)) return null;
  let tables = tablesByFont.get(font.name);
  if (!tables) {
    const supported = new Set(font.getCharacterSet());
    tables = {
      classes: new Int8Array(0x10000).fill(unknown),
      widths: new Float64Array(0x10000).fill(Number.NaN),
      latinAdvance: new Float64Array(0x10000).fill(Number.NaN),
      kerning: new Map(),
      codes: new Map(),
      supported,
      isAsciiVerbatim: isAsciiVerbatim(font, supported),
    };
    tablesByFont.set(font.name, tables);
  }
  return tables;
}

function classify(supported: Set<number>, character: string): number {
  const codePoint = character.codePointAt(0) ?? 0;
  if (character === '\t' || (codePoint < 0x20 && codePoint !== 0x0a) || (codePoint >= 0x7f && codePoint < 0xa0) || /\s/u.test(character)) return blank;
  if (supported.has(codePoint)) return keep;
  return hasFallbackFace(codePoint) ? fallback : replaced;
}

/**
 * Text as it will be printed: control characters and other white space become spaces ('\n' is
 * kept); what neither the font nor an embedded face has (refused before sealing, so only in text
 * stored before that rule) is written as its code point, "[U+1F3E0]", never as '?' or a box.
 */
export function sanitizeForFont(font: PDFFont, text: string): string {
  const tables = getTables(font);
  if (tables?.isAsciiVerbatim && printableAscii.test(text)) return text;
  const supported = tables?.supported ?? new Set(font.getCharacterSet());
  let result = '';
  for (const character of text.normalize('NFC').replace(/\r\n?/g, '\n')) {
    if (character === '\n') {
      result += '\n';
      continue;
    }
    let kind: number;
    if (tables && character.length === 1) {
      const code = character.charCodeAt(0);
      kind = tables.classes[code] ?? unknown;
      if (kind === unknown) {
        kind = classify(supported, character);
        tables.classes[code] = kind;
      }
    } else kind = classify(supported, character);
    result += kind === keep || kind === fallback ? character : kind === blank ? ' ' : `[${formatCodePoint(character)}]`;
  }
  return result;
}

const bidi = bidiFactory();
/** Hebrew, Arabic, Syriac, Thaana, NKo... and their presentation forms: a line with any is ordered by the bidi algorithm. */
const rightToLeft = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\ud802[\udc00-\udfff]|\ud83a[\udc00-\udfff]/;
/** Text fontkit shapes and orders itself (a right-to-left script, or Devanagari): drawn as one piece, never a character at a time. */
const shapedScript = /[\u0590-\u08ff\u0900-\u097f\ufb1d-\ufdff\ufe70-\ufefc]/;

/** Whether some character of `text` (sanitized) is not the standard font's own. */
function needsFallback(font: PDFFont, text: string): boolean {
  const tables = getTables(font);
  if (!tables || isFallbackFont(font)) return false;
  if (tables.isAsciiVerbatim && printableAscii.test(text)) return false;
  for (const character of text) if (!tables.supported.has(character.codePointAt(0) ?? 0)) return true;
  return false;
}

/** Whether the standard font prints all of `text` (sanitized) by itself, left to right. */
export function isStandardText(font: PDFFont, text: string): boolean {
  return !needsFallback(font, text) && !rightToLeft.test(text);
}

/** A piece of a line in one font, in the order it is drawn (left to right). */
export interface TextRun {
  font: PDFFont;
  text: string;
  /** fontkit shapes and orders it (a right-to-left or Devanagari run of an embedded face): never split. */
  isShaped: boolean;
}

const boldFont = /Bold/;

/** The font of each code point: the standard font where it has the character, else the embedded face of its word. */
function assignFonts(font: PDFFont, characters: string[]): PDFFont[] {
  const tables = getTables(font);
  const supported = tables?.supported ?? new Set<number>();
  const weight = boldFont.test(font.name) ? 'bold' : 'regular';
  const fonts: PDFFont[] = new Array<PDFFont>(characters.length);
  let index = 0;
  while (index < characters.length) {
    const isSpace = characters[index] === ' ';
    let end = index;
    while (end < characters.length && (characters[end] === ' ') === isSpace) end += 1;
    const codePoints = characters.slice(index, end).map((character) => character.codePointAt(0) ?? 0);
    if (isSpace) {
      // A space goes with the word before it when its face has one (an Arabic phrase stays one run).
      const previous = index > 0 ? fonts[index - 1] : undefined;
      for (let at = index; at < end; at += 1) fonts[at] = previous && isFallbackFont(previous) ? previous : font;
    } else if (codePoints.every((codePoint) => supported.has(codePoint))) {
      for (let at = index; at < end; at += 1) fonts[at] = font;
    } else {
      // The whole word in one face when one has all of it (no change of font inside "Nguyễn").
      const wordFace = findFaceForAll(codePoints);
      codePoints.forEach((codePoint, offset) => {
        const face = wordFace >= 0 && faceHas(wordFace, codePoint) ? wordFace : supported.has(codePoint) ? -1 : findFaceForAll([codePoint]);
        fonts[index + offset] = face >= 0 && font.doc ? getFallbackFont(font.doc, face, weight) : font;
      });
    }
    index = end;
  }
  return fonts;
}

/** The characters of a right-to-left run as drawn: reversed, brackets mirrored. */
function reverseRun(characters: string[]): string {
  return characters
    .slice()
    .reverse()
    .map((character) => bidi.getMirroredCharacter(character) ?? character)
    .join('');
}

/**
 * One line (sanitized, no line break) as runs of one font each, in the order they are drawn: the
 * bidi algorithm (UAX 9, paragraph left to right) orders a line holding right-to-left text; a
 * right-to-left run of an embedded face is passed in reading order, as fontkit shapes and reverses
 * it; any other right-to-left run (spaces, punctuation in a standard font) is reversed here.
 */
export function layoutRuns(font: PDFFont, text: string): TextRun[] {
  const hasRightToLeft = rightToLeft.test(text);
  if (!hasRightToLeft && !needsFallback(font, text)) return [{ font, text, isShaped: false }];
  const characters = Array.from(text);
  const fonts = assignFonts(font, characters);
  let levels = characters.map(() => 0);
  if (hasRightToLeft) {
    const resolved = bidi.getEmbeddingLevels(text, 'ltr').levels;
    let unit = 0;
    levels = characters.map((character) => {
      const level = resolved[unit] ?? 0;
      unit += character.length;
      return level;
    });
  }
  const runs: Array<{ font: PDFFont; level: number; characters: string[] }> = [];
  characters.forEach((character, index) => {
    const runFont = fonts[index] ?? font;
    const level = levels[index] ?? 0;
    const last = runs.at(-1);
    if (last && last.font === runFont && last.level === level) last.characters.push(character);
    else runs.push({ font: runFont, level, characters: [character] });
  });
  // UAX 9 rule L2: from the highest level down to the lowest odd one, reverse every sequence of runs at that level or higher.
  const highest = Math.max(...runs.map((run) => run.level));
  const lowestOdd = Math.min(...runs.map((run) => run.level).filter((level) => level % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level -= 1) {
    let start = 0;
    while (start < runs.length) {
      if ((runs[start]?.level ?? 0) < level) {
        start += 1;
        continue;
      }
      let end = start;
      while (end < runs.length && (runs[end]?.level ?? 0) >= level) end += 1;
      runs.splice(start, end - start, ...runs.slice(start, end).reverse());
      start = end;
    }
  }
  return runs.map((run) => {
    const runText = run.characters.join('');
    const isShaped = isFallbackFont(run.font) && shapedScript.test(runText);
    const isReversedByFontkit = isShaped && rightToLeft.test(runText);
    return { font: run.font, text: run.level % 2 === 1 && !isReversedByFontkit ? reverseRun(run.characters) : runText, isShaped };
  });
}

function glyphWidth(font: PDFFont, tables: FontTables, code: number): number {
  let width = tables.widths[code] ?? Number.NaN;
  if (Number.isNaN(width)) {
    width = font.widthOfTextAtSize(String.fromCharCode(code), 1000);
    tables.widths[code] = width;
  }
  return width;
}

function readPairKerning(font: PDFFont, tables: FontTables, left: number, right: number): number {
  return font.widthOfTextAtSize(String.fromCharCode(left, right), 1000) - glyphWidth(font, tables, left) - glyphWidth(font, tables, right);
}

/** The right character's width plus the pair's kerning, for two Latin-1 characters. */
function latinAdvance(font: PDFFont, tables: FontTables, left: number, right: number): number {
  const index = left * 0x100 + right;
  let advance = tables.latinAdvance[index] ?? Number.NaN;
  if (Number.isNaN(advance)) {
    advance = glyphWidth(font, tables, right) + readPairKerning(font, tables, left, right);
    tables.latinAdvance[index] = advance;
  }
  return advance;
}

function pairKerning(font: PDFFont, tables: FontTables, left: number, right: number): number {
  // Whole numbers of 1/1000 em: the difference is the kerning exactly.
  if (left < 0x100 && right < 0x100) return latinAdvance(font, tables, left, right) - glyphWidth(font, tables, right);
  const key = left * 0x10000 + right;
  let kern = tables.kerning.get(key);
  if (kern === undefined) {
    kern = readPairKerning(font, tables, left, right);
    tables.kerning.set(key, kern);
  }
  return kern;
}

const hasSurrogate = /[\ud800-\udfff]/;

/** Width in 1/1000 em (glyph widths plus pair kerning: whole numbers, so summed exactly); null when the tables cannot say. */
function measureUnits(font: PDFFont, tables: FontTables | null, text: string): number | null {
  if (!tables || hasSurrogate.test(text)) return null;
  let total = 0;
  let previous = -1;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (previous >= 0 && previous < 0x100 && code < 0x100) total += latinAdvance(font, tables, previous, code);
    else {
      total += glyphWidth(font, tables, code);
      if (previous >= 0) total += pairKerning(font, tables, previous, code);
    }
    previous = code;
  }
  return total;
}

/** font.widthOfTextAtSize(text, size), from the font's tables. */
/** Widths (1/1000 em) of the runs an embedded face measured in this document: fontkit lays a run out again on every measurement. */
const fallbackWidths = new WeakMap<PDFFont, Map<string, number>>();

function measureFallback(font: PDFFont, text: string, size: number): number {
  let widths = fallbackWidths.get(font);
  if (!widths) {
    widths = new Map();
    fallbackWidths.set(font, widths);
  }
  let units = widths.get(text);
  if (units === undefined) {
    units = font.widthOfTextAtSize(text, 1000);
    widths.set(text, units);
  }
  return units * (size / 1000);
}

export function measureText(font: PDFFont, text: string, size: number): number {
  if (isFallbackFont(font)) return measureFallback(font, text, size);
  if (needsFallback(font, text) || rightToLeft.test(text)) return layoutRuns(font, text).reduce((sum, run) => sum + measureText(run.font, run.text, size), 0);
  const units = measureUnits(font, getTables(font), text);
  return units === null ? font.widthOfTextAtSize(text, size) : units * (size / 1000);
}

/** Lines no wider than `maxWidth`; words longer than a line are cut. `text` must be sanitized. */
export function wrapText(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  if (needsFallback(font, text)) return wrapMeasured(text, font, size, maxWidth);
  const tables = getTables(font);
  const scale = size / 1000;
  // Most cells and sentences fit on one line as they are (single spaces, none at either end): measured once, whole.
  if (tables && !text.includes('\n') && !text.includes('  ') && text[0] !== ' ' && !text.endsWith(' ')) {
    const units = measureUnits(font, tables, text);
    if (units !== null && units * scale <= maxWidth) return [text];
  }
  const space = 0x20;
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    // The line's width in 1/1000 em, so a candidate is the line, a space and the word, kerned where they meet.
    let lineUnits: number | null = 0;
    for (const word of paragraph.split(/ +/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      const wordUnits = measureUnits(font, tables, word);
      let candidateUnits: number | null = null;
      if (tables && wordUnits !== null && lineUnits !== null) {
        candidateUnits = line
          ? lineUnits +
            pairKerning(font, tables, line.charCodeAt(line.length - 1), space) +
            glyphWidth(font, tables, space) +
            pairKerning(font, tables, space, word.charCodeAt(0)) +
            wordUnits
          : wordUnits;
      }
      const candidateWidth = candidateUnits === null ? font.widthOfTextAtSize(candidate, size) : candidateUnits * scale;
      if (candidateWidth <= maxWidth) {
        line = candidate;
        lineUnits = candidateUnits;
        continue;
      }
      if (line) lines.push(line);
      let rest = word;
      while (measureText(font, rest, size) > maxWidth && rest.length > 1) {
        let cut = rest.length - 1;
        while (cut > 1 && measureText(font, rest.slice(0, cut), size) > maxWidth) cut -= 1;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
      lineUnits = measureUnits(font, tables, rest);
    }
    lines.push(line);
  }
  return lines;
}

/** wrapText for text with characters of the embedded faces: each candidate measured run by run; a word longer than a line is cut between characters. */
function wrapMeasured(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  const spaceWidth = measureText(font, ' ', size);
  for (const paragraph of text.split('\n')) {
    let line = '';
    // A line's width is its words' and spaces' (no kerning across a space), each word measured once.
    let lineWidth = 0;
    for (const word of paragraph.split(/ +/).filter(Boolean)) {
      const wordWidth = measureText(font, word, size);
      const candidateWidth = line ? lineWidth + spaceWidth + wordWidth : wordWidth;
      if (candidateWidth <= maxWidth) {
        line = line ? `${line} ${word}` : word;
        lineWidth = candidateWidth;
        continue;
      }
      if (line) lines.push(line);
      let rest = Array.from(word);
      while (rest.length > 1 && measureText(font, rest.join(''), size) > maxWidth) {
        let cut = rest.length - 1;
        while (cut > 1 && measureText(font, rest.slice(0, cut).join(''), size) > maxWidth) cut -= 1;
        lines.push(rest.slice(0, cut).join(''));
        rest = rest.slice(cut);
      }
      line = rest.join('');
      lineWidth = measureText(font, line, size);
    }
    lines.push(line);
  }
  return lines;
}

/** What this module and pdf-assets.ts add to a page's resources: its Font and XObject dictionaries, and the names given so far. */
interface PageResources {
  font: PDFDict;
  xObject: PDFDict;
  fontKeys: Map<PDFFont, PDFName>;
  xObjectKeys: Map<PDFRef, string>;
}

/**
 * Kept on the page object itself, not in a module-level WeakMap: the value reaches its own key (a
 * font's document lists its pages), and V8's young-generation collector keeps such an entry's value
 * alive until a full collection. Every page drawn on then carried its whole document into the old
 * generation, about 2 MB a collection in a loop of seals (decision 067).
 */
const pageResourcesKey: unique symbol = Symbol('open-ron.page-resources');
type WithResources = PDFPage & { [pageResourcesKey]?: PageResources };

/**
 * The page's Font and XObject resource dictionaries, normalized by pdf-lib once per page (its
 * newFontDictionary and newXObject normalize and look the page's entries up twice on every call).
 */
export function getPageResources(page: PDFPage): PageResources {
  let resources = (page as WithResources)[pageResourcesKey];
  if (!resources) {
    const { Font, XObject } = page.node.normalizedEntries();
    resources = { font: Font, xObject: XObject, fontKeys: new Map(), xObjectKeys: new Map() };
    (page as WithResources)[pageResourcesKey] = resources;
  }
  return resources;
}

/** Random bytes drawn 1 KB at a time: a call into OpenSSL for every name would cost more than drawing with it. */
let entropy = Buffer.alloc(0);
let entropyUsed = 0;

/**
 * A new name for something the seal adds to a page's resources: the prefix and 64 random bits, new
 * on every seal, so no original can guess it. A page whose own content draws a name it does not
 * define (`/X1 Do`) must never come to draw the signer's initials there once the seal defines that
 * name (found by attack: pdf-lib's uniqueKey draws its suffixes from a fixed seed, and counting
 * X1, X2... was as easy to guess). Not one of pdf-lib's pooled PDFNames, which it keeps for the life
 * of the process (decision 066): the seal keeps the object, and nothing looks it up by its text.
 */
export function newResourceName(prefix: string): PDFName {
  if (entropyUsed + 8 > entropy.length) {
    entropy = randomBytes(1024);
    entropyUsed = 0;
  }
  entropyUsed += 8;
  const name = Object.create(PDFName.prototype) as PDFName;
  (name as unknown as { encodedName: string }).encodedName =
    `/${prefix.replace(/[^A-Za-z0-9+_.-]/g, '')}${entropy.toString('hex', entropyUsed - 8, entropyUsed)}`;
  return name;
}

/** The page's resource name for each font, added once per page (pdf-lib's drawText adds one per call). */
function getFontKey(page: PDFPage, font: PDFFont): PDFName {
  const resources = getPageResources(page);
  let key = resources.fontKeys.get(font);
  if (!key) {
    key = newResourceName(`${font.name}-`);
    resources.font.set(key, font.ref);
    resources.fontKeys.set(font, key);
  }
  return key;
}

function encodeText(font: PDFFont, text: string): PDFHexString {
  const tables = getTables(font);
  if (!tables || hasSurrogate.test(text)) return font.encodeText(text);
  if (tables.isAsciiVerbatim && printableAscii.test(text)) return PDFHexString.of(Buffer.from(text, 'latin1').toString('hex').toUpperCase());
  let hex = '';
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    let glyph = tables.codes.get(code);
    if (glyph === undefined) {
      glyph = font.encodeText(text.charAt(index)).asString();
      tables.codes.set(code, glyph);
    }
    hex += glyph;
  }
  return PDFHexString.of(hex);
}

const literalEscapes = /[\\()]/g;

/**
 * The glyphs of `text` as a string operand of Tj: printable ASCII in a font that encodes it as
 * itself is written as a literal string, "(Signed by Sam)", half the bytes of the hex string
 * "<5369676E6564...>" and no encoding step; anything else as the hex string of its codes.
 */
function showableString(font: PDFFont, text: string): string {
  const tables = getTables(font);
  if (tables?.isAsciiVerbatim && printableAscii.test(text)) return `(${text.replace(literalEscapes, '\\$&')})`;
  return `<${encodeText(font, text).asString()}>`;
}

/** A number as a content stream writes it: four decimals are far below a device pixel, and never exponent notation. */
export function formatNumber(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}

/** The fill colour operator's text for each colour (colours are module constants). */
const colourOperators = new WeakMap<RGB, string>();

function getColourOperator(color: RGB): string {
  let operator = colourOperators.get(color);
  if (operator === undefined) {
    operator = `${formatNumber(color.red)} ${formatNumber(color.green)} ${formatNumber(color.blue)} rg`;
    colourOperators.set(color, operator);
  }
  return operator;
}

/** A straight line stroked from `start` to `end`, as page.drawLine draws it (solid, butt caps), as one operator. */
export function strokeLine(page: PDFPage, start: { x: number; y: number }, end: { x: number; y: number }, thickness: number, color: RGB = ink): void {
  const stroke = `${getColourOperator(color).slice(0, -2)}RG`;
  pushContent(
    page,
    `q ${stroke} ${formatNumber(thickness)} w ${formatNumber(start.x)} ${formatNumber(start.y)} m ${formatNumber(end.x)} ${formatNumber(end.y)} l S Q`,
  );
}

/**
 * Appends operators written as text to the page's content, as one operator object: pdf-lib writes
 * an operator's name as it is, so `text` (complete operators, such as "q 1 0 0 1 5 5 cm") is
 * written verbatim, without an object for each operator and number.
 */
export function pushContent(page: PDFPage, text: string): void {
  page.pushOperators(PDFOperator.of(text as PDFOperatorNames, noOperands));
}

/**
 * The operands of every operator pushContent writes: none, one shared list (pdf-lib only reads an
 * operator's operands). A list made for each was hundreds of arrays a seal, from one allocation
 * site V8 came to place straight in the old generation (decision 068).
 */
const noOperands: Parameters<typeof PDFOperator.of>[1] = Object.freeze([]) as unknown as Parameters<typeof PDFOperator.of>[1];

type LineOptions = { x: number; y: number; size: number; font: PDFFont; color?: RGB };

/**
 * One line of text with its baseline starting at (x, y), as page.drawText draws it (same glyphs,
 * same place), as content-stream text: "q BT colour font Tm <glyphs> Tj ET Q" (the font added to
 * the page's resources). Null for text pdf-lib's drawText would split into lines or clean.
 * `text` must be sanitized.
 */
export function formatLine(page: PDFPage, text: string, options: LineOptions): string | null {
  const line = formatLineInText(page, text, options, newTextState());
  return line === null ? null : `q BT ${line} ET Q`;
}

/** What pdf-lib's drawText splits a line at, or cleans. */
const lineBreaking = /[\t\n\v\f\r\b\u0085\u2028\u2029]/;

/** What a text object (BT ... ET) has set so far: the font and size of its last Tf and its fill colour. */
export interface TextState {
  font: string;
  size: number;
  colour: string;
}

/** A text object with nothing set yet: the first line sets its font and colour. */
export function newTextState(): TextState {
  return { font: '', size: Number.NaN, colour: '' };
}

/**
 * One line of text as formatLine draws it, for the inside of a text object that holds many lines
 * (one BT ... ET for a page's lines, not a q BT ... ET Q for each): only the colour and font that
 * differ from `state` are set, then the line's position and glyphs. Null where formatLine is null.
 * `text` must be sanitized.
 */
export function formatLineInText(page: PDFPage, text: string, options: LineOptions, state: TextState): string | null {
  const colour = getColourOperator(options.color ?? ink);
  const isVerbatim = getTables(options.font)?.isAsciiVerbatim === true && printableAscii.test(text);
  // The state changes only for a line that is written: null leaves it as it was.
  if (!isVerbatim && lineBreaking.test(text)) return null;
  let line = '';
  if (colour !== state.colour) {
    line = `${colour} `;
    state.colour = colour;
  }
  if (isVerbatim) {
    return `${line}${setTextFont(page, options.font, options.size, state)}1 0 0 1 ${formatNumber(options.x)} ${formatNumber(options.y)} Tm (${text.replace(literalEscapes, '\\$&')}) Tj`;
  }
  if (needsFallback(options.font, text) || rightToLeft.test(text)) {
    let x = options.x;
    for (const run of layoutRuns(options.font, text)) {
      line += `${setTextFont(page, run.font, options.size, state)}1 0 0 1 ${formatNumber(x)} ${formatNumber(options.y)} Tm <${encodeText(run.font, run.text).asString()}> Tj `;
      x += measureText(run.font, run.text, options.size);
    }
    return line.trimEnd();
  }
  return `${line}${setTextFont(page, options.font, options.size, state)}1 0 0 1 ${formatNumber(options.x)} ${formatNumber(options.y)} Tm ${showableString(options.font, text)} Tj`;
}

/**
 * The Tf operator (and a space) when the font or size differs from what the text object has set,
 * else nothing. A function of its own, not a closure made for every line: under tsx (keepNames) a
 * named closure costs a property definition each time it is made.
 */
function setTextFont(page: PDFPage, font: PDFFont, size: number, state: TextState): string {
  const key = getFontKey(page, font).asString();
  if (key === state.font && size === state.size) return '';
  state.font = key;
  state.size = size;
  return `${key} ${formatNumber(size)} Tf `;
}

/**
 * One line of text (formatLine), written as one operator instead of eight operator objects and
 * their numbers. `text` must be sanitized and hold no line break.
 */
export function drawLine(page: PDFPage, text: string, options: LineOptions): void {
  const line = formatLine(page, text, options);
  // What pdf-lib's drawText would split into lines or clean: left to it.
  if (line === null) page.drawText(text, { ...options, color: options.color ?? ink });
  else pushContent(page, line);
}

/** Draws text in a box (local coordinates), shrinking it until it fits; vertically centered. */
export function drawTextInBox(
  page: PDFPage,
  text: string,
  box: { x: number; y: number; width: number; height: number },
  font: PDFFont,
  options: { maxSize: number; minSize?: number; color?: RGB; align?: 'left' | 'center' },
) {
  const clean = sanitizeForFont(font, text).trim();
  if (!clean || box.width <= 0 || box.height <= 0) return;
  const minSize = options.minSize ?? 4;
  let size = Math.max(minSize, Math.min(options.maxSize, box.height * 0.72));
  let lines = wrapText(clean, font, size, box.width);
  while (lines.length * size * 1.15 > box.height && size > minSize) {
    size = Math.max(minSize, size - 0.5);
    lines = wrapText(clean, font, size, box.width);
  }
  const lineHeight = size * 1.15;
  const visible = lines.slice(0, Math.max(1, Math.floor(box.height / lineHeight)));
  const blockHeight = visible.length * lineHeight;
  let baseline = box.y + (box.height + blockHeight) / 2 - size * 0.9;
  for (const line of visible) {
    const width = measureText(font, line, size);
    const x = options.align === 'center' ? box.x + Math.max(0, (box.width - width) / 2) : box.x;
    drawLine(page, line, { x, y: baseline, size, font, color: options.color ?? ink });
    baseline -= lineHeight;
  }
}
