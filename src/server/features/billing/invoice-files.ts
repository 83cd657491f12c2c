import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { formatPeriod, invoiceStatusLabels } from '#shared/billing.ts';
import { formatDate } from '#shared/dates.ts';
import { csvField } from '#shared/journal.ts';
import { formatCents, priceUnitLabels } from '#shared/pricing.ts';
import { drawLine, measureText, sanitizeForFont, wrapText } from '#server/features/notarization/pdf-text.ts';
import { embedFallbackFonts } from '#server/features/notarization/pdf-fonts.ts';
import type { WholeInvoice } from './invoices.service.ts';

/**
 * An invoice as a PDF (pdf-lib) and as CSV. Every amount is the integer cents of the database,
 * printed with formatCents; the totals printed are the invoice's, which equal the sum of its lines.
 */

const pageSize: [number, number] = [612, 792];
const margin = 48;
const brand = rgb(0, 0.2, 0.357);
const ink = rgb(0.1, 0.1, 0.12);
const muted = rgb(0.38, 0.38, 0.42);

export interface PlatformDetails {
  name: string;
  /** Where the platform is reached: its public address. */
  url: string | null;
}

interface Writer {
  document: PDFDocument;
  regular: PDFFont;
  bold: PDFFont;
  page: PDFPage;
  y: number;
}

function newPage(writer: Writer) {
  writer.page = writer.document.addPage(pageSize);
  writer.y = pageSize[1] - margin;
}

function ensureRoom(writer: Writer, height: number) {
  if (writer.y - height < margin + 20) newPage(writer);
}

function write(writer: Writer, text: string, options: { font?: PDFFont; size?: number; color?: typeof ink; x?: number; width?: number } = {}) {
  const font = options.font ?? writer.regular;
  const size = options.size ?? 9;
  const x = options.x ?? margin;
  for (const line of wrapText(sanitizeForFont(font, text), font, size, options.width ?? pageSize[0] - margin - x)) {
    ensureRoom(writer, size + 3);
    writer.y -= size;
    drawLine(writer.page, line, { x, y: writer.y, size, font, color: options.color ?? ink });
    writer.y -= 3;
  }
}

/** One row of amounts: text at the left, figures right-aligned in their columns. */
function writeRow(writer: Writer, left: string, figures: string[], options: { font?: PDFFont; size?: number; indent?: number; color?: typeof ink } = {}) {
  const font = options.font ?? writer.regular;
  const size = options.size ?? 9;
  const columns = [pageSize[0] - margin - 150, pageSize[0] - margin - 75, pageSize[0] - margin];
  const leftX = margin + (options.indent ?? 0);
  const leftWidth = columns[0]! - 60 - leftX;
  const lines = wrapText(sanitizeForFont(font, left), font, size, leftWidth);
  ensureRoom(writer, (size + 3) * lines.length);
  lines.forEach((line, index) => {
    writer.y -= size;
    drawLine(writer.page, line, { x: leftX, y: writer.y, size, font, color: options.color ?? ink });
    if (index === 0) {
      const shown = figures.slice(-columns.length);
      shown.forEach((figure, column) => {
        const right = columns[columns.length - shown.length + column]!;
        const text = sanitizeForFont(font, figure);
        drawLine(writer.page, text, { x: right - measureText(font, text, size), y: writer.y, size, font, color: options.color ?? ink });
      });
    }
    writer.y -= 3;
  });
}

function rule(writer: Writer) {
  ensureRoom(writer, 8);
  writer.y -= 4;
  writer.page.drawLine({ start: { x: margin, y: writer.y }, end: { x: pageSize[0] - margin, y: writer.y }, thickness: 0.5, color: muted });
  writer.y -= 4;
}

const day = (iso: string | null) => (iso ? formatDate(iso, { locale: 'en-US', timeZone: 'UTC' }) : null);

