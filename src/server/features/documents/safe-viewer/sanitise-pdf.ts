import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFStream, ParseSpeeds, type PDFObject } from 'pdf-lib';
// Reading a PDF here unpacks its object streams within the bounds of decision 062.
import '#server/lib/pdf-stream-bounds.ts';

/**
 * A copy of a PDF with everything that can act removed (decision 053): scripts, actions that leave
 * the page (launch, web links, other files, form submission and import), embedded and attached
 * files, XFA forms and every additional-action (/AA) trigger. Internal links (GoTo) and page
 * content stay. Every object of the file is walked, not just the places a reader usually looks,
 * and whatever nothing references any more is dropped before saving.
 */

/** Action types that are removed wherever they appear (PDF 2.0, 12.6.4, plus the legacy media ones). */
export const removedActionTypes = new Set([
  'JavaScript',
  'Launch',
  'URI',
  'GoToR',
  'GoToE',
  'GoToDp',
  'SubmitForm',
  'ResetForm',
  'ImportData',
  'Thread',
  'Sound',
  'Movie',
  'Rendition',
  'RichMediaExecute',
  'GoTo3DView',
  'Hide',
  'Named',
  'SetOCGState',
  'Trans',
]);

/** Annotation kinds that carry files, media or 3D content: removed from their pages. */
export const removedAnnotationTypes = new Set(['FileAttachment', 'Sound', 'Movie', 'Screen', 'RichMedia', '3D']);

/** Catalog entries that run or carry something, removed outright. */
const removedCatalogKeys = ['OpenAction', 'AA', 'URI', 'Collection', 'Threads', 'Perms', 'Requirements'];

/** Keys that name an action trigger, a script or a file, removed from every dictionary of the file. */
const removedKeys = ['AA', 'JS', 'EF', 'RF', 'XFA'];

/** Safe viewer limits: larger or slower files are refused with a sentence instead of stalling a thread. */
export const sanitiseLimits = { maxObjects: 2_000_000 };

export class UnreadablePdfError extends Error {}

const name = (value: string) => PDFName.of(value);

type Resolve = (object: PDFObject | undefined) => PDFObject | undefined;

/** A name, read through an indirect reference too (/S 5 0 R where object 5 is /URI is still a web link). */
function nameOf(value: PDFObject | undefined, resolve?: Resolve): string | null {
  const target = resolve ? resolve(value) : value;
  return target instanceof PDFName ? target.decodeText() : null;
}

function dictOf(object: PDFObject | undefined): PDFDict | null {
  if (object instanceof PDFDict) return object;
  if (object instanceof PDFStream) return object.dict;
  return null;
}

/**
 * Whether an /A entry may stay: an action only when it jumps within this document; a dictionary
 * with an /O owner and no /S is a structure element's attributes, not an action.
 */
function isSafeAEntry(value: PDFDict | null, resolve: Resolve): boolean {
  if (value === null) return false;
  const type = value.get(name('S'));
  if (type === undefined) return value.has(name('O'));
  return nameOf(type, resolve) === 'GoTo';
}

/** Removes, in one dictionary, what acts; the caller walks into its values. */
function cleanDictionary(dict: PDFDict, resolve: Resolve): void {
  for (const key of removedKeys) dict.delete(name(key));
  const type = dict.get(name('S'));
  const actionType = nameOf(type, resolve);
  // A type that is no name at all is no kind anyone may rely on: it goes like a removed one.
  if ((actionType !== null && removedActionTypes.has(actionType)) || (type !== undefined && actionType === null)) {
    // An action of a removed kind: emptied, so whatever still points at it points at nothing that runs.
    for (const key of dict.keys()) dict.delete(key);
    return;
  }
  // A kept jump runs nothing after it.
  if (actionType === 'GoTo') dict.delete(name('Next'));
  const action = dict.get(name('A'));
  // An array is a structure element's attribute list: never an action.
  const target = resolve(action);
  if (action !== undefined && !(target instanceof PDFArray) && !isSafeAEntry(dictOf(target), resolve)) dict.delete(name('A'));
  if (nameOf(dict.get(name('Type')), resolve) === 'Filespec') {
    for (const key of ['EF', 'RF', 'F', 'UF', 'DOS', 'Mac', 'Unix']) dict.delete(name(key));
  }
}

