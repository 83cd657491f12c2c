import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { PDFDocumentProxy } from './pdf.ts';

interface PdfPageProps {
  pdf: PDFDocumentProxy;
  pageNumber: number;
  /** CSS pixels per PDF point. */
  scale: number;
  label: string;
  children?: (size: { width: number; height: number }) => ReactNode;
}

/** One page drawn by pdf.js on a canvas (sharp on high-DPI screens), with an overlay for fields. */
export function PdfPage({ pdf, pageNumber, scale, label, children }: PdfPageProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useEffect(() => {
    let isCurrent = true;
    let cancel: (() => void) | null = null;
    void pdf.getPage(pageNumber).then((page) => {
      if (!isCurrent || !canvasRef.current) return;
      const viewport = page.getViewport({ scale });
      const ratio = window.devicePixelRatio || 1;
      const canvas = canvasRef.current;
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${viewport.width}px`;
      canvas.style.height = `${viewport.height}px`;
      setSize({ width: viewport.width, height: viewport.height });
      const task = page.render({ canvas, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      cancel = () => task.cancel();
      task.promise.catch(() => undefined);
    });
    return () => {
      isCurrent = false;
      cancel?.();
    };
  }, [pdf, pageNumber, scale]);
  return (
    <div className="pdf-page" data-page={pageNumber} style={size ? { width: size.width, height: size.height } : undefined}>
      <canvas ref={canvasRef} role="img" aria-label={label} />
      {size && children ? <div className="field-layer">{children(size)}</div> : null}
    </div>
  );
}
