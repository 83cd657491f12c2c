import type { PDFDocument } from 'pdf-lib';
import { ParseSpeeds, PDFArray, PDFDict, PDFName, PDFPageLeaf, PDFPageTree, PDFRef, rgb, type PDFObject, type PDFPage } from 'pdf-lib';
import { IncrementalPdf } from '#server/providers/signing/incremental.ts';
import { toSingleLine } from '#shared/text.ts';
import { addAuditPages, addNotarialCertificatePage, type AuditFacts } from './certificate-pages.ts';
import { getCertificateBlockText, getNotNotarialBanner, type CertificateFacts } from './certificate-wording.ts';
import { compressContentStreams, DocumentAssets, drawEmbeddedImage, getScratchDocument, type EmbeddedImage } from './pdf-assets.ts';
import { drawTextInBox, embedFonts, formatNumber, ink, pushContent, sanitizeForFont, wrapText, type Fonts } from './pdf-text.ts';
import { embedFallbackFonts } from './pdf-fonts.ts';
import { drawSealOnce } from './seal.ts';

export { type AuditFacts } from './certificate-pages.ts';
export { sanitizeForFont } from './pdf-text.ts';
export { communicationTechnologySentence, getCertificateWording, type CertificateFacts } from './certificate-wording.ts';

/**
 * The visible half of the notarized document: the filled fields burned into a copy of the
 * original, then a notarial certificate page and an audit certificate page. The tamper-evident
 * half (the PAdES signature) is added afterwards by providers/signing/pades.ts. The seal is
 * drawn by seal.ts, the appended pages and their text layout by certificate-pages.ts, their words
 * by certificate-wording.ts. An output that is not a notarial act says so on a banner on every page.
 */

export interface FieldToBurn {
  type: 'signature' | 'initials' | 'date_signed' | 'date' | 'name' | 'text' | 'checkbox' | 'notary_signature' | 'notary_seal' | 'notarial_certificate';
  /** 1-based */
  page: number;
  /** Fractions 0..1 of the page as displayed (crop box, after /Rotate), origin top-left. */
  x: number;
  y: number;
  width: number;
  height: number;
  value: string | null;
  imagePng: Buffer | null;
}

// ---------------------------------------------------------------------------------------------
// Fields burned into the original pages

/** A box on the page as displayed: fractions 0..1 of the crop box after /Rotate, origin top-left. */
type Placement = Pick<FieldToBurn, 'x' | 'y' | 'width' | 'height'>;

type DisplayedSize = { box: { x: number; y: number; width: number; height: number }; rotation: 0 | 90 | 180 | 270; width: number; height: number };

/** Each page's displayed size, read once per page (its boxes and rotation are inherited attributes, looked up through the page tree). */
const displayedSizes = new WeakMap<PDFPage, DisplayedSize>();

/** The page's size as a reader shows it: its crop box, turned by its /Rotate. */
function getDisplayedSize(page: PDFPage): DisplayedSize {
  const known = displayedSizes.get(page);
  if (known) return known;
  const size = readDisplayedSize(page);
  displayedSizes.set(page, size);
  return size;
}

function readDisplayedSize(page: PDFPage): DisplayedSize {
  const box = page.getCropBox();
  const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const isTurned = rotation === 90 || rotation === 270;
  return { box, rotation, width: isTurned ? box.height : box.width, height: isTurned ? box.width : box.height };
}

/** Where the field's displayed bottom-left corner is in the page's own coordinates. */
function fieldOrigin(box: DisplayedSize['box'], rotation: DisplayedSize['rotation'], left: number, bottom: number): [number, number] {
  switch (rotation) {
    case 90:
      return [box.x + bottom, box.y + left];
    case 180:
      return [box.x + box.width - left, box.y + bottom];
    case 270:
      return [box.x + box.width - bottom, box.y + box.height - left];
    default:
      return [box.x + left, box.y + box.height - bottom];
  }
}

/** A fraction of the page, 0 to 1 (anything else, NaN included, brought into that range). A function of its own: under tsx (keepNames) a named closure costs a property definition each time it is made. */
function clamp(value: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0));
}

