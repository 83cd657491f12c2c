import { useEffect, useRef, useState, type MouseEvent, type PointerEvent } from 'react';
import { defaultFieldSizes, fieldLabels, fieldTypes, isNotaryField, type FieldType } from '#shared/fields.ts';

interface FieldPaletteProps {
  currentPage: number;
  participants: Array<{ id: string; name: string; role: string }>;
  assignee: string;
  onAssigneeChange: (participantId: string) => void;
  isOnEveryPage: boolean;
  onEveryPageChange: (isOnEveryPage: boolean) => void;
  chosenType: FieldType | null;
  /** A type chosen by click, tap or keyboard (Enter or Space: `isKeyboard`). */
  onChoose: (type: FieldType, isKeyboard: boolean) => void;
  onDragStart: () => void;
  onDrop: (type: FieldType, clientX: number, clientY: number) => void;
}

interface Ghost {
  type: FieldType;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Movement (CSS px) after which pressing a palette button becomes a drag. */
const dragThreshold = 6;

/**
 * The field types: drag one onto a page, or choose one and click, tap or key where it goes.
 * Whose it is ("For") and whether it repeats on every page apply to the next field placed.
 */
export function FieldPalette(props: FieldPaletteProps) {
  const { currentPage, participants, assignee, onAssigneeChange, isOnEveryPage, onEveryPageChange, chosenType, onChoose, onDragStart, onDrop } = props;
  const [ghost, setGhost] = useState<Ghost | null>(null);
  const isDragDone = useRef(false);
  const stopDrag = useRef<(() => void) | null>(null);
  useEffect(() => () => stopDrag.current?.(), []);

  const startDrag = (event: PointerEvent<HTMLButtonElement>, type: FieldType) => {
    if (event.button !== 0 || event.currentTarget.disabled) return;
    const start = { x: event.clientX, y: event.clientY };
    const sheet = document.querySelector('.pages .pdf-page')?.getBoundingClientRect();
    const size = defaultFieldSizes[type];
    let isDragging = false;
    const move = (moveEvent: globalThis.PointerEvent) => {
      if (!isDragging && Math.hypot(moveEvent.clientX - start.x, moveEvent.clientY - start.y) < dragThreshold) return;
      if (!isDragging) onDragStart();
      isDragging = true;
      setGhost({ type, x: moveEvent.clientX, y: moveEvent.clientY, width: size.width * (sheet?.width ?? 600), height: size.height * (sheet?.height ?? 800) });
    };
    const up = (upEvent: globalThis.PointerEvent) => {
      stop();
      if (!isDragging) return;
      // The click that may follow this release is part of the drag, not a choice.
      isDragDone.current = true;
      window.setTimeout(() => {
        isDragDone.current = false;
      }, 0);
      onDrop(type, upEvent.clientX, upEvent.clientY);
    };
    const stop = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', stop);
      stopDrag.current = null;
      setGhost(null);
    };
    stopDrag.current?.();
    stopDrag.current = stop;
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', stop);
  };

  const choose = (event: MouseEvent<HTMLButtonElement>, type: FieldType) => {
    if (isDragDone.current) return;
    onChoose(type, event.detail === 0);
  };

  return (
    <section className="stack" aria-labelledby="palette-title">
      <h2 id="palette-title">Place fields on page {currentPage}</h2>
      <div className="field">
        <label htmlFor="field-assignee">For</label>
        <select id="field-assignee" value={assignee} onChange={(event) => onAssigneeChange(event.target.value)}>
          {participants.map((participant) => (
            <option key={participant.id} value={participant.id}>
              {participant.name} ({participant.role})
            </option>
          ))}
        </select>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={isOnEveryPage} onChange={(event) => onEveryPageChange(event.target.checked)} />
        On every page
      </label>
      <div className="palette-grid">
        {fieldTypes.map((type) => (
          <button
            key={type}
            type="button"
            className="button palette-item"
            aria-pressed={chosenType === type}
            disabled={!isNotaryField(type) && !assignee}
            onPointerDown={(event) => startDrag(event, type)}
            onClick={(event) => choose(event, type)}
          >
            {fieldLabels[type]}
          </button>
        ))}
      </div>
      <p className="muted small">
        Drag a field onto the page, or choose one and click or tap where it goes. With the keyboard: choose one, move it with the arrow keys and press Enter. A
        placed field moves by dragging or with the arrow keys; Delete removes it.
      </p>
      {ghost ? (
        <div className="drag-ghost" aria-hidden="true" style={{ left: ghost.x, top: ghost.y, width: ghost.width, height: ghost.height }}>
          <span className="field-tag">{fieldLabels[ghost.type]}</span>
        </div>
      ) : null}
    </section>
  );
}
