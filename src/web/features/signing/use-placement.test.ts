import { describe, expect, it } from 'vitest';
import { defaultFieldSizes } from '#shared/fields.ts';
import { boxAtPointer, pointerForCentre } from './use-placement.ts';

describe('where a field placed by pointer goes', () => {
  it('puts the field’s bottom-left corner at the click, so the printed label left of and above the line stays visible', () => {
    const { width, height } = defaultFieldSizes.signature;
    expect(boxAtPointer('signature', 0.4, 0.5)).toEqual({ x: 0.4, y: 0.5 - height, width, height });
  });

  it('keeps the field on the page near the right and top edges', () => {
    const { width, height } = defaultFieldSizes.date;
    const box = boxAtPointer('date', 0.95, 0.01);
    expect(box.x).toBeCloseTo(1 - width, 4);
    expect(box).toMatchObject({ y: 0, width, height });
  });

  it('turns a centre (a drop from the palette) into the pointer spot that gives the same box', () => {
    const [x, y] = pointerForCentre('initials', 0.5, 0.5);
    const box = boxAtPointer('initials', x, y);
    expect(box.x + box.width / 2).toBeCloseTo(0.5, 4);
    expect(box.y + box.height / 2).toBeCloseTo(0.5, 4);
  });
});
