import { degrees, rgb, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';
import { formatFieldDate } from '#shared/dates.ts';
import { drawLine, formatNumber, isStandardText, layoutRuns, measureText, pushContent, sanitizeForFont, type Fonts } from './pdf-text.ts';
import { getStateName, type CertificateFacts } from './certificate-wording.ts';
import type { DocumentAssets } from './pdf-assets.ts';

/** The notary's seal, drawn as vector graphics: two circles, the notary's name along the top, the state along the bottom. */

const sealInk = rgb(0.09, 0.2, 0.52);

/**
 * The text's pieces as they go round the arc: a character (grapheme) at a time, except a run fontkit
 * shapes and orders (Arabic, Hebrew, Devanagari), which stays whole so its letters join.
 */
function splitForArc(font: PDFFont, text: string): Array<{ font: PDFFont; text: string }> {
  const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
  return layoutRuns(font, text).flatMap((run) =>
    run.isShaped ? [run] : Array.from(graphemes.segment(run.text), (piece) => ({ font: run.font, text: piece.segment })),
  );
}

function drawArcText(
  page: PDFPage,
  text: string,
  options: { cx: number; cy: number; radius: number; font: PDFFont; size: number; side: 'top' | 'bottom'; color: RGB },
) {
  const { cx, cy, radius, font, size, side, color } = options;
  const pieces = splitForArc(font, text);
  const widths = pieces.map((piece) => measureText(piece.font, piece.text, size));
  const total = widths.reduce((sum, width) => sum + width, 0);
  // Top: clockwise from the left, glyphs upright outwards. Bottom: anticlockwise, glyphs upright inwards.
  const direction = side === 'top' ? -1 : 1;
  let angle = (side === 'top' ? Math.PI / 2 : (3 * Math.PI) / 2) - (direction * total) / radius / 2;
  pieces.forEach((piece, index) => {
    const width = widths[index] ?? 0;
    const centre = angle + (direction * width) / 2 / radius;
    const rotation = side === 'top' ? centre - Math.PI / 2 : centre + Math.PI / 2;
    const x = cx + radius * Math.cos(centre) - (width / 2) * Math.cos(rotation);
    const y = cy + radius * Math.sin(centre) - (width / 2) * Math.sin(rotation);
    page.drawText(piece.text, { x, y, size, font: piece.font, color, rotate: degrees((rotation * 180) / Math.PI) });
    angle += (direction * width) / radius;
  });
}

function fitArcSize(font: PDFFont, text: string, radius: number, maxSize: number, maxAngle: number): number {
  const widthAtOne = measureText(font, text, 1);
  return widthAtOne === 0 ? maxSize : Math.min(maxSize, (radius * maxAngle) / widthAtOne);
}

/** All the seal shows: drawSeal reads nothing else, so these (and the radius) are its cache key. */
type SealFacts = Pick<CertificateFacts, 'notaryName' | 'commissionState' | 'commissionNumber' | 'commissionExpiresOn'>;

/**
 * The seal drawn from a Form XObject prepared once per process for the same facts and radius
 * (pdf-assets.ts): the second seal of a notary costs one XObject reference instead of ~60 drawing
 * operations. A changed name or commission is a new key, never a stale seal.
 */
export function drawSealOnce(assets: DocumentAssets, page: PDFPage, facts: SealFacts, cx: number, cy: number, radius: number) {
  const sealFacts: SealFacts = {
    notaryName: facts.notaryName,
    commissionState: facts.commissionState,
    commissionNumber: facts.commissionNumber,
    commissionExpiresOn: facts.commissionExpiresOn,
  };
  const { bold, regular } = assets.fonts;
  if (
    !isStandardText(bold, sanitizeForFont(bold, sealFacts.notaryName.toUpperCase())) ||
    !isStandardText(regular, sanitizeForFont(regular, sealFacts.commissionNumber))
  ) {
    // A name outside Windows-1252 is printed with embedded subset fonts, which belong to one document: drawn here, not prepared once.
    pushContent(page, `q 1 0 0 1 ${formatNumber(cx)} ${formatNumber(cy)} cm`);
    drawSeal(page, assets.fonts, sealFacts, 0, 0, radius);
    pushContent(page, 'Q');
    return;
  }
  const key = `seal:${JSON.stringify([sealFacts.notaryName, sealFacts.commissionState, sealFacts.commissionNumber, sealFacts.commissionExpiresOn, radius])}`;
  assets.drawPreparedForm(page, key, radius + 2, cx, cy, (scratchPage, fonts) => drawSeal(scratchPage, fonts, sealFacts, 0, 0, radius));
}

/** A round notary seal centred on (cx, cy), in the page's current coordinate system. */
export function drawSeal(page: PDFPage, fonts: Fonts, facts: SealFacts, cx: number, cy: number, radius: number) {
  const border = Math.max(0.6, radius * 0.035);
  page.drawCircle({ x: cx, y: cy, size: radius - border / 2, borderWidth: border, borderColor: sealInk });
  page.drawCircle({ x: cx, y: cy, size: radius * 0.7, borderWidth: Math.max(0.4, border * 0.5), borderColor: sealInk });
  const name = sanitizeForFont(fonts.bold, facts.notaryName.toUpperCase()).trim() || 'NOTARY';
  const state = sanitizeForFont(fonts.bold, `STATE OF ${getStateName(facts.commissionState).replace(/^the /, '').toUpperCase()}`);
  const ringSize = radius * 0.15;
  const topSize = fitArcSize(fonts.bold, name, radius * 0.8, ringSize, Math.PI * 0.9);
  const bottomSize = fitArcSize(fonts.bold, state, radius * 0.9, ringSize, Math.PI * 0.7);
  drawArcText(page, name, { cx, cy, radius: radius * 0.85 - topSize * 0.35, font: fonts.bold, size: topSize, side: 'top', color: sealInk });
  drawArcText(page, state, { cx, cy, radius: radius * 0.85 + bottomSize * 0.35, font: fonts.bold, size: bottomSize, side: 'bottom', color: sealInk });
  const inner = radius * 0.62;
  const centreLines: Array<{ text: string; font: PDFFont; size: number }> = [
    { text: 'NOTARY PUBLIC', font: fonts.bold, size: radius * 0.13 },
    { text: `Comm. No. ${facts.commissionNumber}`, font: fonts.regular, size: radius * 0.1 },
    { text: `Expires ${formatFieldDate(facts.commissionExpiresOn, facts.commissionState)}`, font: fonts.regular, size: radius * 0.1 },
  ];
  let baseline = cy + radius * 0.12;
  for (const line of centreLines) {
    const text = sanitizeForFont(line.font, line.text);
    const size = Math.min(line.size, (inner * 1.8) / Math.max(1, measureText(line.font, text, 1)));
    drawLine(page, text, { x: cx - measureText(line.font, text, size) / 2, y: baseline, size, font: line.font, color: sealInk });
    baseline -= radius * 0.2;
  }
  page.drawLine({
    start: { x: cx - inner * 0.75, y: cy + radius * 0.33 },
    end: { x: cx + inner * 0.75, y: cy + radius * 0.33 },
    thickness: Math.max(0.3, border * 0.4),
    color: sealInk,
  });
}
