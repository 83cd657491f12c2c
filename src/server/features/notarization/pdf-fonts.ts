import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CustomFontSubsetEmbedder, PDFFont, type PDFDocument } from 'pdf-lib';
import { AppError } from '#server/lib/errors.ts';

/**
 * The fonts behind the standard ones: text a standard font cannot encode
 * (anything outside Windows-1252) is printed with a Noto face from npm that covers it, embedded as a
 * subset, and only into a document whose text needs it. The faces are read and parsed once per
 * process, the first time a character needs one. fontkit 2 (upstream) does the parsing, shaping and
 * subsetting: @pdf-lib/fontkit 1.1.1 writes broken subsets (TrueType loca offsets, CID-keyed CFF).
 */

const require = createRequire(import.meta.url);

/** The part of fontkit 2 used here (it ships no types). */
interface FontkitSubset {
  encode(): Uint8Array;
  encodeStream?: () => Readable;
}
interface FontkitFont {
  hasGlyphForCodePoint(codePoint: number): boolean;
  createSubset(): FontkitSubset;
  layout(text: string): unknown;
}
const fontkit = require('fontkit') as { create(data: Uint8Array): FontkitFont };

export type FontWeight = 'regular' | 'bold';

interface Face {
  name: string;
  packageName: string;
  files: Record<FontWeight, string>;
}

/** In the order they are tried: the first face that has a character prints it. */
const faces: Face[] = [
  // Latin (Vietnamese included), Greek, Cyrillic and Devanagari (Noto Sans 2.015 has all four, with the shaping tables).
  { name: 'Noto Sans', packageName: '@embedpdf/fonts-latin', files: { regular: 'fonts/NotoSans-Regular.ttf', bold: 'fonts/NotoSans-Bold.ttf' } },
  {
    name: 'Noto Sans Hebrew',
    packageName: '@embedpdf/fonts-hebrew',
    files: { regular: 'fonts/NotoSansHebrew-Regular.ttf', bold: 'fonts/NotoSansHebrew-Bold.ttf' },
  },
  {
    name: 'Noto Naskh Arabic',
    packageName: '@embedpdf/fonts-arabic',
    files: { regular: 'fonts/NotoNaskhArabic-Regular.ttf', bold: 'fonts/NotoNaskhArabic-Bold.ttf' },
  },
  // Chinese (GB2312 ideographs) and Japanese kana; Korean Hangul from the next.
  { name: 'Noto Sans SC', packageName: '@embedpdf/fonts-sc', files: { regular: 'fonts/NotoSansHans-Regular.otf', bold: 'fonts/NotoSansHans-Bold.otf' } },
  { name: 'Noto Sans KR', packageName: '@embedpdf/fonts-kr', files: { regular: 'fonts/NotoSansKR-Regular.otf', bold: 'fonts/NotoSansKR-Bold.otf' } },
];

/** The folder of an installed package (some export no subpath, so their files are found from the package's main file). */
function findPackageDirectory(packageName: string): string {
  let directory = path.dirname(require.resolve(packageName));
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`${packageName} has no package.json above its main file`);
    directory = parent;
  }
  return directory;
}

/** pdf-lib's subset embedder reads the subset as a stream (fontkit 1's API); fontkit 2 encodes it at once. */
function withEncodeStream(font: FontkitFont): FontkitFont {
  const createSubset = font.createSubset.bind(font);
  font.createSubset = () => {
    const subset = createSubset();
    subset.encodeStream = () => Readable.from([subset.encode()]);
    return subset;
  };
  return font;
}

const loaded = new Map<string, { bytes: Uint8Array; font: FontkitFont }>();

function loadFace(face: Face, weight: FontWeight): { bytes: Uint8Array; font: FontkitFont } {
  const key = `${face.name}:${weight}`;
  let entry = loaded.get(key);
  if (!entry) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(findPackageDirectory(face.packageName), face.files[weight])));
    entry = { bytes, font: withEncodeStream(fontkit.create(bytes)) };
    loaded.set(key, entry);
  }
  return entry;
}

