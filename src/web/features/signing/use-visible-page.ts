import { useEffect, type RefObject } from 'react';

/**
 * The page (1-based) that fills most of the screen right now, or 0 when no page is shown. Read
 * synchronously, so an action taken just after a scroll acts on the page the person sees.
 */
export function measureVisiblePage(container: HTMLElement): number {
  const view = container.getBoundingClientRect();
  const top = Math.max(view.top, 0);
  const bottom = Math.min(view.bottom, window.innerHeight);
  let best = 0;
  let bestVisible = 0;
  for (const sheet of container.querySelectorAll<HTMLElement>('.pdf-page[data-page]')) {
    const box = sheet.getBoundingClientRect();
    const visible = Math.min(box.bottom, bottom) - Math.max(box.top, top);
    if (visible > bestVisible) {
      bestVisible = visible;
      best = Number(sheet.dataset.page);
    }
  }
  return best;
}

/**
 * Reports the page that fills most of the screen as the person scrolls (the pages' own column or
 * the window, whichever scrolls), so the thumbnails and "Place fields on page N" follow the reader.
 */
export function useVisiblePage(containerRef: RefObject<HTMLElement | null>, pageCount: number, onChange: (page: number) => void) {
  useEffect(() => {
    const container = containerRef.current;
    if (!container || pageCount === 0) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      const best = measureVisiblePage(container);
      if (best > 0) onChange(best);
    };
    const schedule = () => {
      if (!frame) frame = window.requestAnimationFrame(measure);
    };
    container.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    schedule();
    return () => {
      window.cancelAnimationFrame(frame);
      container.removeEventListener('scroll', schedule);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
    };
  }, [containerRef, pageCount, onChange]);
}

/** Scrolls a list of thumbnails (its own scroll only) so the given one is in sight. */
export function keepThumbnailInSight(list: HTMLElement | null, page: number) {
  const thumb = list?.querySelector<HTMLElement>(`[data-thumb="${page}"]`);
  if (!list || !thumb) return;
  const listBox = list.getBoundingClientRect();
  const thumbBox = thumb.getBoundingClientRect();
  if (thumbBox.top >= listBox.top && thumbBox.bottom <= listBox.bottom) return;
  list.scrollTop += thumbBox.top - listBox.top - (listBox.height - thumbBox.height) / 2;
}
