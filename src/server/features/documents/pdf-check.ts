import fs from 'node:fs';
import { EncryptedPDFError, PDFDocument } from 'pdf-lib';
import { documentMessages } from '#shared/documents.ts';
import { AppError } from '#server/lib/errors.ts';

/**
 * Accepts only real, readable, unencrypted PDFs: the magic bytes first, then a full parse.
 * Returns the page count.
 */
export async function checkPdf(filePath: string, head: Buffer, fileName: string): Promise<number> {
  if (!head.subarray(0, 1024).includes(Buffer.from('%PDF-'))) {
    throw new AppError(415, 'not_pdf', `${fileName}: ${documentMessages.notPdf}`);
  }
  const bytes = await fs.promises.readFile(filePath);
  try {
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    const pageCount = pdf.getPageCount();
    if (pageCount < 1) throw new Error('no pages');
    return pageCount;
  } catch (error) {
    if (error instanceof EncryptedPDFError) throw new AppError(422, 'encrypted_pdf', `${fileName}: ${documentMessages.encrypted}`);
    throw new AppError(422, 'broken_pdf', `${fileName}: ${documentMessages.broken}`);
  }
}
