import { hash } from 'node:crypto';
import { constants, deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFContentStream,
  PDFContext,
  PDFDict,
  PDFDocument,
  PDFFlateStream,
  PDFName,
  PDFPage,
  PDFRawStream,
  PDFRef,
  PngEmbedder,
  type PDFObject,
} from 'pdf-lib';
import { LruCache } from '#server/lib/lru-cache.ts';
import { embedFonts, formatNumber, getPageResources, newResourceName, pushContent, type Fonts } from './pdf-text.ts';

/**
 * What a seal costs whatever the document, prepared once per process and reused: a
 * signature or initials image as its finished PDF image streams (decoded, split from its alpha,
 * compressed), the notary's seal and the "not a notarial act" banner as finished Form XObjects. Each
 * is keyed by its content (the image's SHA-256, the seal's wording and size, the banner's words and
 * size), so a changed image or commission is prepared
 * afresh, never served stale; the caches are bounded (least recently used goes first). The rest of
 * the output (the content streams pdf-lib writes) is compressed with node:zlib rather than pdf-lib's
 * JavaScript deflate.
 */

/** An image in one document: its XObject and its size in pixels. */
export interface EmbeddedImage {
  ref: PDFRef;
  width: number;
  height: number;
}

/** An image's finished streams, as pdf-lib's PNG embedder writes them, independent of any document. */
interface PreparedImage {
  image: PDFRawStream;
  softMask: PDFRawStream | null;
  width: number;
  height: number;
}

/** A Form XObject's compressed content stream and the fonts it names. */
interface PreparedForm {
  contents: Uint8Array;
  fonts: Array<{ key: string; baseFont: string }>;
  /** Graphics states (opacity), as direct dictionaries of the scratch document. */
  graphicsStates: Array<{ key: string; state: PDFDict }>;
  box: [number, number, number, number];
}

const imageCache = new LruCache<string, PreparedImage>({
  maxEntries: 512,
  maxBytes: 64 * 1024 * 1024,
  sizeOf: (prepared) => prepared.image.contents.length + (prepared.softMask?.contents.length ?? 0),
});
const formCache = new LruCache<string, PreparedForm>({ maxEntries: 512, maxBytes: 8 * 1024 * 1024, sizeOf: (form) => form.contents.length + 512 });

/** Empties the caches: the next seal prepares everything again (benchmarks measure that one-off). */
export function clearPreparedAssets(): void {
  imageCache.clear();
  formCache.clear();
}

function lookupRawStream(context: PDFContext, ref: PDFRef): PDFRawStream {
  const object = context.lookup(ref);
  if (!(object instanceof PDFRawStream)) throw new Error(`object ${ref.toString()} is not a stream`);
  return object;
}

function lookupContentStream(context: PDFContext, ref: PDFRef): PDFContentStream {
  const object = context.lookup(ref);
  if (!(object instanceof PDFContentStream)) throw new Error(`object ${ref.toString()} is not a content stream`);
  return object;
}

/** What pdf-lib's PNG embedder decoded (its `image`, not part of its typed API): the pixels, split from their alpha. */
interface DecodedPng {
  rgbChannel: Uint8Array;
  alphaChannel?: Uint8Array;
  bitsPerComponent: number;
}

function isDecodedPng(value: unknown): value is DecodedPng {
  const image = value as Partial<DecodedPng> | null;
  return image?.rgbChannel instanceof Uint8Array && typeof image.bitsPerComponent === 'number';
}

/**
 * The image streams pdf-lib's PNG embedder would write, compressed with node:zlib rather than
 * its JavaScript deflate (the one-off of a notary's first seal); should pdf-lib's decoded image not
 * be where this expects it, pdf-lib writes them itself.
 */