/** Runs `draw` in a frame whose origin is the field's displayed bottom-left corner, axes as displayed. */
function withFieldFrame(page: PDFPage, field: Placement, draw: (width: number, height: number) => void) {
  const { box, rotation, width: displayedWidth, height: displayedHeight } = getDisplayedSize(page);
  const left = clamp(field.x) * displayedWidth;
  const top = clamp(field.y) * displayedHeight;
  const width = Math.min(clamp(field.width), 1 - clamp(field.x)) * displayedWidth;
  const height = Math.min(clamp(field.height), 1 - clamp(field.y)) * displayedHeight;
  const bottom = top + height;
  const [originX, originY] = fieldOrigin(box, rotation, left, bottom);
  const radians = (rotation * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  pushContent(page, `q ${cos} ${sin} ${-sin} ${cos} ${formatNumber(originX)} ${formatNumber(originY)} cm`);
  draw(width, height);
  pushContent(page, 'Q');
}

function drawImageContained(page: PDFPage, image: EmbeddedImage, width: number, height: number) {
  const scale = Math.min(width / image.width, height / image.height);
  const drawnWidth = image.width * scale;
  const drawnHeight = image.height * scale;
  drawEmbeddedImage(page, image, { x: (width - drawnWidth) / 2, y: (height - drawnHeight) / 2, width: drawnWidth, height: drawnHeight });
}

/** The certificate block is never printed smaller than this (points), whatever box it was given. */
const certificateMinSize = 8;
const insetCertificate = (width: number, height: number) => ({ x: 4, y: 3, width: width - 8, height: height - 6 });

/**
 * The box the certificate block is printed in: the placed box, made taller when its wording does not
 * fit at the minimum size (downwards, moved up if it would leave the page), so nothing is cut.
 */
function fitCertificateBlock(page: PDFPage, field: Placement, fonts: Fonts, facts: CertificateFacts): Placement {
  const displayed = getDisplayedSize(page);
  const inner = insetCertificate(field.width * displayed.width, 0);
  const lines = wrapText(sanitizeForFont(fonts.serif, getCertificateBlockText(facts)).trim(), fonts.serif, certificateMinSize, inner.width);
  const needed = Math.min(1, (lines.length * certificateMinSize * 1.15 + 7) / displayed.height);
  if (needed <= field.height) return field;
  return { ...field, height: needed, y: Math.max(0, Math.min(field.y, 1 - needed)) };
}

async function burnFields(assets: DocumentAssets, fields: FieldToBurn[], facts: CertificateFacts) {
  const { document, fonts } = assets;
  const pages = document.getPages();
  for (const field of fields) {
    const page = pages[field.page - 1];
    if (!page || !Number.isInteger(field.page)) throw new Error(`A ${field.type} field is on page ${field.page}, but the document has ${pages.length} pages.`);
    const image = field.imagePng && ['signature', 'initials', 'notary_signature'].includes(field.type) ? await assets.embedPng(field.imagePng) : null;
    const placement = field.type === 'notarial_certificate' ? fitCertificateBlock(page, field, fonts, facts) : field;
    withFieldFrame(page, placement, (width, height) => {
      const box = { x: 0, y: 0, width, height };
      switch (field.type) {
        case 'signature':
        case 'initials':
        case 'notary_signature':
          if (image) drawImageContained(page, image, width, height);
          else if (field.value) drawTextInBox(page, field.value, box, fonts.italic, { maxSize: 28, align: 'center' });
          break;
        case 'name':
        case 'date_signed':
        case 'date':
        case 'text':
          if (field.value) drawTextInBox(page, field.value, { x: 1, y: 0, width: width - 2, height }, fonts.regular, { maxSize: 12 });
          break;
        case 'checkbox': {
          const side = Math.min(width, height);
          const x = (width - side) / 2;
          const y = (height - side) / 2;
          page.drawRectangle({ x, y, width: side, height: side, borderColor: ink, borderWidth: Math.max(0.5, side * 0.06) });
          if (field.value === 'true') {
            const thickness = Math.max(0.8, side * 0.12);
            const points = [
              { x: x + side * 0.2, y: y + side * 0.52 },
              { x: x + side * 0.42, y: y + side * 0.25 },
              { x: x + side * 0.82, y: y + side * 0.8 },
            ] as const;
            page.drawLine({ start: points[0], end: points[1], thickness, color: ink });
            page.drawLine({ start: points[1], end: points[2], thickness, color: ink });
          }
          break;
        }
        case 'notary_seal':
          drawSealOnce(assets, page, facts, width / 2, height / 2, (Math.min(width, height) / 2) * 0.96);
          break;
        case 'notarial_certificate':
          // Opaque, so the deed's own text never shows through the wording.
          page.drawRectangle({ x: 0, y: 0, width, height, color: rgb(1, 1, 1), opacity: 1, borderColor: ink, borderWidth: 0.5 });
          drawTextInBox(page, getCertificateBlockText(facts), insetCertificate(width, height), fonts.serif, { maxSize: 10, minSize: certificateMinSize });
          break;
      }
    });
  }
}

const bannerRed = rgb(0.62, 0.06, 0.06);

/**
 * A band across the top of the page as displayed, painted over whatever is there: a solid dark red
 * background (nothing of the page shows through it) with the statement in white.
 */
function drawBanner(assets: DocumentAssets, page: PDFPage, text: string) {
  const displayed = getDisplayedSize(page);
  const height = Math.min(26, displayed.height * 0.08);
  withFieldFrame(page, { x: 0, y: 0, width: 1, height: height / displayed.height }, (width, bandHeight) => {
    // The same band on every page of a size: prepared once (pdf-assets.ts), then one XObject reference a page.
    const key = `banner:${width}:${bandHeight}:${text}`;
    assets.drawPreparedForm(page, key, Math.max(width, bandHeight) + 2, 0, 0, (scratchPage, fonts) => {
      scratchPage.drawRectangle({ x: 0, y: 0, width, height: bandHeight, color: bannerRed, opacity: 1 });
      drawTextInBox(scratchPage, text, { x: 6, y: 2, width: width - 12, height: bandHeight - 4 }, fonts.bold, {
        maxSize: 11,
        color: rgb(1, 1, 1),
        align: 'center',
      });
    });
  });
}

/**
 * The notarized record is static: the original's own form fields are drawn into the pages and
 * removed, so nobody can fill them in after the notary signs. A form pdf-lib cannot flatten is left
 * as it is (the signature still reveals any later change).
 */
function flattenForm(document: PDFDocument) {
  if (!document.catalog.has(PDFName.of('AcroForm'))) return;
  try {
    const form = document.getForm();
    // A signed original keeps its form: flattening would drop its signature from the newest revision.
    if (
      form
        .getFields()
        .some(
          (field) =>
            field.acroField.dict.lookupMaybe(PDFName.of('FT'), PDFName) === PDFName.of('Sig') && field.acroField.dict.lookupMaybe(PDFName.of('V'), PDFDict),
        )
    )
      return;
    if (form.getFields().length > 0) form.flatten();
  } catch {
    // keep the form
  }
}

const resourcesKey = PDFName.of('Resources');
const annotsKey = PDFName.of('Annots');
const contentsKey = PDFName.of('Contents');

const kidsKey = PDFName.of('Kids');

/**
 * Each page shown gets a page object of its own: a page tree may list one page object (or one node
 * of the tree) twice, and a viewer then shows it as two pages; what the seal draws on one would show
 * on both (found by attack: the signer's initials placed on page 1 showed on page 2 as well). The
 * second and later listings get a copy, with its own lists of content streams and annotations and
 * the original's /Parent (what it inherits); a node's copy lists copies of its pages; a list of kids
 * two nodes share becomes two. A node listed inside itself is left to pdf-lib, as before.
 */
function ownPageObjects(document: PDFDocument): void {
  const { context } = document;
  const seen = new Set<PDFRef>();
  const listsSeen = new Set<PDFArray>();
  let copied = false;
  const visit = (node: PDFDict, ancestors: Set<PDFRef>): void => {
    const listed = node.lookup(kidsKey);
    if (!(listed instanceof PDFArray)) return;
    // A list of kids two nodes share: this node's copies go into a list of its own (found by attack).
    const kids = listsSeen.has(listed) ? listed.clone(context) : listed;
    if (kids !== listed) node.set(kidsKey, kids);
    listsSeen.add(kids);
    for (let index = 0; index < kids.size(); index += 1) {
      const kidRef = kids.get(index);
      if (!(kidRef instanceof PDFRef) || ancestors.has(kidRef)) continue;
      const kid = context.lookup(kidRef);
      if (!(kid instanceof PDFPageLeaf) && !(kid instanceof PDFPageTree)) continue;
      let ownRef = kidRef;
      let own: PDFDict = kid;
      if (seen.has(kidRef)) {
        // Its /Parent stays the original's: a viewer took inherited attributes (/Rotate, /MediaBox) from it.
        own = kid instanceof PDFPageLeaf ? kid.clone(context) : PDFPageTree.fromMapWithContext(new Map(kid.entries()), context);
        // Lists of its own: what is drawn on or taken off one page (a flattened widget) stays on that page.
        for (const key of [contentsKey, annotsKey]) {
          const list = own.lookup(key);
          if (list instanceof PDFArray) own.set(key, list.clone(context));
        }
        const ownKids = own.lookup(kidsKey);
        if (ownKids instanceof PDFArray) own.set(kidsKey, ownKids.clone(context));
        ownRef = context.register(own);
        kids.set(index, ownRef);
        copied = true;
      } else seen.add(kidRef);
      if (own instanceof PDFPageTree) visit(own, new Set([...ancestors, ownRef]));
    }
  };
  const root = document.catalog.get(PDFName.of('Pages'));
  const tree = context.lookup(root);
  if (!(root instanceof PDFRef) || !(tree instanceof PDFPageTree)) return;
  visit(tree, new Set([root]));
  // pdf-lib keeps the list of pages it read; it reads them again, copies included.
  if (copied) (document as unknown as { pageCache: { invalidate(): void } }).pageCache.invalidate();
}

/**
 * A page whose /Contents names a list of streams by reference gets a list of its own: pdf-lib adds
 * what it draws on a page to that page's list, and pages sharing one list would each show what was
 * drawn on any of them (found in review: a signer's name drawn on page 1 showed on page 2 too).
 */
function ownContentLists(document: PDFDocument): void {
  for (const page of document.getPages()) {
    const contents = page.node.get(contentsKey);
    if (!(contents instanceof PDFRef)) continue;
    const list = document.context.lookup(contents);
    if (list instanceof PDFArray) page.node.set(contentsKey, list.clone());
  }
}

/**
 * Pages that share one /Resources dictionary name it by reference. pdf-lib's normalize, run on every
 * page the seal draws on, puts the dictionary a page inherits from the page tree (or names by
 * reference) into the page itself: written so, a dictionary 300 pages share is written 300 times
 * (found by attack: a 200 KB original of 1,000 pages sharing 5,000 resources came out at 430 MB).
 * It does the same one level down, to the /Font, /XObject and /ExtGState dictionaries a page's
 * resources name by reference and to the page's /Annots list (found by attack: 40 KB in, 10.5 MB
 * out): each is named by its reference again.
 */
function shareResources(document: PDFDocument): void {
  // Each dictionary and list of the original that is an object of its own, by its number.
  const refs = new Map<PDFObject, PDFRef>();
  for (const [ref, object] of (document.context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects) {
    if (object instanceof PDFDict || object instanceof PDFArray) refs.set(object, ref);
  }
  const pages = document.getPages();
  const sharers = new Map<PDFDict, PDFPage[]>();
  for (const page of pages) {
    const resources = page.node.get(resourcesKey);
    if (!(resources instanceof PDFDict)) continue;
    for (const [key, value] of resources.entries()) {
      const ref = refs.get(value);
      if (ref) resources.set(key, ref);
    }
    const annotations = refs.get(page.node.get(annotsKey) as PDFObject);
    if (annotations) page.node.set(annotsKey, annotations);
    const sharing = sharers.get(resources);
    if (sharing) sharing.push(page);
    else sharers.set(resources, [page]);
  }
  for (const [resources, sharing] of sharers) {
    if (sharing.length < 2) continue;
    // An indirect object already (pages that named it by reference) keeps its number; else it gets one.
    const ref = refs.get(resources) ?? document.context.register(resources);
    for (const page of sharing) page.node.set(resourcesKey, ref);
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Names, titles and field values are one line (decision 009); rows stored before that rule may hold
 * line breaks, which would print as lines of their own ("Identity: proven…") or stop a font from
 * encoding the text. Each becomes one line here, as in the emails that quote them; so does a
 * signer's identity line, which quotes the notary's bypass reason (a reason may span lines).
 */
function withOneLineText<T extends { fields: FieldToBurn[]; certificate: CertificateFacts; audit: AuditFacts }>(input: T): T {
  const { certificate, audit } = input;
  return {
    ...input,
    fields: input.fields.map((field) => ({ ...field, value: field.value === null ? null : toSingleLine(field.value) })),
    certificate: {
      ...certificate,
      notaryName: toSingleLine(certificate.notaryName),
      commissionNumber: toSingleLine(certificate.commissionNumber),
      county: toSingleLine(certificate.county),
      signerNames: certificate.signerNames.map(toSingleLine),
    },
    audit: {
      ...audit,
      jobTitle: toSingleLine(audit.jobTitle),
      documentName: toSingleLine(audit.documentName),
      signers: audit.signers.map((signer) => ({ ...signer, name: toSingleLine(signer.name), identityMethod: toSingleLine(signer.identityMethod) })),
      events: audit.events.map((event) => ({ ...event, actorName: event.actorName === null ? null : toSingleLine(event.actorName) })),
    },
  };
}

/**
 * pdf-lib yields to the event loop (a setTimeout, so at least a millisecond) every 100 objects it
 * parses and every 50 it writes: most of a small document's time. Every 1,500 keeps a long
 * document from holding the event loop for long, and a 10-page one from waiting on timers.
 */
const objectsPerTick = ParseSpeeds.Fast;
/**
 * Revisions a sealed file must still take after the seal's own: its validation data and archive
 * timestamp, then two more at every renewal of that timestamp (decades of them). An original with
 * fewer sections left is saved again as a whole, while it is not yet signed.
 */
const sectionsForLater = 100;

/**
 * Burns the filled fields into a copy of the original and appends the notarial certificate and
 * the audit certificate; marks every page of an output that is not a notarial act. The result is
 * the original's bytes followed by one incremental update holding what changed (incremental.ts),
 * ready for signPreparedPdf; a damaged original is saved again as a whole instead, and
 * `fullSaveReason` says why (the audit event of the seal records it).
 */
export async function renderNotarizedPdf(raw: {
  original: Buffer;
  fields: FieldToBurn[];
  certificate: CertificateFacts;
  audit: AuditFacts;
  /** Runs on the finished document just before its one save: signing.ts adds its signature placeholder here. */
  beforeSave?: (document: PDFDocument) => void;
}): Promise<{ pdf: Buffer; pageCount: number; fullSaveReason: string | null }> {
  const input = withOneLineText(raw);
  const [incremental] = await Promise.all([IncrementalPdf.load(input.original, { parseSpeed: ParseSpeeds.Fast, sectionsForLater }), getScratchDocument()]);
  const { document } = incremental;
  const fonts: Fonts = embedFonts(document);
  const assets = new DocumentAssets(document, fonts);
  ownPageObjects(document);
  ownContentLists(document);
  flattenForm(document);
  await burnFields(assets, input.fields, input.certificate);
  const signatureImage = input.certificate.notarySignaturePng ? await assets.embedPng(input.certificate.notarySignaturePng) : null;
  addNotarialCertificatePage(document, fonts, input.certificate, input.audit.documentName, signatureImage, (page, cx, cy, radius) =>
    drawSealOnce(assets, page, input.certificate, cx, cy, radius),
  );
  addAuditPages(document, fonts, input.audit, input.certificate);
  // Last, so nothing drawn afterwards covers it.
  const { notarialFacts } = input.certificate;
  if (!notarialFacts.isNotarialAct) {
    const banner = getNotNotarialBanner(notarialFacts);
    for (const page of document.getPages()) drawBanner(assets, page, banner);
  }
  shareResources(document);
  document.setProducer('Open RON (pdf-lib)');
  document.setModificationDate(input.certificate.notarizedAt);
  raw.beforeSave?.(document);
  // The subsets of the Noto faces the text used (none for text the standard fonts print).
  await embedFallbackFonts(document);
  compressContentStreams(document);
  const saved = await incremental.save({ objectsPerTick });
  return { pdf: saved.pdf, pageCount: document.getPageCount(), fullSaveReason: saved.reason };
}
