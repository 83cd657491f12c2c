import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { PDFDocumentProxy } from './pdf.ts';
import { arrangeFieldTags } from './tag-layout.ts';

interface PdfPageProps {
  pdf: PDFDocumentProxy;
  pageNumber: number;
  /** CSS pixels per PDF point. */
  scale: number;
  /** The canvas's accessible name; none for a decorative copy (a thumbnail inside a named button). */
  label?: string;
  children?: (size: { width: number; height: number }) => ReactNode;
}

/**
 * One page drawn by pdf.js on a canvas (sharp on high-DPI screens), with an overlay for fields.
 * The page takes its size at once; its pixels are drawn only when it comes near the screen, so a
 * long deed opens quickly and a phone keeps its memory.
 */
export function PdfPage({ pdf, pageNumber, scale, label, children }: PdfPageProps) {
  const frameRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const layerRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [isNear, setIsNear] = useState(false);

  useEffect(() => {
    let isCurrent = true;
    void pdf.getPage(pageNumber).then((page) => {
      if (!isCurrent) return;
      const viewport = page.getViewport({ scale });
      setSize({ width: viewport.width, height: viewport.height });
    });
    return () => {
      isCurrent = false;
    };
  }, [pdf, pageNumber, scale]);

  useEffect(() => {
    const frame = frameRef.current;
    if (!frame || typeof IntersectionObserver === 'undefined') {
      setIsNear(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => setIsNear(entries.some((entry) => entry.isIntersecting)), { rootMargin: '1200px 0px' });
    observer.observe(frame);
    return () => observer.disconnect();
  }, []);

  // The fields' tags are laid out after every render (a field placed, moved, filled, a zoom), before
  // the browser paints; and again when the page changes size or the web fonts arrive and widen them.
  useLayoutEffect(() => {
    if (layerRef.current) arrangeFieldTags(layerRef.current);
  });
  useEffect(() => {
    const layer = layerRef.current;
    if (!layer) return;
    let isCurrent = true;
    const arrange = () => isCurrent && layerRef.current && arrangeFieldTags(layerRef.current);
    void document.fonts?.ready.then(arrange);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(arrange);
    observer?.observe(layer);
    return () => {
      isCurrent = false;
      observer?.disconnect();
    };
  }, [size]);

  // pdf.js refuses a second render on a canvas until the first has really stopped: chain them.
  const lastRender = useRef<Promise<unknown>>(Promise.resolve());
  useEffect(() => {
    if (!isNear || !size) return;
    let isCurrent = true;
    let cancel: (() => void) | null = null;
    const previous = lastRender.current;
    lastRender.current = (async () => {
      await previous.catch(() => undefined);
      const page = await pdf.getPage(pageNumber);
      const canvas = canvasRef.current;
      if (!isCurrent || !canvas) return;
      const viewport = page.getViewport({ scale });
      const ratio = window.devicePixelRatio || 1;
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      const task = page.render({ canvas, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      cancel = () => task.cancel();
      await task.promise.catch(() => undefined);
    })();
    return () => {
      isCurrent = false;
      cancel?.();
    };
  }, [pdf, pageNumber, scale, isNear, size]);

  return (
    <div ref={frameRef} className="pdf-page" data-page={pageNumber} style={size ? { width: size.width, height: size.height } : undefined}>
      <canvas
        ref={canvasRef}
        style={size ? { width: size.width, height: size.height } : undefined}
        {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true })}
      />
      {size && children ? (
        <div ref={layerRef} className="field-layer">
          {children(size)}
        </div>
      ) : null}
    </div>
  );
}
