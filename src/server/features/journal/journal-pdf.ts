import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { JournalEntry } from '#shared/journal.ts';
import { describeIdDocument, formatJournalTime } from '#shared/journal-words.ts';
import { drawLine, sanitizeForFont, wrapText } from '#server/features/notarization/certificate-pages.ts';
import { embedFallbackFonts } from '#server/features/notarization/pdf-fonts.ts';

/**
 * The journal as a PDF the notary can keep: a cover block naming the notary, the
 * selection and the SHA-256 of the JSON export of the same selection, then every entry with its
 * addenda. Entries are drawn as they are read, a batch at a time; signing is the caller's last step.
 */

const pageSize: [number, number] = [612, 792];
const margin = 48;
const textWidth = pageSize[0] - margin * 2;
const bodySize = 8.5;
const lineGap = 2.5;
const brand = rgb(0, 0.2, 0.357);
const ink = rgb(0.1, 0.1, 0.12);
const muted = rgb(0.38, 0.38, 0.42);

export interface JournalPdfCover {
  notaryName: string;
  notaryEmail: string;
  commission: string;
  exportedAt: Date;
  selection: string;
  entryCount: number;
  jsonSha256: string;
  signedBy: string;
  /** The notary's zone from their profile, for the dates; UTC when it names none. */
  timeZone: string | null;
}

interface Writer {
  document: PDFDocument;
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
  page: PDFPage;
  y: number;
}

function addPage(writer: Writer) {
  writer.page = writer.document.addPage(pageSize);
  writer.y = pageSize[1] - margin;
}

/** Writes wrapped text, turning the page when it is full. */
function writeText(writer: Writer, text: string, options: { font?: PDFFont; size?: number; color?: typeof ink; indent?: number } = {}) {
  const font = options.font ?? writer.regular;
  const size = options.size ?? bodySize;
  const indent = options.indent ?? 0;
  for (const line of wrapText(sanitizeForFont(font, text), font, size, textWidth - indent)) {
    if (writer.y - size < margin + 14) addPage(writer);
    writer.y -= size;
    drawLine(writer.page, line, { x: margin + indent, y: writer.y, size, font, color: options.color ?? ink });
    writer.y -= lineGap;
  }
}

function money(cents: number | null): string {
  return cents === null ? 'none recorded' : `$${(cents / 100).toFixed(2)}`;
}

export async function createJournalPdf(cover: JournalPdfCover) {
  /** Dates as people read them ("26 November 2026, 22:22 UTC"), in the notary's zone when known. */
  const when = (iso: string | null) => formatJournalTime(iso, cover.timeZone);
  const document = await PDFDocument.create();
  document.setTitle(`Electronic notary journal of ${cover.notaryName}`);
  document.setAuthor(cover.notaryName);
  document.setCreator('Open RON');
  document.setCreationDate(cover.exportedAt);
  document.setModificationDate(cover.exportedAt);
  const writer: Writer = {
    document,
    regular: await document.embedFont(StandardFonts.Helvetica),
    bold: await document.embedFont(StandardFonts.HelveticaBold),
    mono: await document.embedFont(StandardFonts.Courier),
    page: document.addPage(pageSize),
    y: pageSize[1] - margin,
  };
  writeText(writer, 'Electronic notary journal', { font: writer.bold, size: 18, color: brand });
  writer.y -= 6;
  writeText(writer, `Notary: ${cover.notaryName} (${cover.notaryEmail})`, { size: 10 });
  writeText(writer, `Commission: ${cover.commission}`, { size: 10 });
  writeText(writer, `Exported: ${when(cover.exportedAt.toISOString())} by Open RON`, { size: 10 });
  writeText(writer, `Selection: ${cover.selection}`, { size: 10 });
  writeText(writer, `Entries: ${cover.entryCount}`, { size: 10 });
  writer.y -= 6;
  writeText(writer, 'SHA-256 of the JSON export of the same selection (notary-journal.json):', { font: writer.bold, size: 10 });
  writeText(writer, cover.jsonSha256, { font: writer.mono, size: 10 });
  writeText(
    writer,
    'The two files prove each other: this PDF is digitally signed, and the JSON file downloaded for the same selection, with no entry or addendum added since, has exactly this SHA-256 (sha256sum notary-journal.json).',
    { color: muted },
  );
  writeText(writer, `Signed by: ${cover.signedBy}.`, { color: muted });
  writer.y -= 10;
  return {
    /** Draws one entry, its addenda included. */
    writeEntry(entry: JournalEntry, position: number) {
      const { content } = entry;
      if (writer.y < margin + 120) addPage(writer);
      writer.y -= 4;
      writer.page.drawLine({ start: { x: margin, y: writer.y }, end: { x: pageSize[0] - margin, y: writer.y }, thickness: 0.5, color: muted });
      writer.y -= 4;
      writeText(writer, `${position}. ${when(content.notarizedAt)}: ${content.actType}${entry.isTest ? ' (test entry)' : ''}`, { font: writer.bold, size: 10 });
      const evidence = content.identityEvidence;
      const lines = [
        `Document: ${content.documentName}${content.documentType ? `, ${content.documentType}` : ''}${content.documentDate ? `, dated ${content.documentDate}` : ''}${content.documentSha256 ? ` (sealed SHA-256 ${content.documentSha256})` : ''}`,
        `Signer: ${content.signerName}, ${content.signerEmail}; address: ${content.signerAddress ?? 'not recorded'}`,
        `Identity: ${content.isIdentityProven ? '' : '(not proven) '}${content.identityMethod}`,
        evidence
          ? `ID presented: ${[describeIdDocument(evidence.documentType), evidence.issuer, evidence.expiryDate ? `expires ${evidence.expiryDate}` : null, evidence.documentNumber ?? evidence.documentNumberNote].filter(Boolean).join(', ')}`
          : null,
        content.credibleWitnesses.length
          ? `Credible witnesses: ${content.credibleWitnesses.map((witness) => `${witness.name} (${witness.address ?? 'address not recorded'})`).join('; ')}`
          : null,
        content.witnesses.length ? `Witnesses: ${content.witnesses.map((witness) => `${witness.name}: ${witness.identityMethod}`).join('; ')}` : null,
        `Recording: ${content.recordingReference ?? 'none recorded'}`,
        `Fee: ${money(content.feeCents)}`,
        content.notes ? `Notes: ${content.notes}` : null,
        `Entry ${entry.id}; finalized ${when(entry.finalizedAt)}${content.commissionState ? ` under ${content.commissionState} rules` : ''}; kept until ${entry.keptUntil?.slice(0, 10) ?? 'not set'}`,
      ];
      for (const line of lines) if (line) writeText(writer, line, { indent: 10 });
      for (const addendum of entry.addenda) writeText(writer, `Addendum of ${when(addendum.createdAt)}: ${addendum.text}`, { indent: 10, color: brand });
    },
    /** Numbers the pages and returns the unsigned file (saved so that a signature can follow). */
    async finish(): Promise<Buffer> {
      const pages = document.getPages();
      pages.forEach((page, index) => {
        page.drawText(`Page ${index + 1} of ${pages.length}`, { x: margin, y: margin - 20, size: 7.5, font: writer.regular, color: muted });
      });
      // The subsets of the Noto faces the journal's names needed (pdf-fonts.ts).
      await embedFallbackFonts(document);
      return Buffer.from(await document.save({ useObjectStreams: false }));
    },
  };
}
