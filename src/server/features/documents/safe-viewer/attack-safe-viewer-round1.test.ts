import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { sanitisePdf } from './sanitise-pdf.ts';

/** The web links pdf.js finds on the first page: what a reader would make clickable. */
async function linksOf(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useWorkerFetch: false }).promise;
  try {
    const annotations = (await (await pdf.getPage(1)).getAnnotations()) as Array<{ url?: string; unsafeUrl?: string }>;
    return annotations.map((annotation) => annotation.url ?? annotation.unsafeUrl).filter((url): url is string => Boolean(url));
  } finally {
    await pdf.destroy();
  }
}

/**
 * A Link annotation whose action names its type through an indirect object (/S 5 0 R, object 5
 * being /URI) and carries an /O key: the sanitiser reads /S only as a direct name, so it sees
 * "no action type, has /O: a structure attribute dictionary" and keeps it; pdf.js resolves /S.
 */
async function linkWithIndirectActionType(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([300, 300]);
  const { context } = document;
  const actionType = context.register(PDFName.of('URI'));
  const action = context.obj({ S: actionType, URI: PDFString.of('https://attacker.example/phish'), O: PDFName.of('Layout') });
  const link = context.register(context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [10, 10, 290, 290], Border: [0, 0, 0], A: action }));
  page.node.set(PDFName.of('Annots'), context.obj([link]));
  return document.save({ useObjectStreams: false });
}

describe('attack round 1: the PDF sanitiser', () => {
  it('removes a web link whose action type is an indirect object (/S n 0 R)', async () => {
    const hostile = await linkWithIndirectActionType();
    // The test proves something only if a reader really sees the link in the original.
    expect(await linksOf(hostile)).toEqual(['https://attacker.example/phish']);
    const copy = await sanitisePdf(hostile);
    expect(await linksOf(copy)).toEqual([]);
  });
});