/**
 * The face as one document sees it: the tables parsed once per process, but glyphs of its own.
 * fontkit keeps one glyph object per glyph id, with the code points of the text that first made it,
 * and the subset's ToUnicode map is written from them: a combining dot below printed on its own
 * in one document made the dot of every later "ị" read back as "ị" plus a second dot. A view per
 * document starts with no glyphs (its own `_glyphs` and layout engine over the shared tables, ~2 ms
 * against ~50 ms for parsing the face again); if fontkit ever lays its internals out differently,
 * the face is parsed again for the document instead.
 */
function viewForDocument(entry: { bytes: Uint8Array; font: FontkitFont }): FontkitFont {
  const shared = entry.font as FontkitFont & { _glyphs?: unknown };
  shared.layout(' ');
  const engine = Object.getOwnPropertyDescriptor(shared, '_layoutEngine')?.value as { constructor: new (font: FontkitFont) => unknown } | undefined;
  if (!engine || typeof shared._glyphs !== 'object') return withEncodeStream(fontkit.create(entry.bytes));
  const view = Object.create(shared) as FontkitFont;
  Object.defineProperty(view, '_glyphs', { value: {}, writable: true });
  Object.defineProperty(view, '_layoutEngine', { value: new engine.constructor(view) });
  return view;
}

/** Each code point's face (its index in `faces`), or -1 when none has it. */
const faceOfCodePoint = new Map<number, number>();

function findFaceIndex(codePoint: number): number {
  let index = faceOfCodePoint.get(codePoint);
  if (index === undefined) {
    index = faces.findIndex((face) => loadFace(face, 'regular').font.hasGlyphForCodePoint(codePoint));
    faceOfCodePoint.set(codePoint, index);
  }
  return index;
}

/** Whether some embedded face has the character. */
export function hasFallbackFace(codePoint: number): boolean {
  return findFaceIndex(codePoint) >= 0;
}

/** The first face that has every one of the code points, or else the face of the first of them that one has; -1 for none. */
export function findFaceForAll(codePoints: number[]): number {
  const candidates = codePoints.map(findFaceIndex);
  if (candidates.some((index) => index < 0)) return candidates.find((index) => index >= 0) ?? -1;
  for (let index = 0; index < faces.length; index += 1) {
    const face = faces[index] as Face;
    if (codePoints.every((codePoint) => loadFace(face, 'regular').font.hasGlyphForCodePoint(codePoint))) return index;
  }
  return candidates[0] ?? -1;
}

/** Whether a face at `faceIndex` has the code point. */
export function faceHas(faceIndex: number, codePoint: number): boolean {
  const face = faces[faceIndex];
  return face ? loadFace(face, 'regular').font.hasGlyphForCodePoint(codePoint) : false;
}

/**
 * The fallback fonts created in each document, by face and weight: kept on the document itself, as
 * a page's resources are (decision 067). In a module-level WeakMap the value (fonts, each leading to
 * its document) would reach its key, which V8's young-generation collector keeps alive.
 */
const documentFontsKey: unique symbol = Symbol('open-ron.fallback-fonts');
type WithFallbackFonts = PDFDocument & { [documentFontsKey]?: Map<string, PDFFont> };
const fallbackFonts = new WeakSet<PDFFont>();

type EmbedderConstructor = new (font: FontkitFont, fontData: Uint8Array) => CustomFontSubsetEmbedder;

/**
 * The face in the document's fonts, created the first time the document's text needs it: a subset
 * (only the glyphs drawn), written by embedFallbackFonts before the document is saved. The
 * embedder is what pdf-lib's embedFont({ subset: true }) builds, given the font parsed once per
 * process (seen through viewForDocument) instead of parsing its bytes again for every document.
 */
