import { describe, expect, it } from 'vitest';
import { placeFieldTags, type TagRequest } from './tag-layout.ts';

const page = { width: 600, height: 800 };
const tag = { width: 120, height: 14 };

function boxesOf(requests: readonly TagRequest[]) {
  return placeFieldTags(requests, page).map((spot, index) => ({ ...spot, width: requests[index]?.width ?? 0, height: requests[index]?.height ?? 0 }));
}

function findCrossings(boxes: ReturnType<typeof boxesOf>): string[] {
  return boxes.flatMap((first, index) =>
    boxes
      .slice(index + 1)
      .filter(
        (second) =>
          first.left < second.left + second.width &&
          second.left < first.left + first.width &&
          first.top < second.top + second.height &&
          second.top < first.top + first.height,
      )
      .map(() => `tag ${index}`),
  );
}

describe('where the tags of a page’s fields go', () => {
  it('puts a lone field’s tag just above it, from its left edge, or from its right edge on the right half', () => {
    expect(placeFieldTags([{ field: { left: 60, top: 200, width: 180, height: 40 }, ...tag }], page)).toEqual([{ left: 60, top: 186, isBelow: false }]);
    expect(placeFieldTags([{ field: { left: 400, top: 200, width: 180, height: 40 }, ...tag }], page)).toEqual([{ left: 460, top: 186, isBelow: false }]);
  });

  it('puts the tag of a field at the very top of the page below it, and keeps every tag inside the page', () => {
    expect(placeFieldTags([{ field: { left: 0, top: 0, width: 180, height: 30 }, ...tag }], page)).toEqual([{ left: 0, top: 30, isBelow: true }]);
    const [spot] = placeFieldTags([{ field: { left: 590, top: 300, width: 10, height: 10 }, ...tag }], page);
    expect(spot?.left).toBe(page.width - tag.width);
  });

  it('keeps apart the tags of a date and a checkbox placed side by side on one line, each tag wider than its field', () => {
    const line: TagRequest[] = [
      { field: { left: 48, top: 180, width: 180, height: 36 }, width: 140, height: 14 },
      { field: { left: 240, top: 195, width: 60, height: 21 }, ...tag },
      { field: { left: 306, top: 200, width: 18, height: 16 }, width: 136, height: 14 },
      { field: { left: 330, top: 200, width: 18, height: 16 }, width: 136, height: 14 },
    ];
    const boxes = boxesOf(line);
    expect(findCrossings(boxes)).toEqual([]);
    // The first comes first: the signature's tag is where it would be alone.
    expect(boxes[0]).toMatchObject({ left: 48, top: 166 });
  });

  it('gives the same spots whatever the order the fields are listed in', () => {
    const fields: TagRequest[] = [
      { field: { left: 240, top: 195, width: 60, height: 21 }, ...tag },
      { field: { left: 306, top: 200, width: 18, height: 16 }, ...tag },
      { field: { left: 48, top: 180, width: 180, height: 36 }, ...tag },
    ];
    const forwards = placeFieldTags(fields, page);
    const backwards = placeFieldTags([...fields].reverse(), page).reverse();
    expect(backwards).toEqual(forwards);
  });
});
