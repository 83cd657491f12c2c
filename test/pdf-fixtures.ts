import { PDFDocument, StandardFonts } from 'pdf-lib';

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

/** A multipart/form-data body with files (and optional fields) for app.inject. */
export function buildMultipart(files: Array<{ name: string; content: Buffer; contentType?: string }>, fields: Record<string, string> = {}) {
  const boundary = `----ron${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [key, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\nContent-Type: ${file.contentType ?? 'application/pdf'}\r\n\r\n`),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
