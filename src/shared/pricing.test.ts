import { describe, expect, it } from 'vitest';
import { capsExceededBy, findNotarialFeeCap, notarialFeeCaps } from './fee-caps.ts';
import { formatCents, notarialFeeRefusal, parseDollarsToCents } from './pricing.ts';

describe('money written for people', () => {
  it('formats whole cents as dollars and cents', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(2500)).toBe('$25.00');
    expect(formatCents(123456789)).toBe('$1,234,567.89');
    expect(formatCents(-1999)).toBe('-$19.99');
  });

  it('reads what a person types as whole cents, and nothing else', () => {
    const read: Array<[string, number | null]> = [
      ['25', 2500],
      ['25.5', 2550],
      ['25.50', 2550],
      ['$25.05', 2505],
      ['$ 1,234.56', 123456],
      [' 0.1 ', 10],
      ['0.29', 29],
      ['25.555', null],
      ['1,23.00', null],
      ['-5', null],
      ['', null],
      ['abc', null],
      ['1e3', null],
      ['25,00', null],
      ['9999999999', null],
    ];
    for (const [text, cents] of read) expect(parseDollarsToCents(text), text).toBe(cents);
  });
});

describe('the notarial fee caps', () => {
  it('are rows with a citation each, and a state without a row has no cap claimed', () => {
    for (const cap of notarialFeeCaps) {
      expect(cap.citation).toMatch(/§/);
      expect(Number.isInteger(cap.perActCents)).toBe(true);
    }
    expect(findNotarialFeeCap('TX')?.perActCents).toBe(3500);
    expect(findNotarialFeeCap('CA')).toBeNull();
  });

  it('name every state whose cap a fee is above, lowest first, and nothing at or below the lowest cap', () => {
    expect(capsExceededBy(2500)).toEqual([]);
    expect(capsExceededBy(2501).map((cap) => cap.code)).toEqual(['FL', 'VA']);
    expect(capsExceededBy(3501).map((cap) => cap.code)).toEqual(['FL', 'VA', 'TX']);
    expect(notarialFeeRefusal(2500)).toBeNull();
    expect(notarialFeeRefusal(4000)).toBe(
      'A notarial fee of $40.00 per act is more than state law allows: Florida allows at most $25 for an online notarization (Fla. Stat. § 117.275); Virginia allows at most $25 for each electronic notarial act (Va. Code § 47.1-19(B)); Texas allows $25 for an online notarization in addition to the fee for the act ($10 for an acknowledgment’s first signature or an oath) (Tex. Gov’t Code § 406.111; § 406.024(a)(5)-(6)). Charge the rest as a platform fee.',
    );
  });
});
