import * as pdfjs from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import type { PDFDocumentProxy } from 'pdfjs-dist';

// The PDF worker loads only with this module, which only the signing page imports.
pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

export type { PDFDocumentProxy };

/** Fetches a PDF with the session cookie and opens it with pdf.js. */
export async function loadPdf(url: string, signal: AbortSignal): Promise<PDFDocumentProxy> {
  const response = await fetch(url, { credentials: 'include', signal });
  if (!response.ok) throw new Error(`The document could not be loaded (${response.status}).`);
  const data = new Uint8Array(await response.arrayBuffer());
  return pdfjs.getDocument({ data, isEvalSupported: false }).promise;
}
