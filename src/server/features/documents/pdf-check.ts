import { EncryptedPDFError, ParseSpeeds, PDFArray, PDFDict, PDFDocument, PDFName, type PDFObject } from 'pdf-lib';
import { documentMessages, maxFormFields } from '#shared/documents.ts';
import { AppError } from '#server/lib/errors.ts';
import { getStreamRefusal } from '#server/lib/pdf-stream-bounds.ts';
import { largestOriginalObjectNumber, largestReferenced, largestReferencedInObjectStreams } from '#server/providers/signing/incremental.ts';

const encryptKey = Buffer.from('/Encrypt');

/**
 * Whether the file declares an encryption dictionary (the trailer's /Encrypt key, plain text
 * even in a cross-reference stream). pdf-lib is compiled to ES5, so its EncryptedPDFError is a
 * plain Error at run time and `instanceof` never matches: the bytes have to tell.
 */
function declaresEncryption(bytes: Buffer): boolean {
  for (let index = bytes.indexOf(encryptKey); index !== -1; index = bytes.indexOf(encryptKey, index + 1)) {
    const next = bytes[index + encryptKey.length];
    const isNameEnd = next === undefined || !((next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a));
    if (isNameEnd) return true;
  }
  return false;
}

/**
 * Accepts only real, readable, unencrypted PDFs: the magic bytes first, then one full parse of the
 * bytes as they are (no copy). Returns the page count. Runs in a thread of pdf-check-pool.ts.
 */
export async function readPdfPageCount(bytes: Uint8Array, fileName: string): Promise<number> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!view.subarray(0, 1024).includes(Buffer.from('%PDF-'))) {
    throw new AppError(415, 'not_pdf', `${fileName}: ${documentMessages.notPdf}`);
  }
  try {
    // Fast: the parser yields to the event loop every 1,500 objects (the default waits a timer tick every 100)
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fast });
    const refusal = getStreamRefusal(pdf.context);
    if (refusal === 'too_large') throw new AppError(422, 'pdf_unpacks_too_large', `${fileName}: ${documentMessages.unpacksTooLarge}`);
    if (refusal === 'damaged') throw new AppError(422, 'broken_pdf', `${fileName}: ${documentMessages.broken}`);
    const pageCount = pdf.getPageCount();
    if (pageCount < 1) throw new Error('no pages');
    // The seal numbers its objects above the original's, within the PDF's limit (incremental.ts).
    // Defined or referred to, in the file's bytes and its object streams, as the seal reads them (an
    // object stream no reader decodes alike throws: refused as damaged below).
    if (largestReferencedInObjectStreams(view, largestReferenced(view, pdf.context.largestObjectNumber)) > largestOriginalObjectNumber) {
      throw new AppError(422, 'unsealable_pdf', `${fileName}: ${documentMessages.numberedPastLimit}`);
    }
    const fields = countFormFields(pdf);
    if (fields === 'listed twice') throw new AppError(422, 'broken_pdf', `${fileName}: ${documentMessages.broken}`);
    if (fields > maxFormFields) throw new AppError(422, 'pdf_too_complex', `${fileName}: ${documentMessages.tooManyFormFields}`);
    if (holdsItselfOnceDrawnOn(pdf.getPages().map((page) => page.node))) {
      throw new AppError(422, 'unsealable_pdf', `${fileName}: ${documentMessages.unsealable}`);
    }
    return pageCount;
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof EncryptedPDFError || declaresEncryption(view)) throw new AppError(422, 'encrypted_pdf', `${fileName}: ${documentMessages.encrypted}`);
    throw new AppError(422, 'broken_pdf', `${fileName}: ${documentMessages.broken}`);
  }
}

/**
 * The fields and widgets of the document's form, counted up to one past maxFormFields: the seal
 * flattens every one into its page, and pdf-lib's flattening takes time that grows with the square
 * of their number (found by attack: 16,000 fields held a seal thread 87 s). A field listed twice
 * (in /Fields or a field's /Kids) is a damaged form: pdf-lib's flattening fails on it, and each
 * listing costs it again (found by attack: 1,000 widgets listed 16 times each took 45 s).
 */
function countFormFields(pdf: PDFDocument): number | 'listed twice' {
  const form = pdf.catalog.lookup(PDFName.of('AcroForm'));
  const top = form instanceof PDFDict ? form.lookup(PDFName.of('Fields')) : undefined;
  if (!(top instanceof PDFArray)) return 0;
  const seen = new Set<PDFObject>();
  const pending: PDFObject[] = [...top.asArray()];
  let count = 0;
  while (pending.length > 0 && count <= maxFormFields) {
    const field = pdf.context.lookup(pending.pop());
    if (!(field instanceof PDFDict)) continue;
    if (seen.has(field)) return 'listed twice';
    seen.add(field);
    count += 1;
    const kids = field.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) pending.push(...kids.asArray());
  }
  return count;
}

/**
 * Whether a page would hold itself once drawn on (decision 064): pdf-lib's normalize() puts the
 * page's resources, and their /Font, /XObject and /ExtGState, into it as direct objects, so
 * resources that name themselves (or the page) among those become a dictionary inside itself,
 * which no writer can save. The check runs that same normalize() on every page of this thread's
 * copy first (a page it throws on is one the seal cannot draw on either, and says so then), then
 * walks all the pages' direct objects once, with its own list: a container met again while it is
 * still being walked is a loop; one walked before is not walked again.
 */
function holdsItselfOnceDrawnOn(nodes: Array<PDFDict & { normalize(): void }>): boolean {
  for (const node of nodes) {
    try {
      node.normalize();
    } catch {
      // Not drawable as it is: complete-job names the document if a field is on it.
    }
  }
  const open = new Set<PDFObject>();
  const closed = new Set<PDFObject>();
  const stack: Array<{ container: PDFObject; children: PDFObject[]; next: number }> = [];
  const childrenOf = (object: PDFObject): PDFObject[] | null =>
    object instanceof PDFDict ? object.values() : object instanceof PDFArray ? object.asArray() : null;
  const enter = (object: PDFObject): boolean => {
    if (open.has(object)) return true;
    const children = closed.has(object) ? null : childrenOf(object);
    if (children) {
      open.add(object);
      stack.push({ container: object, children, next: 0 });
    }
    return false;
  };
  for (const node of nodes) {
    if (enter(node)) return true;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (!top) break;
      const child = top.children[top.next];
      top.next += 1;
      if (child === undefined) {
        stack.pop();
        open.delete(top.container);
        closed.add(top.container);
      } else if (enter(child)) return true;
    }
  }
  return false;
}