async function prepareImage(png: Buffer): Promise<PreparedImage> {
  const context = PDFContext.create();
  const embedder = await PngEmbedder.for(png);
  const decoded: unknown = (embedder as unknown as { image?: unknown }).image;
  if (isDecodedPng(decoded)) {
    const { width, height } = embedder;
    const softMask = decoded.alphaChannel
      ? context.stream(deflateSync(decoded.alphaChannel), {
          Type: 'XObject',
          Subtype: 'Image',
          Height: height,
          Width: width,
          BitsPerComponent: decoded.bitsPerComponent,
          ColorSpace: 'DeviceGray',
          Decode: [0, 1],
          Filter: 'FlateDecode',
        })
      : null;
    const image = context.stream(deflateSync(decoded.rgbChannel), {
      Type: 'XObject',
      Subtype: 'Image',
      BitsPerComponent: decoded.bitsPerComponent,
      Width: width,
      Height: height,
      ColorSpace: embedder.colorSpace,
      Filter: 'FlateDecode',
    });
    return { image, softMask, width, height };
  }
  const image = lookupRawStream(context, await embedder.embedIntoContext(context));
  const softMaskRef = image.dict.get(PDFName.of('SMask'));
  const softMask = softMaskRef instanceof PDFRef ? lookupRawStream(context, softMaskRef) : null;
  return { image, softMask, width: embedder.width, height: embedder.height };
}

/** A copy of a prepared stream in `context`: its own dictionary, the same (read-only) bytes. */
function copyStream(context: PDFContext, stream: PDFRawStream, entries: Array<[string, PDFRef]> = []): PDFRef {
  const dict = stream.dict.clone(context);
  for (const [key, ref] of entries) dict.set(PDFName.of(key), ref);
  return context.register(PDFRawStream.of(dict, stream.contents));
}

/** A collection of prepared things for one document, each embedded at most once in it. */
export class DocumentAssets {
  private readonly images = new Map<string, Promise<EmbeddedImage>>();
  private readonly buffers = new WeakMap<Buffer, Promise<EmbeddedImage>>();
  private readonly forms = new Map<string, PDFRef>();

  constructor(
    readonly document: PDFDocument,
    readonly fonts: Fonts,
  ) {}

  /** The PNG as an image of this document: prepared once per process, embedded once per document. */
  embedPng(png: Buffer): Promise<EmbeddedImage> {
    // The same buffer (a signature on every page) is hashed once per document.
    const known = this.buffers.get(png);
    if (known) return known;
    const key = hash('sha256', png, 'hex');
    let embedded = this.images.get(key);
    if (!embedded) {
      embedded = (async () => {
        let prepared = imageCache.get(key);
        if (!prepared) {
          prepared = await prepareImage(png);
          imageCache.set(key, prepared);
        }
        const { context } = this.document;
        const softMask = prepared.softMask ? copyStream(context, prepared.softMask) : null;
        const ref = copyStream(context, prepared.image, softMask ? [['SMask', softMask]] : []);
        return { ref, width: prepared.width, height: prepared.height };
      })();
      this.images.set(key, embedded);
    }
    this.buffers.set(png, embedded);
    return embedded;
  }

  /**
   * Draws what `draw` paints, centred on (cx, cy) in the page's current coordinates, from a Form
   * XObject prepared once per `key`: `draw` paints around (0, 0) on a scratch page with the same
   * standard fonts, and must paint the same for the same key. `extent` bounds what it paints.
   */
  drawPreparedForm(page: PDFPage, key: string, extent: number, cx: number, cy: number, draw: (page: PDFPage, fonts: Fonts) => void): void {
    let ref = this.forms.get(key);
    if (!ref) {
      let prepared = formCache.get(key);
      if (!prepared) {
        prepared = prepareForm(extent, draw);
        formCache.set(key, prepared);
      }
      ref = this.embedForm(prepared);
      this.forms.set(key, ref);
    }
    pushContent(page, `q 1 0 0 1 ${formatNumber(cx)} ${formatNumber(cy)} cm ${getXObjectKey(page, ref)} Do Q`);
  }

