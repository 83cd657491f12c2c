import { createHash } from 'node:crypto';
import { concatTransformationMatrix, PDFDocument, PDFName, popGraphicsState, pushGraphicsState, StandardFonts, type PDFImage, type PDFPage } from 'pdf-lib';
import { addAuditPages, addNotarialCertificatePage, drawTextInBox, getCertificateBlockText, ink, type AuditFacts, type CertificateFacts, type Fonts } from './certificate-pages.ts';
import { drawSeal } from './seal.ts';

export { communicationTechnologySentence, getCertificateWording, sanitizeForFont, type AuditFacts, type CertificateFacts } from './certificate-pages.ts';

/**
 * The visible half of the notarized document: the filled fields burned into a copy of the
 * original, then a notarial certificate page and an audit certificate page. The tamper-evident
 * half (the PAdES signature) is added afterwards by providers/signing/pades.ts. The seal is
 * drawn by seal.ts, the appended pages and their text layout by certificate-pages.ts.
 */

export interface FieldToBurn {
  type: 'signature' | 'initials' | 'date_signed' | 'name' | 'text' | 'checkbox' | 'notary_signature' | 'notary_seal' | 'notarial_certificate';
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

/** Runs `draw` in a frame whose origin is the field's displayed bottom-left corner, axes as displayed. */
function withFieldFrame(page: PDFPage, field: FieldToBurn, draw: (width: number, height: number) => void) {
  const box = page.getCropBox();
  const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const isTurned = rotation === 90 || rotation === 270;
  const displayedWidth = isTurned ? box.height : box.width;
  const displayedHeight = isTurned ? box.width : box.height;
  const clamp = (value: number) => Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0));
  const left = clamp(field.x) * displayedWidth;
  const top = clamp(field.y) * displayedHeight;
  const width = Math.min(clamp(field.width), 1 - clamp(field.x)) * displayedWidth;
  const height = Math.min(clamp(field.height), 1 - clamp(field.y)) * displayedHeight;
  const bottom = top + height;
  const origin = {
    0: [box.x + left, box.y + box.height - bottom],
    90: [box.x + bottom, box.y + left],
    180: [box.x + box.width - left, box.y + bottom],
    270: [box.x + box.width - bottom, box.y + box.height - left],
  }[rotation] ?? [box.x + left, box.y + box.height - bottom];
  const radians = (rotation * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(cos, sin, -sin, cos, origin[0] ?? 0, origin[1] ?? 0));
  draw(width, height);
  page.pushOperators(popGraphicsState());
}

function drawImageContained(page: PDFPage, image: PDFImage, width: number, height: number) {
  const scale = Math.min(width / image.width, height / image.height);
  const drawnWidth = image.width * scale;
  const drawnHeight = image.height * scale;
  page.drawImage(image, { x: (width - drawnWidth) / 2, y: (height - drawnHeight) / 2, width: drawnWidth, height: drawnHeight });
}

async function burnFields(document: PDFDocument, fields: FieldToBurn[], fonts: Fonts, facts: CertificateFacts) {
  const pages = document.getPages();
  const images = new Map<string, PDFImage>();
  const embedPng = async (png: Buffer) => {
    const key = createHash('sha256').update(png).digest('hex');
    let image = images.get(key);
    if (!image) {
      image = await document.embedPng(png);
      images.set(key, image);
    }
    return image;
  };
  for (const field of fields) {
    const page = pages[field.page - 1];
    if (!page || !Number.isInteger(field.page)) throw new Error(`A ${field.type} field is on page ${field.page}, but the document has ${pages.length} pages.`);
    const image = field.imagePng && ['signature', 'initials', 'notary_signature'].includes(field.type) ? await embedPng(field.imagePng) : null;
    withFieldFrame(page, field, (width, height) => {
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
          drawSeal(page, fonts, facts, width / 2, height / 2, (Math.min(width, height) / 2) * 0.96);
          break;
        case 'notarial_certificate':
          drawTextInBox(page, getCertificateBlockText(facts), { x: 2, y: 2, width: width - 4, height: height - 4 }, fonts.serif, { maxSize: 10 });
          break;
      }
    });
  }
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
    if (form.getFields().length > 0) form.flatten();
  } catch {
    // keep the form
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Burns the filled fields into a copy of the original and appends the notarial certificate and
 * the audit certificate. Saved without object streams, ready for signPdf (which must come last).
 */
export async function renderNotarizedPdf(input: { original: Buffer; fields: FieldToBurn[]; certificate: CertificateFacts; audit: AuditFacts }): Promise<{ pdf: Buffer; pageCount: number }> {
  const document = await PDFDocument.load(input.original);
  const [regular, bold, italic, serif, serifBold, mono] = await Promise.all([
    document.embedFont(StandardFonts.Helvetica),
    document.embedFont(StandardFonts.HelveticaBold),
    document.embedFont(StandardFonts.TimesRomanItalic),
    document.embedFont(StandardFonts.TimesRoman),
    document.embedFont(StandardFonts.TimesRomanBold),
    document.embedFont(StandardFonts.Courier),
  ]);
  const fonts: Fonts = { regular, bold, italic, serif, serifBold, mono };
  flattenForm(document);
  await burnFields(document, input.fields, fonts, input.certificate);
  const signatureImage = input.certificate.notarySignaturePng ? await document.embedPng(input.certificate.notarySignaturePng) : null;
  addNotarialCertificatePage(document, fonts, input.certificate, input.audit.documentName, signatureImage, (page, cx, cy, radius) =>
    drawSeal(page, fonts, input.certificate, cx, cy, radius),
  );
  addAuditPages(document, fonts, input.audit, input.certificate.notarizedAt);
  document.setProducer('Open RON (pdf-lib)');
  document.setModificationDate(input.certificate.notarizedAt);
  const pdf = Buffer.from(await document.save({ useObjectStreams: false }));
  return { pdf, pageCount: document.getPageCount() };
}