/** The invoice as a PDF: who bills whom, the number, dates and status, each job with its lines, and the totals. */
export async function renderInvoicePdf(invoice: WholeInvoice, platform: PlatformDetails, now = new Date()): Promise<Buffer> {
  const { summary, billedTo } = invoice;
  const document = await PDFDocument.create();
  const title = summary.number ? `Invoice ${summary.number}` : `Draft invoice for ${formatPeriod(summary.period)}`;
  document.setTitle(`${title}: ${summary.companyName}`);
  document.setAuthor(platform.name);
  document.setCreator(platform.name);
  document.setCreationDate(now);
  document.setModificationDate(now);
  const writer: Writer = {
    document,
    regular: await document.embedFont(StandardFonts.Helvetica),
    bold: await document.embedFont(StandardFonts.HelveticaBold),
    page: document.addPage(pageSize),
    y: pageSize[1] - margin,
  };
  write(writer, platform.name, { font: writer.bold, size: 16, color: brand });
  if (platform.url) write(writer, platform.url, { color: muted });
  writer.y -= 10;
  write(writer, title, { font: writer.bold, size: 14 });
  const status = summary.isOverdue ? 'Issued, overdue' : invoiceStatusLabels[summary.status];
  const facts = [
    `Status: ${status}`,
    `Period: ${formatPeriod(summary.period)}`,
    day(summary.issuedAt) ? `Issued: ${day(summary.issuedAt)}` : 'Not issued yet: a draft, not a request for payment.',
    day(summary.dueAt) ? `Due: ${day(summary.dueAt)}` : null,
    day(summary.paidAt) ? `Paid: ${day(summary.paidAt)}${invoice.paymentReference ? ` (reference ${invoice.paymentReference})` : ''}` : null,
    day(summary.voidedAt) ? `Void since ${day(summary.voidedAt)}: ${invoice.voidReason ?? 'no reason recorded'}` : null,
  ];
  for (const fact of facts) if (fact) write(writer, fact);
  writer.y -= 8;
  write(writer, 'Billed to', { font: writer.bold, size: 10 });
  const place = [billedTo.city, billedTo.state].filter(Boolean).join(', ');
  for (const line of [billedTo.name, billedTo.addressLine, place || null, billedTo.contactEmail, billedTo.phone]) if (line) write(writer, line);
  writer.y -= 8;
  writeRow(writer, 'Item', ['Quantity', 'Unit amount', 'Amount'], { font: writer.bold });
  rule(writer);
  // A void invoice's charges left it for a draft of its month: its totals are what it said when issued.
  const isVoidWithTotals = summary.status === 'void' && invoice.jobs.length === 0 && summary.jobCount > 0;
  if (isVoidWithTotals) {
    write(
      writer,
      `When this invoice was voided, its charges (${summary.jobCount === 1 ? 'one job' : `${summary.jobCount} jobs`}) went back on a draft of ${formatPeriod(summary.period)}, to be invoiced again; they are listed on that invoice. The totals below are what this invoice said when it was issued; nothing is owed on it.`,
      { color: muted },
    );
  } else if (invoice.jobs.length === 0) write(writer, 'No charges are on this invoice.', { color: muted });
  for (const job of invoice.jobs) {
    ensureRoom(writer, 40);
    writer.y -= 4;
    writeRow(writer, `${job.title} (completed ${day(job.chargedAt) ?? ''})`, [formatCents(job.totalCents)], { font: writer.bold });
    for (const line of job.lines) {
      writeRow(
        writer,
        `${line.label}: ${line.feeKind === 'notarial' ? 'notarial fee' : 'platform fee'}, ${priceUnitLabels[line.unit]}`,
        [String(line.quantity), formatCents(line.unitAmountCents), formatCents(line.amountCents)],
        { indent: 12 },
      );
    }
  }
  rule(writer);
  writeRow(writer, 'Notarial fees', [formatCents(summary.notarialFeeCents)]);
  writeRow(writer, 'Platform fees', [formatCents(summary.platformFeeCents)]);
  const totalLabel = `Total (${summary.jobCount === 1 ? 'one job' : `${summary.jobCount} jobs`})${isVoidWithTotals ? ' as issued, now void' : ''}`;
  writeRow(writer, totalLabel, [formatCents(summary.totalCents)], {
    font: writer.bold,
    size: 11,
  });
  writer.y -= 8;
  write(
    writer,
    'Notarial fees are the notaries’ fees for their notarial acts, within the limits state law sets; platform fees are the platform’s own charges.',
    {
      color: muted,
      size: 8,
    },
  );
  const pages = document.getPages();
  pages.forEach((page, index) => {
    page.drawText(`${title}, page ${index + 1} of ${pages.length}`, { x: margin, y: margin - 20, size: 7.5, font: writer.regular, color: muted });
  });
  await embedFallbackFonts(document);
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

export const invoiceCsvColumns = [
  'invoice_number',
  'company',
  'period',
  'status',
  'job_id',
  'job_title',
  'completed_on',
  'item',
  'fee_kind',
  'unit',
  'quantity',
  'unit_amount_cents',
  'amount_cents',
] as const;

/** The invoice's lines as CSV (RFC 4180), a line per charge; a field a spreadsheet would run as a formula defused (csvField). */
export function renderInvoiceCsv(invoice: WholeInvoice): string {
  const { summary } = invoice;
  const rows = [invoiceCsvColumns.map(csvField).join(',')];
  for (const job of invoice.jobs) {
    for (const line of job.lines) {
      rows.push(
        [
          summary.number ?? 'draft',
          summary.companyName,
          summary.period,
          summary.status,
          job.jobId,
          job.title,
          job.chargedAt.slice(0, 10),
          line.label,
          line.feeKind,
          line.unit,
          line.quantity,
          line.unitAmountCents,
          line.amountCents,
        ]
          .map(csvField)
          .join(','),
      );
    }
  }
  return `${rows.join('\r\n')}\r\n`;
}

/** A file name for a download: the number, or the company and month of a draft, in plain characters. */
export function invoiceFileName(summary: WholeInvoice['summary'], extension: 'pdf' | 'csv'): string {
  const base = summary.number ? `invoice-${summary.number}` : `draft-invoice-${summary.companyName}-${summary.period}`;
  return `${base
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 80)}.${extension}`;
}
