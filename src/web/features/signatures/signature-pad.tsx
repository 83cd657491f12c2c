import { useEffect, useId, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { createCanvas, getContext, inkColor, isTransparent, toSignaturePng, trimCanvas } from './canvas-image.ts';

/** A point as a fraction of the pad (0..1 across, 0..1 down), so strokes survive a resize. */
interface Point {
  x: number;
  y: number;
}
type Stroke = Point[];

/** Pen width as a fraction of the pad's height. */
const penWidthRatio = 0.022;
/** The pad never grows taller than this (CSS pixels); its width follows the aspect ratio. */
const padMaxHeight = 260;
/** Height of the exported image before trimming (the width follows the pad's shape). */
const exportHeight = 320;

function paintStrokes(context: CanvasRenderingContext2D, strokes: Stroke[], width: number, height: number) {
  context.lineCap = 'round';
  context.lineJoin = 'round';
  context.strokeStyle = inkColor;
  context.fillStyle = inkColor;
  context.lineWidth = Math.max(1, height * penWidthRatio);
  for (const stroke of strokes) {
    const points = stroke.map((point) => ({ x: point.x * width, y: point.y * height }));
    const [first] = points;
    if (!first) continue;
    if (points.length === 1) {
      context.beginPath();
      context.arc(first.x, first.y, context.lineWidth / 2, 0, Math.PI * 2);
      context.fill();
      continue;
    }
    // A smooth line: quadratic curves through the midpoints between samples.
    context.beginPath();
    context.moveTo(first.x, first.y);
    for (let index = 1; index < points.length - 1; index += 1) {
      const point = points[index];
      const next = points[index + 1];
      if (!point || !next) continue;
      context.quadraticCurveTo(point.x, point.y, (point.x + next.x) / 2, (point.y + next.y) / 2);
    }
    const last = points[points.length - 1];
    if (last) context.lineTo(last.x, last.y);
    context.stroke();
  }
}

/** The strokes as a trimmed PNG with a transparent background, or null when nothing is drawn. */
function exportStrokes(strokes: Stroke[], aspectRatio: number): string | null {
  if (strokes.length === 0) return null;
  const canvas = createCanvas(exportHeight * aspectRatio, exportHeight);
  paintStrokes(getContext(canvas), strokes, canvas.width, canvas.height);
  const trimmed = trimCanvas(canvas, isTransparent, 12);
  return trimmed ? toSignaturePng(trimmed) : null;
}

function toPoint(event: { clientX: number; clientY: number }, canvas: HTMLCanvasElement): Point {
  const rect = canvas.getBoundingClientRect();
  return {
    x: Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width)),
    y: Math.min(1, Math.max(0, (event.clientY - rect.top) / rect.height)),
  };
}

/** Paints strokes on the on-screen pad, whose backing store is devicePixelRatio times its CSS size. */
function paintPad(canvas: HTMLCanvasElement, strokes: Stroke[]) {
  const context = getContext(canvas);
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.width / ratio;
  const height = canvas.height / ratio;
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  paintStrokes(context, strokes, width, height);
}

interface SignaturePadProps {
  /** The accessible name of the drawing area, e.g. "Signature drawing area". */
  label: string;
  /** Width divided by height. */
  aspectRatio: number;
  onChange: (dataUrl: string | null) => void;
}

/**
 * A drawing pad for mouse, pen and touch (pointer events; touch-action: none keeps the page from
 * scrolling under a finger). Each stroke is kept, so Undo removes the last one and Clear all of
 * them. The canvas backing store follows devicePixelRatio, so lines stay sharp on high-DPI screens.
 */
export function SignaturePad({ label, aspectRatio, onChange }: SignaturePadProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const activeStroke = useRef<{ pointerId: number; stroke: Stroke } | null>(null);
  const [strokes, setStrokes] = useState<Stroke[]>([]);
  const strokesRef = useRef(strokes);
  const hintId = useId();

  const repaint = (committed: Stroke[]) => {
    if (canvasRef.current) paintPad(canvasRef.current, activeStroke.current ? [...committed, activeStroke.current.stroke] : committed);
  };

  useEffect(() => {
    strokesRef.current = strokes;
    if (canvasRef.current) paintPad(canvasRef.current, strokes);
  }, [strokes]);

  // Sizes the backing store to the element's CSS size times devicePixelRatio, now and on resize.
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const fit = () => {
      const ratio = window.devicePixelRatio || 1;
      const rect = canvas.getBoundingClientRect();
      const width = Math.max(1, Math.round(rect.width * ratio));
      const height = Math.max(1, Math.round(rect.height * ratio));
      if (canvas.width === width && canvas.height === height) return;
      canvas.width = width;
      canvas.height = height;
      paintPad(canvas, strokesRef.current);
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);

  const commit = (next: Stroke[]) => {
    setStrokes(next);
    onChange(exportStrokes(next, aspectRatio));
  };

  const handlePointerDown = (event: ReactPointerEvent<HTMLCanvasElement>) => {
    if (activeStroke.current || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    activeStroke.current = { pointerId: event.pointerId, stroke: [toPoint(event, event.currentTarget)] };
    repaint(strokes);
  };

  const handlePointerMove = (event: ReactPointerEvent<HTMLCanvasElement>) => {
    const active = activeStroke.current;
    if (!active || active.pointerId !== event.pointerId) return;
    // Coalesced events carry every sample since the last frame: smoother lines from fast pens.
    const samples = event.nativeEvent.getCoalescedEvents?.() ?? [];
    for (const sample of samples.length > 0 ? samples : [event]) active.stroke.push(toPoint(sample, event.currentTarget));
    repaint(strokes);
  };

  const handlePointerEnd = (event: ReactPointerEvent<HTMLCanvasElement>) => {
    const active = activeStroke.current;
    if (!active || active.pointerId !== event.pointerId) return;
    activeStroke.current = null;
    if (event.type === 'pointerup') active.stroke.push(toPoint(event, event.currentTarget));
    commit([...strokes, active.stroke]);
  };

  return (
    <div className="signature-pad">
      <canvas
        ref={canvasRef}
        className="signature-canvas"
        style={{ aspectRatio: String(aspectRatio), maxWidth: `${Math.round(padMaxHeight * aspectRatio)}px` }}
        role="img"
        aria-label={`${label}: ${strokes.length === 0 ? 'empty' : `${strokes.length} ${strokes.length === 1 ? 'stroke' : 'strokes'} drawn`}`}
        aria-describedby={hintId}
        onPointerDown={handlePointerDown}
        onPointerMove={handlePointerMove}
        onPointerUp={handlePointerEnd}
        onPointerCancel={handlePointerEnd}
        onLostPointerCapture={handlePointerEnd}
      />
      <p id={hintId} className="field-hint">
        Draw with a mouse, pen or finger. Drawing needs a pointer: to use the keyboard, choose Type or Upload.
      </p>
      <div className="row">
        <button type="button" className="button" onClick={() => commit(strokes.slice(0, -1))} disabled={strokes.length === 0}>
          Undo
        </button>
        <button type="button" className="button" onClick={() => commit([])} disabled={strokes.length === 0}>
          Clear
        </button>
      </div>
    </div>
  );
}
