import { useEffect, useState } from 'react';
import { scrollIntoPane } from './scroll-pane.ts';

interface FieldSpot {
  id: string;
  documentId: string;
  /** The page whose copy of the field gets the focus. */
  page: number;
}

/**
 * Scrolls to a field and focuses its control (the text box, checkbox or "Sign here"), waiting for
 * its document and page to be on screen (up to five seconds). Returns the function that asks for it.
 */
export function useFieldFocus(currentDocumentId: string | null, pdf: unknown) {
  const [pending, setPending] = useState<FieldSpot | null>(null);
  useEffect(() => {
    if (!pending || pending.documentId !== currentDocumentId) return;
    const deadline = Date.now() + 5000;
    let frame = 0;
    const tryFocus = () => {
      const control = document.querySelector<HTMLElement>(`.pages .pdf-page[data-page="${pending.page}"] [data-field-id="${pending.id}"] [data-field-control]`);
      if (control) {
        // The pages pane alone scrolls: never the window or the session room around it.
        scrollIntoPane(control, 'center');
        control.focus({ preventScroll: true });
        setPending(null);
      } else if (Date.now() < deadline) {
        frame = window.requestAnimationFrame(tryFocus);
      } else {
        setPending(null);
      }
    };
    frame = window.requestAnimationFrame(tryFocus);
    return () => window.cancelAnimationFrame(frame);
  }, [pending, currentDocumentId, pdf]);
  return setPending;
}