/** Drops the removed annotation kinds from an /Annots array. */
function cleanAnnotations(annots: PDFArray, resolve: Resolve): void {
  for (let index = annots.size() - 1; index >= 0; index -= 1) {
    const annotation = dictOf(resolve(annots.get(index)));
    const subtype = annotation ? nameOf(annotation.get(name('Subtype')), resolve) : null;
    if (subtype !== null && removedAnnotationTypes.has(subtype)) annots.remove(index);
  }
}

/** Every object reachable from the trailer (its /Root and /Info), by reference. */
function findReachable(document: PDFDocument): Set<PDFRef> {
  const { context } = document;
  const reachable = new Set<PDFRef>();
  const pending: PDFObject[] = [context.trailerInfo.Root, context.trailerInfo.Info].filter((object): object is PDFObject => object !== undefined);
  while (pending.length > 0) {
    const object = pending.pop() as PDFObject;
    if (object instanceof PDFRef) {
      if (reachable.has(object)) continue;
      reachable.add(object);
      const target = context.lookup(object);
      if (target) pending.push(target);
    } else if (object instanceof PDFDict) {
      for (const value of object.values()) pending.push(value);
    } else if (object instanceof PDFArray) {
      for (const value of object.asArray()) pending.push(value);
    } else if (object instanceof PDFStream) {
      pending.push(object.dict);
    }
  }
  return reachable;
}

/**
 * Returns the sanitised copy's bytes; throws UnreadablePdfError for a file that cannot be read or
 * rewritten (pdf-lib reads even garbage leniently: a missing catalog or a broken structure shows
 * only on the way through).
 */
export async function sanitisePdf(bytes: Uint8Array): Promise<Uint8Array> {
  try {
    return await sanitiseReadable(bytes);
  } catch (error) {
    if (error instanceof UnreadablePdfError) throw error;
    throw new UnreadablePdfError(`The PDF could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function sanitiseReadable(bytes: Uint8Array): Promise<Uint8Array> {
  const document = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest, throwOnInvalidObject: false });
  if (!(document.context.lookup(document.context.trailerInfo.Root) instanceof PDFDict)) throw new UnreadablePdfError('The PDF has no catalog.');
  if (document.getPageCount() < 1) throw new UnreadablePdfError('The PDF has no pages.');
  const { context } = document;
  const resolve = (object: PDFObject | undefined) => (object instanceof PDFRef ? context.lookup(object) : object);
  const objects = context.enumerateIndirectObjects();
  if (objects.length > sanitiseLimits.maxObjects) throw new UnreadablePdfError(`The PDF holds more than ${sanitiseLimits.maxObjects} objects.`);

  const catalog = document.catalog;
  for (const key of removedCatalogKeys) catalog.delete(name(key));
  // Of the name trees only named destinations (internal jumps) and appearance streams are kept.
  const names = dictOf(resolve(catalog.get(name('Names'))));
  if (names) for (const key of names.keys()) if (!['Dests', 'AP'].includes(key.decodeText())) names.delete(key);
  const acroForm = dictOf(resolve(catalog.get(name('AcroForm'))));
  if (acroForm) acroForm.delete(name('XFA'));

  // Every dictionary of the file, indirect or nested, visited once.
  const seen = new Set<PDFObject>();
  const visit = (root: PDFObject) => {
    const pending: PDFObject[] = [root];
    while (pending.length > 0) {
      const object = pending.pop() as PDFObject;
      if (object instanceof PDFRef || seen.has(object)) continue;
      seen.add(object);
      const dict = dictOf(object);
      if (dict) {
        if (object instanceof PDFStream) seen.add(dict);
        cleanDictionary(dict, resolve);
        const annots = resolve(dict.get(name('Annots')));
        if (annots instanceof PDFArray) cleanAnnotations(annots, resolve);
        for (const value of dict.values()) pending.push(value);
      } else if (object instanceof PDFArray) {
        for (const value of object.asArray()) pending.push(value);
      }
    }
  };
  for (const [, object] of objects) visit(object);

  // Embedded file streams, and everything the removals left unreferenced (scripts held in streams,
  // name-tree nodes, attachment annotations), are not written to the copy.
  const reachable = findReachable(document);
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    const isEmbeddedFile =
      object instanceof PDFStream &&
      nameOf(object.dict.get(name('Type')), (value) => (value instanceof PDFRef ? context.lookup(value) : value)) === 'EmbeddedFile';
    if (!reachable.has(ref) || isEmbeddedFile) context.delete(ref);
  }
  return document.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
}
