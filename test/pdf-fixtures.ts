import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFHexString, StandardFonts } from 'pdf-lib';

/** A real PDF with the given number of text pages. */
export async function makePdf(pageCount = 1, title = 'Test document'): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pageCount; index += 1) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`${title}, page ${index + 1}`, { x: 72, y: 720, size: 14, font });
  }
  return Buffer.from(await pdf.save());
}

/** A multipart/form-data body with files (and optional fields, sent first unless fieldsLast) for app.inject. */
export function buildMultipart(
  files: Array<{ name: string; content: Buffer; contentType?: string }>,
  fields: Record<string, string> = {},
  options: { fieldsLast?: boolean } = {},
) {
  const boundary = `----ron${Math.random().toString(16).slice(2)}`;
  const fieldChunks = Object.entries(fields).map(([key, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`),
  );
  const fileChunks = files.flatMap((file) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\nContent-Type: ${file.contentType ?? 'application/pdf'}\r\n\r\n`,
    ),
    file.content,
    Buffer.from('\r\n'),
  ]);
  const chunks = options.fieldsLast ? [...fileChunks, ...fieldChunks] : [...fieldChunks, ...fileChunks];
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A file that starts like a PDF but is not one. */
export function makeBrokenPdf(): Buffer {
  return Buffer.from(`%PDF-1.7\n${'this is not a PDF body '.repeat(40)}\n%%EOF\n`);
}

/**
 * A one-page PDF with `streams` object streams, each a few hundred KB of Flate that unpacks to
 * `unpackedMb` MB of spaces: a decompression bomb a reader meets while it parses (decision 062).
 */
export function makeUnpackingBombPdf(unpackedMb: number, streams = 1): Buffer {
  const compressed = deflateSync(Buffer.alloc(unpackedMb * 1024 * 1024, 0x20), { level: 9 });
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (part: string | Buffer) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
    parts.push(bytes);
    length += bytes.length;
  };
  const object = (number: number, body: string | Buffer[]) => {
    offsets[number] = length;
    for (const part of [`${number} 0 obj\n`, ...(typeof body === 'string' ? [body] : body), '\nendobj\n']) push(part);
  };
  push('%PDF-1.7\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  for (let index = 0; index < streams; index += 1) {
    const header = Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`, 'latin1');
    object(4 + index, [header, compressed, Buffer.from('\nendstream', 'latin1')]);
  }
  const size = 4 + streams;
  const xref = length;
  const entries = Array.from({ length: size - 1 }, (_, index) => `${String(offsets[index + 1]).padStart(10, '0')} 00000 n \n`).join('');
  push(`xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/**
 * A PDF whose trailer names an encryption dictionary, as every password-protected PDF does
 * (the streams are not really enciphered; readers refuse it all the same).
 */
export async function makeEncryptedPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([612, 792]);
  const encryption = pdf.context.obj({
    Filter: 'Standard',
    V: 2,
    R: 3,
    Length: 128,
    P: -3904,
    O: PDFHexString.of('00'.repeat(32)),
    U: PDFHexString.of('00'.repeat(32)),
  });
  pdf.context.trailerInfo.Encrypt = pdf.context.register(encryption);
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

/** A PDF really encrypted with AES-256 by qpdf (user password "user"), or null where qpdf is not installed. */
export async function makeQpdfEncryptedPdf(): Promise<Buffer | null> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-qpdf-'));
  try {
    const input = path.join(directory, 'in.pdf');
    const output = path.join(directory, 'out.pdf');
    await fs.promises.writeFile(input, await makePdf(2, 'Secret'));
    await promisify(execFile)('qpdf', ['--encrypt', 'user', 'owner', '256', '--', input, output]);
    return await fs.promises.readFile(output);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}

/** The text of a PDF as pdftotext (poppler-utils) extracts it, UTF-8, white space collapsed. */
export async function readPdfText(bytes: Buffer): Promise<string> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-pdf-text-'));
  try {
    fs.writeFileSync(path.join(directory, 'out.pdf'), bytes);
    const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', path.join(directory, 'out.pdf'), '-']);
    return stdout.replace(/\s+/g, ' ');
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

/** A deed as pdf-lib writes it (no metadata of its own): "Deed of trust, page N" on each page, titled. */
export async function makeDeedPdf(options: { pageCount: number; useObjectStreams: boolean }): Promise<Buffer> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const font = await pdf.embedFont(StandardFonts.TimesRoman);
  for (let index = 0; index < options.pageCount; index += 1) {
    pdf.addPage([612, 792]).drawText(`Deed of trust, page ${index + 1}`, { x: 72, y: 720, size: 14, font });
  }
  pdf.setTitle('Deed of trust');
  return Buffer.from(await pdf.save({ useObjectStreams: options.useObjectStreams }));
}

/** qpdf's structural check of the file: its output, or an error naming what qpdf warned about. */
export async function checkPdfWithQpdf(pdf: Buffer): Promise<string> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-qpdf-check-'));
  try {
    const file = path.join(directory, 'check.pdf');
    await fs.promises.writeFile(file, pdf);
    const { stdout, stderr } = await promisify(execFile)('qpdf', ['--check', file]);
    if (/WARNING|error:/i.test(`${stdout}${stderr}`) || !stdout.includes('No syntax or stream encoding errors found')) {
      throw new Error(`qpdf --check found problems:\n${stdout}${stderr}`);
    }
    return stdout;
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}
