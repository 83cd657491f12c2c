import type { PDFDocument, PDFFont, RGB } from 'pdf-lib';
import { PDFName, PDFNumber, PDFPage, rgb } from 'pdf-lib';
import { describeAuditEvent, type AuditSentenceEvent } from '#shared/audit-sentences.ts';
import { toSingleLine } from '#shared/text.ts';
import {
  communicationTechnologySentence,
  formatAuditTime,
  formatDateTime,
  formatIsoDay,
  getCertificateWording,
  getNotNotarialNotice,
  getStateName,
  type CertificateFacts,
} from './certificate-wording.ts';
import { writeInterruptions, writeSegmentAppendix, writeSegmentSummary, type RecordingFacts } from './certificate-recording.ts';
import { drawEmbeddedImage, type EmbeddedImage } from './pdf-assets.ts';
import { drawLine, formatLineInText, ink, newTextState, pushContent, sanitizeForFont, strokeLine, wrapText, type Fonts, type TextState } from './pdf-text.ts';

export { drawLine, drawTextInBox, ink, measureText, sanitizeForFont, wrapText, type Fonts } from './pdf-text.ts';

/**
 * The pages appended to a notarized document (the notarial certificate and the audit
 * certificate) and the text layout they and the burned fields share: what a standard font can
 * encode and wrapping. Their words come from certificate-wording.ts.
 */

const letter: [number, number] = [612, 792];
const cropBoxKey = PDFName.of('CropBox');
const rotateKey = PDFName.of('Rotate');
const margin = 72;
const muted = rgb(0.38, 0.38, 0.42);

export interface AuditFacts {
  jobId: string;
  jobTitle: string;
  documentName: string;
  originalSha256: string;
  signers: Array<{ name: string; role: string; signedAt: Date | null; identityMethod: string }>;
  recordingReference: string | null;
  /** Each person's time out of the recorded call and the stored segments (decision 033); null without a recording. */
  recording?: RecordingFacts | null;
  /** The job's trail, oldest first; each is printed as its sentence (audit-sentences.ts). */
  events: Array<AuditSentenceEvent & { at: Date }>;
}

// ---------------------------------------------------------------------------------------------
// Appended pages

/**
 * Writes top to bottom, starting a new page when the current one is full. The lines of a page are
 * collected as content-stream text and appended as one operator (flush), not one per line.
 */
class PageWriter {
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private pending = '';
  /** What the text object of the pending lines has set so far. */
  private text: TextState = newTextState();
  y = 0;

  constructor(
    private readonly document: PDFDocument,
    private readonly continuationTitle: string,
    private readonly fonts: Fonts,
  ) {
    this.addPage(false);
  }

  /** The current page, its collected lines written: what is drawn on it next comes after them. */
  get current(): PDFPage {
    this.flush();
    return this.page;
  }

  /** Appends the collected lines to the current page's content: one text object, each line setting only the font and colour that changed. */
  flush() {
    if (!this.pending) return;
    pushContent(this.page, `q BT ${this.pending} ET Q`);
    this.pending = '';
    this.text = newTextState();
  }

  private line(text: string, options: { x: number; y: number; size: number; font: PDFFont; color: RGB }) {
    const line = formatLineInText(this.page, text, options, this.text);
    if (line === null) {
      this.flush();
      drawLine(this.page, text, options);
    } else this.pending += this.pending ? `\n${line}` : line;
  }

  private addPage(isContinuation: boolean) {
    this.flush();
    // pdf-lib's new page is US letter already: added as it is, without setSize (which reads and compares all five boxes).
    this.page = this.document.addPage(PDFPage.create(this.document));
    // Its own crop box and turn: a page inherits both from the page tree (ISO 32000-2, 7.7.3.4), and an
    // original's tree may crop or turn its pages (found by attack: the certificate came out cut and turned).
    this.page.node.set(cropBoxKey, this.document.context.obj([0, 0, letter[0], letter[1]]));
    this.page.node.set(rotateKey, PDFNumber.of(0));
    this.pages.push(this.page);
    this.y = letter[1] - margin;
    if (isContinuation) this.heading(this.continuationTitle, 11);
  }

  /** Goes on on a fresh page (an appendix). */
  startPage() {
    this.addPage(true);
  }

  ensure(height: number) {
    if (this.y - height < margin) this.addPage(true);
  }

  heading(text: string, size: number, font: PDFFont = this.fonts.bold) {
    this.ensure(size * 1.6);
    this.line(sanitizeForFont(font, text), { x: margin, y: this.y - size, size, font, color: ink });
    this.y -= size * 1.8;
  }

  paragraph(text: string, options: { font?: PDFFont; size?: number; indent?: number; color?: RGB; gapAfter?: number } = {}) {
    const font = options.font ?? this.fonts.regular;
    const size = options.size ?? 10;
    const indent = options.indent ?? 0;
    const lineHeight = size * 1.35;
    for (const line of wrapText(sanitizeForFont(font, text), font, size, letter[0] - 2 * margin - indent)) {
      this.ensure(lineHeight);
      this.line(line, { x: margin + indent, y: this.y - size, size, font, color: options.color ?? ink });
      this.y -= lineHeight;
    }
    this.y -= options.gapAfter ?? 0;
  }

