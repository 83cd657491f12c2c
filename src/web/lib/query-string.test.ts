import { describe, expect, it } from 'vitest';
import { readListAddress, toQueryString } from './query-string.ts';

describe('toQueryString', () => {
  it('leaves out filters that are not set, so an empty search asks for everything', () => {
    expect(toQueryString({ q: '  ', role: undefined, status: null, page: 1, pageSize: 20 })).toBe('page=1&pageSize=20');
  });

  it('trims the words searched and encodes them', () => {
    expect(toQueryString({ q: '  Nora & Sons ', status: 'approved', page: 2 })).toBe('q=Nora+%26+Sons&status=approved&page=2');
  });
});

describe('readListAddress', () => {
  it('reads the search, the page and the choices a list knows from its address, and ignores the rest', () => {
    const choices = { status: ['approved', 'closed'], role: ['admin', 'notary'] };
    expect(readListAddress(new URLSearchParams('q=acme&status=closed&role=notary&page=4&x=1'), choices)).toEqual({
      q: 'acme',
      page: 4,
      choices: { status: 'closed', role: 'notary' },
    });
    expect(readListAddress(new URLSearchParams('status=sold&page=0'), choices)).toEqual({ q: '', page: 1, choices: { status: '', role: '' } });
    expect(readListAddress(new URLSearchParams('page=2.5'), choices).page).toBe(1);
    expect(readListAddress(new URLSearchParams(`q=${'a'.repeat(300)}`), choices).q).toHaveLength(200);
  });
});
