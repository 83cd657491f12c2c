import { useEffect, useState } from 'react';
import { loadPdf, type PDFDocumentProxy } from './pdf.ts';

interface Loaded {
  documentId: string;
  pdf: PDFDocumentProxy | null;
  error: string | null;
  /** The first page's width in PDF points, to fit the page to the column. */
  pageWidth: number;
}

/** Opens the job document's PDF with pdf.js; switching documents drops the previous one at once. */
export function usePdfDocument(jobId: string, documentId: string | null) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    if (!documentId) return;
    const controller = new AbortController();
    loadPdf(`/api/jobs/${jobId}/documents/${documentId}/file`, controller.signal)
      .then(async (opened) => {
        const first = await opened.getPage(1);
        setLoaded({ documentId, pdf: opened, error: null, pageWidth: first.getViewport({ scale: 1 }).width });
      })
      .catch((caught: unknown) => {
        if (!controller.signal.aborted)
          setLoaded({ documentId, pdf: null, error: caught instanceof Error ? caught.message : 'The document could not be shown.', pageWidth: 612 });
      });
    return () => controller.abort();
  }, [jobId, documentId]);
  const isCurrent = loaded !== null && loaded.documentId === documentId;
  return { pdf: isCurrent ? loaded.pdf : null, error: isCurrent ? loaded.error : null, pageWidth: isCurrent ? loaded.pageWidth : 612 };
}