  /** A label in the left column and a wrapped value on the right. */
  row(label: string, value: string, valueFont?: PDFFont, valueSize = 10) {
    const labelWidth = 130;
    const font = valueFont ?? this.fonts.regular;
    const lines = wrapText(sanitizeForFont(font, value), font, valueSize, letter[0] - 2 * margin - labelWidth);
    const lineHeight = Math.max(valueSize, 10) * 1.35;
    this.ensure(lineHeight * Math.min(lines.length, 3));
    this.line(sanitizeForFont(this.fonts.bold, label), { x: margin, y: this.y - 10, size: 10, font: this.fonts.bold, color: muted });
    for (const line of lines) {
      this.ensure(lineHeight);
      this.line(line, { x: margin + labelWidth, y: this.y - 10, size: valueSize, font, color: ink });
      this.y -= lineHeight;
    }
  }

  /** One line of a table: each cell wrapped in its column, the row as tall as its tallest cell. */
  tableRow(cells: Array<{ text: string; width: number; font?: PDFFont }>, size: number) {
    const lineHeight = size * 1.35;
    const wrapped: Array<{ font: PDFFont; lines: string[] }> = [];
    let rowLines = 0;
    for (const cell of cells) {
      const font = cell.font ?? this.fonts.regular;
      const lines = wrapText(sanitizeForFont(font, cell.text), font, size, cell.width - 6);
      wrapped.push({ font, lines });
      rowLines = Math.max(rowLines, lines.length);
    }
    this.ensure(lineHeight * rowLines);
    let x = margin;
    for (let index = 0; index < wrapped.length; index += 1) {
      const { font, lines } = wrapped[index] as { font: PDFFont; lines: string[] };
      for (let lineIndex = 0; lineIndex < lines.length; lineIndex += 1) {
        this.line(lines[lineIndex] ?? '', { x, y: this.y - size - lineIndex * lineHeight, size, font, color: ink });
      }
      x += cells[index]?.width ?? 0;
    }
    this.y -= lineHeight * rowLines + size * 0.25;
  }

  gap(height: number) {
    this.y -= height;
  }
}

/** Where the seal goes on the certificate page: the caller draws it (seal.ts), centred on (cx, cy). */
export type DrawSealAt = (page: PDFPage, cx: number, cy: number, radius: number) => void;

export function addNotarialCertificatePage(
  document: PDFDocument,
  fonts: Fonts,
  facts: CertificateFacts,
  documentName: string,
  signatureImage: EmbeddedImage | null,
  drawSealAt: DrawSealAt,
): PDFPage[] {
  const { isNotarialAct } = facts.notarialFacts;
  const writer = new PageWriter(document, isNotarialAct ? 'Notarial certificate (continued)' : 'Signing certificate (continued)', fonts);
  const state = getStateName(facts.commissionState);
  const timeZone = facts.timeZone ?? 'UTC';
  if (isNotarialAct) {
    writer.heading('NOTARIAL CERTIFICATE', 18, fonts.serifBold);
    writer.paragraph(`${facts.actLabel}, remote online notarization`, { font: fonts.serif, size: 12, color: muted, gapAfter: 14 });
  } else {
    writer.heading('SIGNING CERTIFICATE: NOT A NOTARIAL ACT', 16, fonts.serifBold);
    writer.paragraph(`Requested act: ${facts.actLabel}. It was not performed as a notarial act.`, { font: fonts.serif, size: 12, color: muted, gapAfter: 14 });
  }
  writer.paragraph(`State of ${state}`, { font: fonts.serif, size: 12 });
  writer.paragraph(`County of ${facts.county}`, { font: fonts.serif, size: 12, gapAfter: 14 });
  writer.paragraph(getCertificateWording(facts), { font: fonts.serif, size: 12, gapAfter: 10 });
  if (isNotarialAct) writer.paragraph(communicationTechnologySentence, { font: fonts.serif, size: 12, gapAfter: 10 });
  else writer.paragraph(getNotNotarialNotice(facts.notarialFacts), { font: fonts.serifBold, size: 12, gapAfter: 10 });
  writer.paragraph(`Record: ${documentName}`, { font: fonts.serif, size: 11, color: muted });
  writer.paragraph(`Verification ID: ${facts.verification.id}`, { font: fonts.mono, size: 9, color: muted });
  writer.paragraph(`Verify at: ${facts.verification.url}`, { font: fonts.mono, size: 9, color: muted, gapAfter: 24 });

  writer.ensure(190);
  const page = writer.current;
  const lineY = writer.y - 70;
  if (signatureImage) {
    const scale = Math.min(220 / signatureImage.width, 56 / signatureImage.height);
    drawEmbeddedImage(page, signatureImage, { x: margin, y: lineY + 4, width: signatureImage.width * scale, height: signatureImage.height * scale });
  }
  strokeLine(page, { x: margin, y: lineY }, { x: margin + 250, y: lineY }, 0.8);
  const details = [
    `${facts.notaryName}, Notary Public`,
    `State of ${state}, County of ${facts.county}`,
    `Commission No. ${facts.commissionNumber}`,
    `My commission expires ${formatIsoDay(facts.commissionExpiresOn)}`,
    `${isNotarialAct ? 'Notarized' : 'Completed'} ${formatDateTime(facts.notarizedAt, timeZone)}`,
  ];
  details.forEach((line, index) => {
    const font = index === 0 ? fonts.serifBold : fonts.serif;
    drawLine(page, sanitizeForFont(font, line), { x: margin, y: lineY - 16 - index * 15, size: 11, font, color: ink });
  });
  // The seal certifies a notarial act: none is drawn on a certificate that says there was none.
  if (isNotarialAct) drawSealAt(page, letter[0] - margin - 75, lineY - 20, 72);
  writer.y = lineY - 16 - details.length * 15 - 40;
  writer.paragraph(
    "This certificate and the record above are sealed with the notary's digital certificate. Any change to this file after signing is reported by PDF readers as an invalid signature.",
    { size: 9, color: muted },
  );
  writer.flush();
  return writer.pages;
}

