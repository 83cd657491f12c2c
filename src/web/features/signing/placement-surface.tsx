import { useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { scrollIntoPane } from './scroll-pane.ts';
import { boxAtPointer, placementInstructions, type Placing } from './use-placement.ts';

interface PlacementSurfaceProps {
  page: number;
  placing: Placing;
  /** "Text for Pat Signer" */
  description: string;
  /** "Text" */
  typeLabel: string;
  onPoint: (page: number, x: number, y: number) => void;
  onPlace: (page: number, x: number, y: number) => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

/**
 * Covers a page while a field type is chosen: a click or tap places the field there; on the page
 * the cursor is on, it takes the keyboard focus and shows the field where Enter would put it.
 */
export function PlacementSurface({ page, placing, description, typeLabel, onPoint, onPlace, onKeyDown }: PlacementSurfaceProps) {
  const surfaceRef = useRef<HTMLDivElement>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const isActive = placing.page === page;

  useEffect(() => {
    if (isActive) surfaceRef.current?.focus({ preventScroll: true });
  }, [isActive]);
  useEffect(() => {
    if (isActive && placing.isKeyboard) scrollIntoPane(cursorRef.current, 'nearest');
  }, [isActive, placing.isKeyboard, placing.x, placing.y, placing.page]);

  const fractionOf = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height] as const;
  };
  // Exactly the box a click or Enter here would place.
  const box = boxAtPointer(placing.type, placing.x, placing.y);
  const instructionsId = `placement-instructions-${page}`;

  return (
    <div
      ref={surfaceRef}
      className={`placement-surface${isActive ? ' active' : ''}`}
      {...(isActive
        ? {
            role: 'application',
            'aria-roledescription': 'placement area',
            'aria-label': `Place ${typeLabel} on page ${page}`,
            'aria-describedby': instructionsId,
            tabIndex: 0,
          }
        : { 'aria-hidden': true })}
      onKeyDown={onKeyDown}
      onPointerMove={(event) => {
        if (event.pointerType === 'mouse') onPoint(page, ...fractionOf(event));
      }}
      onClick={(event) => onPlace(page, ...fractionOf(event))}
    >
      {isActive ? (
        <>
          <span id={instructionsId} className="visually-hidden">
            {description}. {placementInstructions}
          </span>
          <div
            ref={cursorRef}
            className="placement-cursor"
            aria-hidden="true"
            style={{ left: `${box.x * 100}%`, top: `${box.y * 100}%`, width: `${box.width * 100}%`, height: `${box.height * 100}%` }}
          >
            <span className="field-tag">{description}</span>
          </div>
        </>
      ) : null}
    </div>
  );
}