export function getFallbackFont(document: PDFDocument, faceIndex: number, weight: FontWeight): PDFFont {
  const face = faces[faceIndex];
  if (!face) throw new Error(`no fallback face ${faceIndex}`);
  let fonts = (document as WithFallbackFonts)[documentFontsKey];
  if (!fonts) {
    fonts = new Map();
    (document as WithFallbackFonts)[documentFontsKey] = fonts;
  }
  const key = `${faceIndex}:${weight}`;
  let font = fonts.get(key);
  if (!font) {
    const entry = loadFace(face, weight);
    const embedder = new (CustomFontSubsetEmbedder as unknown as EmbedderConstructor)(viewForDocument(entry), entry.bytes);
    font = PDFFont.of(document.context.nextRef(), document, embedder);
    fonts.set(key, font);
    fallbackFonts.add(font);
  }
  return font;
}

/** Whether the font is one of the embedded Noto faces (its text is shaped and ordered by fontkit). */
export function isFallbackFont(font: PDFFont): boolean {
  return fallbackFonts.has(font);
}

/** Writes the subsets of the fallback fonts the document's text used. Call once, after the last text is drawn and before saving. */
export async function embedFallbackFonts(document: PDFDocument): Promise<void> {
  for (const font of (document as WithFallbackFonts)[documentFontsKey]?.values() ?? []) await font.embed();
}

/** Windows-1252's printable characters: what the standard fonts print. */
const windows1252 = new Set<number>([
  ...Array.from({ length: 0x7f - 0x20 }, (_, index) => 0x20 + index),
  ...Array.from({ length: 0x100 - 0xa0 }, (_, index) => 0xa0 + index),
  ...[...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'].map((character) => character.codePointAt(0) ?? 0),
]);

const printableAscii = /^[\x20-\x7e]*$/;

/**
 * The characters of `text` that neither a standard font nor any embedded face can print (an emoji,
 * a private-use character...), each once. White space and control characters are printed as spaces
 * and are not listed.
 */
export function findUnprintableCharacters(text: string): string[] {
  if (printableAscii.test(text)) return [];
  const found = new Set<string>();
  for (const character of text.normalize('NFC')) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0) || /\s/u.test(character)) continue;
    if (windows1252.has(codePoint) || hasFallbackFace(codePoint)) continue;
    found.add(character);
  }
  return [...found];
}

/** "🏠, U+1F3E0; ✓, U+2713": each character and its code point, for a sentence. */
export function describeCharacters(characters: string[]): string {
  return characters.map((character) => `${character}, ${formatCodePoint(character)}`).join('; ');
}

/** "U+1F3E0" */
export function formatCodePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The sentence for text no font of a notarized record prints, where it is typed. */
export function describeUnprintableInput(texts: Array<{ label: string; text: string | null | undefined }>): string | null {
  const sentence = describeUnprintableText(texts, 'a notarized record');
  return sentence ? `${sentence} Write it without that character.` : null;
}

/**
 * Refuses, where it is typed, text that would be printed on a notarized record and that no font of
 * the record can print: a name, a title or a reason that gets in cannot be corrected once it is on
 * the record, so it is never accepted (400 unprintable_text, with the character and its code point).
 */
export function assertPrintable(texts: Array<{ label: string; text: string | null | undefined }>): void {
  const sentence = describeUnprintableInput(texts);
  if (sentence) throw new AppError(400, 'unprintable_text', sentence);
}

/**
 * The first of the labelled texts that holds a character no font can print, as the sentence a
 * caller sees ("The signer name “Sam 🏠” has a character no font of the notarized record can print
 * (🏠, U+1F3E0)."), or null when every one can be printed.
 */
export function describeUnprintableText(texts: Array<{ label: string; text: string | null | undefined }>, record: string): string | null {
  for (const { label, text } of texts) {
    if (!text) continue;
    const characters = findUnprintableCharacters(text);
    if (characters.length > 0) return `The ${label} “${text}” has a character no font of ${record} can print (${describeCharacters(characters)}).`;
  }
  return null;
}
