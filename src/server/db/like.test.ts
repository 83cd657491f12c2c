import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike } from './like.ts';

describe('ILIKE patterns from what a person typed', () => {
  it('escapes %, _ and the backslash, and nothing else', () => {
    expect(escapeLike("100% owner_x \\ o'k")).toBe("100\\% owner\\_x \\\\ o'k");
    expect(escapeLike('Nguyen')).toBe('Nguyen');
  });

  it('matches the text anywhere', () => {
    expect(containsPattern('a_b')).toBe('%a\\_b%');
  });
});
