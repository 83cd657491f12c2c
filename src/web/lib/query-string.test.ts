import { describe, expect, it } from 'vitest';
import { toQueryString } from './query-string.ts';

describe('toQueryString', () => {
  it('leaves out filters that are not set, so an empty search asks for everything', () => {
    expect(toQueryString({ q: '  ', role: undefined, status: null, page: 1, pageSize: 20 })).toBe('page=1&pageSize=20');
  });

  it('trims the words searched and encodes them', () => {
    expect(toQueryString({ q: '  Nora & Sons ', status: 'approved', page: 2 })).toBe('q=Nora+%26+Sons&status=approved&page=2');
  });
});
