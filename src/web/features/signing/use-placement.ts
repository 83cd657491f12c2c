import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { defaultFieldSizes, findFreeSpot, type FieldType, type Placement } from '#shared/fields.ts';

/** A field type chosen for placing, and the pointer spot it goes at (fractions of the page; see boxAtPointer). */
export interface Placing {
  type: FieldType;
  page: number;
  x: number;
  y: number;
  isKeyboard: boolean;
}

interface PlacementOptions {
  pageCount: number;
  /**
   * The page in view now, measured when a type is chosen (and shown by the tools panel from then
   * on), so the panel and the keyboard cursor always name the same page.
   */
  readPage: () => number;
  /** Fields already on a page, so the keyboard cursor starts on a free spot. */
  placementsOn: (page: number) => Placement[];
  /** "Text for Pat Signer" */
  describe: (type: FieldType) => string;
  /** Creates the field; resolves true once it is saved, false when it was refused (the reason is shown elsewhere). */
  onPlace: (type: FieldType, page: number, placement: Placement) => Promise<boolean>;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const round = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * The box of a field of this type placed at the pointer spot (x, y), kept inside the page. The
 * spot is the field's bottom-left corner: people click on a form's line just right of its printed
 * label ("Signature: ______"), and a field centred on the click covered that label. From the
 * corner the field sits on the line and grows rightwards and up, leaving the text to the left of
 * the click and the line itself readable. The cursor shown before the click uses the same box.
 */
export function boxAtPointer(type: FieldType, x: number, y: number): Placement {
  const { width, height } = defaultFieldSizes[type];
  return { x: round(clamp(x, 0, 1 - width)), y: round(clamp(y - height, 0, 1 - height)), width, height };
}

/** The pointer spot whose box is centred on (x, y): a drop from the palette lands where its ghost was, centred. */
export function pointerForCentre(type: FieldType, x: number, y: number): [number, number] {
  const { width, height } = defaultFieldSizes[type];
  return [x - width / 2, y + height / 2];
}

export const placementInstructions =
  'Click or tap where it goes, or move it with the arrow keys (Page Down and Page Up change the page) and press Enter. Escape cancels.';

/**
 * Placing fields: by dragging from the palette (dropAt), by choosing a type and clicking or tapping
 * the page, or with the keyboard alone (a cursor on the page moved by the arrow keys, Enter
 * places). Every step is announced in `announcement` for screen readers.
 */
export function usePlacement({ pageCount, readPage, placementsOn, describe, onPlace }: PlacementOptions) {
  const [placing, setPlacing] = useState<Placing | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const returnFocus = useRef<HTMLElement | null>(null);

  const arm = useCallback(
    (type: FieldType, isKeyboard: boolean) => {
      if (placing?.type === type) {
        setPlacing(null);
        setAnnouncement('Placement cancelled.');
        return;
      }
      returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      const page = readPage();
      const spot = findFreeSpot(placementsOn(page), defaultFieldSizes[type]);
      setPlacing({ type, page, x: spot.x, y: spot.y + spot.height, isKeyboard });
      setAnnouncement(`Placing ${describe(type)} on page ${page}. ${placementInstructions}`);
    },
    [placing?.type, placementsOn, readPage, describe],
  );

  // Set while a type is chosen; a placement still being saved must not undo a newer choice.
  const isChoosing = useRef(false);
  useEffect(() => {
    isChoosing.current = placing !== null;
  }, [placing]);

  const finish = useCallback((message: string) => {
    setAnnouncement(message);
    if (!isChoosing.current) returnFocus.current?.focus({ preventScroll: true });
  }, []);

  const placeAt = useCallback(
    async (type: FieldType, page: number, x: number, y: number) => {
      setPlacing(null);
      isChoosing.current = false;
      const isPlaced = await onPlace(type, page, boxAtPointer(type, x, y));
      finish(isPlaced ? `${describe(type)} placed on page ${page}.` : `The ${describe(type)} was not placed.`);
    },
    [onPlace, describe, finish],
  );

  /** A drop from the palette: on whichever page is under the pointer, centred on it (where its ghost was). */
  const dropAt = useCallback(
    (type: FieldType, clientX: number, clientY: number) => {
      const sheet = document.elementsFromPoint(clientX, clientY).find((element) => element.classList.contains('pdf-page') && element.closest('.pages'));
      if (!(sheet instanceof HTMLElement)) {
        setAnnouncement(`Drop the ${describe(type)} on a page.`);
        return;
      }
      const box = sheet.getBoundingClientRect();
      returnFocus.current = null;
      void placeAt(type, Number(sheet.dataset.page), ...pointerForCentre(type, (clientX - box.left) / box.width, (clientY - box.top) / box.height));
    },
    [describe, placeAt],
  );

  /** Gives up a chosen type without a word (a drag from the palette starts instead). */
  const cancel = useCallback(() => setPlacing(null), []);

  const moveTo = useCallback(
    (page: number, x: number, y: number) => setPlacing((current) => (current ? { ...current, page, x, y, isKeyboard: false } : current)),
    [],
  );

  const handleKey = useCallback(
    (event: KeyboardEvent) => {
      if (!placing) return;
      const step = event.shiftKey ? 0.05 : 0.01;
      const size = defaultFieldSizes[placing.type];
      const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      const move = moves[event.key];
      if (move) {
        event.preventDefault();
        setPlacing({
          ...placing,
          x: clamp(placing.x + move[0], 0, 1 - size.width),
          y: clamp(placing.y + move[1], size.height, 1),
          isKeyboard: true,
        });
      } else if (event.key === 'PageDown' || event.key === 'PageUp') {
        event.preventDefault();
        const page = clamp(placing.page + (event.key === 'PageDown' ? 1 : -1), 1, pageCount);
        setPlacing({ ...placing, page, isKeyboard: true });
        setAnnouncement(`Page ${page}.`);
      } else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        void placeAt(placing.type, placing.page, placing.x, placing.y);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        setPlacing(null);
        isChoosing.current = false;
        finish('Placement cancelled.');
      }
    },
    [placing, pageCount, placeAt, finish],
  );

  return { placing, announcement, arm, cancel, dropAt, moveTo, placeAt, handleKey };
}
