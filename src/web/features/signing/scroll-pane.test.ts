import { describe, expect, it } from 'vitest';
import { findScrollTop } from './scroll-pane.ts';

// A pane 600 px high on screen at y = 100, scrolled 400 px down a 3000 px column, 16 px of padding on top.
const pane = { top: 100, height: 600, scrollTop: 400, scrollHeight: 3000, paddingTop: 16 };

describe('scrolling a pane to an element inside it', () => {
  it('brings a page to the pane’s top, below its padding', () => {
    // The page's top is 900 px down the screen: 800 px below the pane's top.
    expect(findScrollTop(pane, { top: 900, height: 1000 }, 'start')).toBe(400 + 800 - 16);
  });

  it('centres a field in the pane', () => {
    expect(findScrollTop(pane, { top: 900, height: 40 }, 'center')).toBe(400 + 800 - (600 - 40) / 2);
  });

  it('leaves the pane where it is when the element is already in sight with "nearest"', () => {
    expect(findScrollTop(pane, { top: 300, height: 40 }, 'nearest')).toBe(400);
  });

  it('scrolls only as far as needed with "nearest": an element below the pane ends at its bottom, one above starts at its top', () => {
    expect(findScrollTop(pane, { top: 750, height: 40 }, 'nearest')).toBe(400 + 750 + 40 - 700);
    expect(findScrollTop(pane, { top: 50, height: 40 }, 'nearest')).toBe(400 - 50);
  });

  it('never goes past either end of the column', () => {
    expect(findScrollTop(pane, { top: -1000, height: 40 }, 'start')).toBe(0);
    expect(findScrollTop(pane, { top: 5000, height: 40 }, 'start')).toBe(3000 - 600);
  });
});
