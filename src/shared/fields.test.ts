import { describe, expect, it } from 'vitest';
import { defaultFieldSizes, findFreeSpot, isNotaryField } from './fields.ts';

describe('findFreeSpot', () => {
  it('puts the first field near the top left of an empty page', () => {
    expect(findFreeSpot([], { width: 0.3, height: 0.06 })).toEqual({ x: 0.05, y: 0.05, width: 0.3, height: 0.06 });
  });

  it('never covers a field that is already there', () => {
    const existing = [{ x: 0.05, y: 0.05, width: 0.9, height: 0.1 }];
    const spot = findFreeSpot(existing, defaultFieldSizes.notary_seal);
    expect(spot.y).toBeGreaterThanOrEqual(0.15);
  });

  it('keeps placing fields without overlap until the page is full, then falls back to the centre', () => {
    const placed: Array<{ x: number; y: number; width: number; height: number }> = [];
    for (let index = 0; index < 12; index += 1) placed.push(findFreeSpot(placed, { width: 0.4, height: 0.1 }));
    for (const [index, a] of placed.entries()) {
      for (const b of placed.slice(index + 1)) {
        const isApart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        if (!(a.x === 0.3 && a.y === 0.45)) expect(isApart || (b.x === 0.3 && b.y === 0.45)).toBe(true);
      }
    }
    expect(findFreeSpot([{ x: 0, y: 0, width: 1, height: 1 }], { width: 0.2, height: 0.1 })).toEqual({ x: 0.4, y: 0.45, width: 0.2, height: 0.1 });
  });
});

describe('isNotaryField', () => {
  it('tells notary fields from signer fields', () => {
    expect(isNotaryField('notary_seal')).toBe(true);
    expect(isNotaryField('signature')).toBe(false);
  });
});
