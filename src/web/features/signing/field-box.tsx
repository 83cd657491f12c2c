import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { fieldLabels, type DocumentField, type FieldType, type NotaryStamp } from '#shared/fields.ts';
import { FillControl, FilledValue } from './field-editors.tsx';

export interface FieldBoxProps {
  field: DocumentField;
  pageSize: { width: number; height: number };
  /** CSS pixels per PDF point at the current zoom. */
  pointScale: number;
  ownerName: string | null;
  canMove: boolean;
  canFill: boolean;
  stamp: NotaryStamp | null;
  onMove: (field: DocumentField, placement: { x: number; y: number; width: number; height: number }) => void;
  onDelete: (field: DocumentField) => void;
  onFill: (field: DocumentField, value?: string) => void;
}

/** "Signature for Pat Signer": what a field is and whose. */
export function describeField(type: FieldType, ownerName: string | null): string {
  return `${fieldLabels[type]}${ownerName ? ` for ${ownerName}` : ''}`;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** A field on the page: movable and resizable for whoever places fields, fillable by its owner. */
export function FieldBox({ field, pageSize, pointScale, ownerName, canMove, canFill, stamp, onMove, onDelete, onFill }: FieldBoxProps) {
  const [draft, setDraft] = useState<{ x: number; y: number; width: number; height: number } | null>(null);
  const start = useRef<{ pointerX: number; pointerY: number; x: number; y: number; width: number; height: number; mode: 'move' | 'resize' } | null>(null);
  const placement = draft ?? field;
  const isFilled = field.filledAt !== null;
  const isMovable = canMove && !isFilled;

  const begin = (event: PointerEvent<HTMLElement>, mode: 'move' | 'resize') => {
    if (!isMovable || event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    event.currentTarget.setPointerCapture(event.pointerId);
    start.current = { pointerX: event.clientX, pointerY: event.clientY, x: field.x, y: field.y, width: field.width, height: field.height, mode };
  };
  const drag = (event: PointerEvent<HTMLElement>) => {
    const origin = start.current;
    if (!origin) return;
    const dx = (event.clientX - origin.pointerX) / pageSize.width;
    const dy = (event.clientY - origin.pointerY) / pageSize.height;
    if (origin.mode === 'move') {
      setDraft({ x: clamp(origin.x + dx, 0, 1 - origin.width), y: clamp(origin.y + dy, 0, 1 - origin.height), width: origin.width, height: origin.height });
    } else {
      setDraft({ x: origin.x, y: origin.y, width: clamp(origin.width + dx, 0.02, 1 - origin.x), height: clamp(origin.height + dy, 0.015, 1 - origin.y) });
    }
  };
  const end = () => {
    const origin = start.current;
    start.current = null;
    if (!origin || !draft) return;
    const moved = Math.abs(draft.x - origin.x) + Math.abs(draft.y - origin.y) + Math.abs(draft.width - origin.width) + Math.abs(draft.height - origin.height);
    if (moved > 0.002) onMove(field, draft);
    setDraft(null);
  };
  const nudge = (event: KeyboardEvent<HTMLDivElement>) => {
    // Keys typed in the field's own controls are theirs.
    if (!isMovable || event.target !== event.currentTarget) return;
    const step = event.shiftKey ? 0.05 : 0.01;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      onMove(field, {
        x: clamp(field.x + move[0], 0, 1 - field.width),
        y: clamp(field.y + move[1], 0, 1 - field.height),
        width: field.width,
        height: field.height,
      });
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      onDelete(field);
    }
  };

  // A fill button wider than the box hangs toward the page's middle, never off its edge.
  const isOnRightHalf = placement.x + placement.width / 2 > 0.5;
  const label = describeField(field.type, ownerName);
  const name = `${label}${field.isOnEveryPage ? ', on every page' : ''}`;
  // What the PDF prints here: text at most 12 pt, shrunk to the box's height.
  const fontSize = Math.max(9, Math.min(12 * pointScale, placement.height * pageSize.height * 0.72));
  return (
    <div
      className={`field-box type-${field.type}${isFilled ? ' filled' : ''}${canFill && !isFilled ? ' mine' : ''}${isOnRightHalf ? ' on-right-half' : ''}`}
      style={{ left: `${placement.x * 100}%`, top: `${placement.y * 100}%`, width: `${placement.width * 100}%`, height: `${placement.height * 100}%` }}
      data-field-id={field.id}
      role="group"
      aria-label={`${name}${isFilled ? ', filled' : ''}`}
      title={name}
      tabIndex={isMovable ? 0 : -1}
      onKeyDown={nudge}
      onPointerDown={(event) => begin(event, 'move')}
      onPointerMove={drag}
      onPointerUp={end}
      onPointerCancel={end}
    >
      {/* Outside the box, never clipped: whose and what at every zoom. Where it goes, clear of the
          other fields' tags, is worked out for the whole page (tag-layout.ts). */}
      {!isFilled ? (
        <span className="field-tag" aria-hidden="true">
          {label}
          {field.isOnEveryPage ? ' (every page)' : ''}
        </span>
      ) : null}
      <div className="field-content">
        {isFilled ? <FilledValue field={field} name={name} fontSize={fontSize} pointScale={pointScale} stamp={stamp} /> : null}
        {!isFilled && canFill ? <FillControl field={field} label={label} fontSize={fontSize} onFill={onFill} /> : null}
      </div>
      {isMovable ? (
        <>
          <button
            type="button"
            className="field-delete"
            aria-label={`Delete ${label}`}
            onPointerDown={(event) => event.stopPropagation()}
            onClick={() => onDelete(field)}
          >
            ×
          </button>
          <span className="field-resize" aria-hidden="true" onPointerDown={(event) => begin(event, 'resize')} onPointerMove={drag} onPointerUp={end} />
        </>
      ) : null}
    </div>
  );
}