export function addAuditPages(document: PDFDocument, fonts: Fonts, audit: AuditFacts, facts: CertificateFacts): PDFPage[] {
  const { isNotarialAct } = facts.notarialFacts;
  const writer = new PageWriter(document, 'Audit certificate (continued)', fonts);
  // Times are written for people, in the certificate's zone (UTC unless the facts name one).
  const timeZone = facts.timeZone ?? 'UTC';
  const at = (date: Date) => formatAuditTime(date, timeZone);
  const { recording } = audit;
  writer.heading('AUDIT CERTIFICATE', 18);
  writer.paragraph(isNotarialAct ? 'Remote online notarization record' : 'Record of electronic signing, not a notarial act', { color: muted, gapAfter: 12 });
  if (!isNotarialAct) writer.paragraph(getNotNotarialNotice(facts.notarialFacts), { font: fonts.bold, size: 11, gapAfter: 12 });
  writer.row('Job', audit.jobTitle);
  writer.row('Job ID', audit.jobId, fonts.mono, 9);
  writer.row('Document', audit.documentName);
  writer.row('Original SHA-256', audit.originalSha256, fonts.mono, 8.5);
  writer.row('Verification ID', facts.verification.id, fonts.mono, 9);
  writer.row(isNotarialAct ? 'Notarized at' : 'Completed at', at(facts.notarizedAt));
  writer.row('Recording', audit.recordingReference ?? 'None: no audio-video session was recorded');
  if (audit.recordingReference && recording) {
    writeInterruptions(writer, recording.people, timeZone);
    writeSegmentSummary(writer, recording, fonts);
  }
  writer.gap(12);

  writer.heading('Signers', 12);
  if (audit.signers.length === 0) writer.paragraph('No signers recorded.', { color: muted });
  for (const signer of audit.signers) {
    writer.ensure(40);
    writer.paragraph(signer.name, { font: fonts.bold });
    writer.paragraph(`Role: ${signer.role}. Signed: ${signer.signedAt ? at(signer.signedAt) : 'not signed'}.`, { indent: 12, size: 9 });
    writer.paragraph(`Identity: ${signer.identityMethod}`, { indent: 12, size: 9, gapAfter: 6 });
  }
  writer.gap(8);

  writer.heading('Events', 12);
  // Each stored segment is an event of the trail too; with a recording they are the appendix, not rows here.
  const events = recording ? audit.events.filter((event) => event.action !== 'recording.segment_saved') : audit.events;
  const segmentEvents = audit.events.length - events.length;
  if (segmentEvents > 0) {
    writer.paragraph(`The trail also holds one event for each stored recording segment (${segmentEvents}); the segments are listed in the appendix.`, {
      size: 9,
      color: muted,
      gapAfter: 4,
    });
  }
  if (events.length === 0) writer.paragraph('No events recorded.', { color: muted });
  const columns = [150, letter[0] - 2 * margin - 150];
  writer.tableRow(
    ['Time', 'What happened'].map((text, index) => ({ text, width: columns[index] ?? 0, font: fonts.bold })),
    8.5,
  );
  for (const event of events) {
    writer.tableRow(
      [
        { text: at(event.at), width: columns[0] ?? 0 },
        // A time inside a sentence (a scheduled time) is in the same zone. Names and document names
        // stored before the one-line rule (decision 009) stay on one line.
        { text: toSingleLine(describeAuditEvent(event, { locale: 'en-US', timeZone })), width: columns[1] ?? 0 },
      ],
      8.5,
    );
  }

  if (recording && recording.segments.length > 0) {
    writer.startPage();
    writeSegmentAppendix(writer, recording, fonts, timeZone);
  }

  writer.flush();
  const pageCount = writer.pages.length;
  writer.pages.forEach((page, index) => {
    const footer = `Audit certificate, page ${index + 1} of ${pageCount}. Job ${audit.jobId}.`;
    drawLine(page, sanitizeForFont(fonts.regular, footer), { x: margin, y: margin / 2, size: 8, font: fonts.regular, color: muted });
  });
  return writer.pages;
}