  private embedForm(prepared: PreparedForm): PDFRef {
    const { context } = this.document;
    const fonts = new Map<PDFName, PDFObject>();
    for (const { key, baseFont } of prepared.fonts) {
      const font = Object.values(this.fonts).find((candidate) => candidate.name === baseFont);
      if (!font) throw new Error(`the prepared form names the font ${baseFont}, which the document has not embedded`);
      fonts.set(PDFName.of(key), font.ref);
    }
    const states = new Map<PDFName, PDFObject>();
    for (const { key, state } of prepared.graphicsStates) states.set(PDFName.of(key), state.clone(context));
    // Built from its entries, not from an object literal by context.obj (a name looked up for every key and value).
    const resources = new Map<PDFName, PDFObject>([
      [formNames.Font, PDFDict.fromMapWithContext(fonts, context)],
      [formNames.ExtGState, PDFDict.fromMapWithContext(states, context)],
    ]);
    const dict = new Map<PDFName, PDFObject>([
      [formNames.Type, formNames.XObject],
      [formNames.Subtype, formNames.Form],
      [formNames.BBox, context.obj(prepared.box)],
      [formNames.Filter, formNames.FlateDecode],
      [formNames.Resources, PDFDict.fromMapWithContext(resources, context)],
    ]);
    return context.register(PDFRawStream.of(PDFDict.fromMapWithContext(dict, context), prepared.contents));
  }
}

/** The names of a prepared form's dictionary. */
const formNames = {
  Type: PDFName.of('Type'),
  XObject: PDFName.of('XObject'),
  Subtype: PDFName.of('Subtype'),
  Form: PDFName.of('Form'),
  BBox: PDFName.of('BBox'),
  Filter: PDFName.of('Filter'),
  FlateDecode: PDFName.of('FlateDecode'),
  Resources: PDFName.of('Resources'),
  Font: PDFName.of('Font'),
  ExtGState: PDFName.of('ExtGState'),
};

/** The page's resource name for each XObject it draws, added once per page however often it is drawn. */
function getXObjectKey(page: PDFPage, ref: PDFRef): string {
  const resources = getPageResources(page);
  let key = resources.xObjectKeys.get(ref);
  if (key === undefined) {
    const name = newResourceName('X');
    resources.xObject.set(name, ref);
    key = name.asString();
    resources.xObjectKeys.set(ref, key);
  }
  return key;
}

/** Draws an embedded image into the box (x, y, width, height) of the page's current coordinates. */
export function drawEmbeddedImage(page: PDFPage, image: EmbeddedImage, box: { x: number; y: number; width: number; height: number }): void {
  pushContent(
    page,
    `q ${formatNumber(box.width)} 0 0 ${formatNumber(box.height)} ${formatNumber(box.x)} ${formatNumber(box.y)} cm ${getXObjectKey(page, image.ref)} Do Q`,
  );
}

let scratch: { document: PDFDocument; fonts: Fonts } | null = null;

/** A document that is never saved, with the standard fonts renderNotarizedPdf uses, for drawing forms once. */
export async function getScratchDocument(): Promise<{ document: PDFDocument; fonts: Fonts }> {
  if (!scratch) {
    const document = await PDFDocument.create();
    scratch = {
      document,
      fonts: embedFonts(document),
    };
  }
  return scratch;
}

