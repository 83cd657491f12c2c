/**
 * Where the tags of a page's fields go ("Date for Pat Signer" above its box), so that no two tags
 * cover each other. A tag is often wider than its field (a checkbox, a date), so fields placed side
 * by side on a form's line would otherwise have tags running over each other's words.
 */

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface TagRequest {
  /** The field's box on the page, in pixels. */
  field: Box;
  /** The tag's own size, in pixels. */
  width: number;
  height: number;
}

export interface TagSpot {
  left: number;
  top: number;
  /** Below the field rather than above it (its corners round the other way). */
  isBelow: boolean;
}

/** How many tag heights above (or below) its field a tag may be lifted when the nearer spots are taken. */
const maxLift = 4;

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), Math.max(min, max));

function isCrossing(first: Box, second: Box): boolean {
  return (
    first.left < second.left + second.width &&
    second.left < first.left + first.width &&
    first.top < second.top + second.height &&
    second.top < first.top + first.height
  );
}

/**
 * The spot of each tag, in the order given. Each tag tries, in turn: just above its field, starting
 * at the field's edge nearer the page's side (a field on the right half hangs its tag to the left),
 * then aligned to the other edge; just below it, both ways; then lifted a line at a time above,
 * then below. The first spot that stays on the page and crosses no tag placed before wins; when
 * none is free, the first spot on the page is kept. Fields are taken top to bottom, then left to
 * right, so the same fields always get the same spots.
 */
export function placeFieldTags(requests: readonly TagRequest[], page: { width: number; height: number }): TagSpot[] {
  const order = requests
    .map((_, index) => index)
    .sort((a, b) => {
      const first = requests[a]?.field ?? { top: 0, left: 0 };
      const second = requests[b]?.field ?? { top: 0, left: 0 };
      return first.top - second.top || first.left - second.left;
    });
  const placed: Box[] = [];
  const spots: TagSpot[] = new Array<TagSpot>(requests.length);
  for (const index of order) {
    const request = requests[index];
    if (!request) continue;
    const { field, width, height } = request;
    const isOnRightHalf = field.left + field.width / 2 > page.width / 2;
    const startEdge = clamp(isOnRightHalf ? field.left + field.width - width : field.left, 0, page.width - width);
    const otherEdge = clamp(isOnRightHalf ? field.left : field.left + field.width - width, 0, page.width - width);
    const above = field.top - height;
    const below = field.top + field.height;
    const rows: Array<{ top: number; isBelow: boolean }> = [
      { top: above, isBelow: false },
      { top: below, isBelow: true },
      ...Array.from({ length: maxLift }, (_, lift) => ({ top: above - (lift + 1) * height, isBelow: false })),
      ...Array.from({ length: maxLift }, (_, lift) => ({ top: below + (lift + 1) * height, isBelow: true })),
    ];
    const candidates = rows.flatMap((row) => [startEdge, otherEdge].map((left) => ({ left, ...row })));
    const onPage = candidates.filter((spot) => spot.top >= 0 && spot.top + height <= page.height);
    const free = onPage.find((spot) => placed.every((box) => !isCrossing(box, { left: spot.left, top: spot.top, width, height })));
    const spot = free ?? onPage[0] ?? { left: startEdge, top: clamp(above, 0, page.height - height), isBelow: false };
    placed.push({ left: spot.left, top: spot.top, width, height });
    spots[index] = spot;
  }
  return spots;
}

/**
 * Measures the tags of the fields in a page's field layer and moves each to its spot (inline
 * left and top inside its field's box). Writes only what changed, so calling it after every render
 * costs a read of the layout when nothing moved.
 */
export function arrangeFieldTags(layer: HTMLElement): void {
  const layerBox = layer.getBoundingClientRect();
  const tags = [...layer.querySelectorAll<HTMLElement>(':scope > .field-box > .field-tag')];
  const measured = tags.map((tag) => {
    const box = tag.parentElement as HTMLElement;
    const fieldRect = box.getBoundingClientRect();
    const tagRect = tag.getBoundingClientRect();
    return {
      tag,
      // The tag is placed inside the field's padding box: its origin is inside the field's border.
      origin: { left: fieldRect.left - layerBox.left + box.clientLeft, top: fieldRect.top - layerBox.top + box.clientTop },
      request: {
        field: { left: fieldRect.left - layerBox.left, top: fieldRect.top - layerBox.top, width: fieldRect.width, height: fieldRect.height },
        width: tagRect.width,
        height: tagRect.height,
      },
    };
  });
  const spots = placeFieldTags(
    measured.map((entry) => entry.request),
    { width: layerBox.width, height: layerBox.height },
  );
  measured.forEach(({ tag, origin }, index) => {
    const spot = spots[index];
    if (!spot) return;
    const left = `${Math.round((spot.left - origin.left) * 100) / 100}px`;
    const top = `${Math.round((spot.top - origin.top) * 100) / 100}px`;
    if (tag.style.left !== left) tag.style.left = left;
    if (tag.style.top !== top) tag.style.top = top;
    if (tag.style.bottom !== 'auto') Object.assign(tag.style, { bottom: 'auto', right: 'auto' });
    const side = spot.isBelow ? 'below' : 'above';
    if (tag.dataset.side !== side) tag.dataset.side = side;
  });
}