function prepareForm(extent: number, draw: (page: PDFPage, fonts: Fonts) => void): PreparedForm {
  if (!scratch) throw new Error('getScratchDocument() must be awaited before a form is prepared');
  const { document, fonts } = scratch;
  const page = PDFPage.create(document);
  draw(page, fonts);
  const { context } = document;
  const contents = page.node.get(PDFName.of('Contents'));
  const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
  const chunks: Uint8Array[] = [];
  for (const ref of refs) {
    if (!(ref instanceof PDFRef)) continue;
    chunks.push(lookupContentStream(context, ref).getUnencodedContents(), Buffer.from('\n'));
    context.delete(ref);
  }
  const resources = page.node.Resources();
  const fontDict = resources?.lookupMaybe(PDFName.of('Font'), PDFDict);
  const isEmpty = (key: PDFName) => {
    const value = resources?.lookup(key);
    return value instanceof PDFDict && value.keys().length === 0;
  };
  const others =
    resources?.keys().filter((key) => key !== PDFName.of('Font') && key !== PDFName.of('ExtGState') && key !== PDFName.of('ProcSet') && !isEmpty(key)) ?? [];
  if (others.length > 0) throw new Error(`a prepared form may only use fonts and graphics states, not ${others.join(', ')}`);
  const graphicsStates = (resources?.lookupMaybe(PDFName.of('ExtGState'), PDFDict)?.entries() ?? []).map(([key, state]) => {
    if (!(state instanceof PDFDict)) throw new Error(`the form's graphics state ${key.asString()} is not a direct dictionary`);
    return { key: key.decodeText(), state };
  });
  const baseFonts = new Map<PDFRef, string>(Object.values(fonts).map((font) => [font.ref, font.name]));
  const usedFonts = (fontDict?.entries() ?? []).map(([key, ref]) => {
    const baseFont = ref instanceof PDFRef ? baseFonts.get(ref) : undefined;
    if (!baseFont) throw new Error(`the form's font ${key.asString()} is not one of the standard fonts`);
    return { key: key.decodeText(), baseFont };
  });
  context.delete(page.ref);
  return { contents: deflateSync(Buffer.concat(chunks)), fonts: usedFonts, graphicsStates, box: [-extent, -extent, extent, extent] };
}

/**
 * Below this many bytes a content stream is stored as it is: setting up a deflate (tens of
 * microseconds) costs more than the few hundred bytes it would save (a page's burned fields).
 */
const smallestCompressedStream = 1024;

/**
 * Below this many bytes of new content in all, no stream is compressed (decision 066): a seal's
 * usual new text (a certificate page and a few audit pages, ~50 KB of operators) stored as it is
 * makes the file ~12 KB larger and saves deflating it (a tenth of the 10-page seal's time). A long
 * trail (hundreds of events) is deflated, where the bytes saved grow with it.
 */
const smallestCompressedTotal = 96 * 1024;

/**
 * zlib's fastest level, with an 8 KB window and a smaller hash table than its defaults (32 KB, and
 * 64 KB cleared at every start): the streams are a page's text, a few KB each, and the defaults took
 * a third longer for the same size out (258 against 197 µs for three 9 KB pages of text).
 */
const appendedStreamDeflate = { level: constants.Z_BEST_SPEED, windowBits: 13, memLevel: 6 };

/**
 * Compresses every content stream pdf-lib would deflate at save with node:zlib instead (the same
 * FlateDecode output, several times faster than pdf-lib's JavaScript deflate), at zlib's fastest
 * level: on the certificate and audit pages' text it takes about half the time of the default for
 * ~10% (a few hundred) more bytes. A small one (the q/Q wrappers around an original page's
 * content, a page's burned fields) is left uncompressed, and so is all of it when the new content
 * is small in all (smallestCompressedTotal). Call after the last drawing operation, just before save.
 */
export function compressContentStreams(document: PDFDocument): void {
  const { context } = document;
  const filter = PDFName.of('Filter');
  const flateDecode = PDFName.of('FlateDecode');
  const streams: Array<{ ref: PDFRef; dict: PDFDict; contents: Uint8Array }> = [];
  let total = 0;
  // In any order (enumerateIndirectObjects copies and sorts them all first).
  for (const [ref, object] of (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects) {
    if (!(object instanceof PDFFlateStream) || object.dict.get(filter) !== flateDecode) continue;
    // The operators as text, then bytes (one character a byte): the bytes getUnencodedContents writes, without its copy loop.
    const contents = object instanceof PDFContentStream ? Buffer.from(object.getContentsString(), 'latin1') : object.getUnencodedContents();
    streams.push({ ref, dict: object.dict, contents });
    total += contents.length;
  }
  for (const { ref, dict, contents } of streams) {
    if (total < smallestCompressedTotal || contents.length < smallestCompressedStream) {
      dict.delete(filter);
      context.assign(ref, PDFRawStream.of(dict, contents));
    } else context.assign(ref, PDFRawStream.of(dict, deflateSync(contents, appendedStreamDeflate)));
  }
}
