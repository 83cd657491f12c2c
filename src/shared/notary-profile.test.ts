import { describe, expect, it } from 'vitest';
import { describeMissingCommissionFields } from './notary-profile.ts';

describe('describeMissingCommissionFields', () => {
  it('is null when state, number, county and expiry are all given', () => {
    expect(
      describeMissingCommissionFields({ commissionState: 'TX', commissionNumber: 'TX-1', county: 'Travis', commissionExpiresOn: '2030-03-31' }),
    ).toBeNull();
  });

  it('names every field not given, in the order of the form', () => {
    expect(describeMissingCommissionFields({})).toBe(
      'The commission details are not on file yet: enter the commissioning state, the commission number, the county and the commission expiry date.',
    );
    expect(describeMissingCommissionFields({ commissionState: 'TX', county: 'Travis' })).toBe(
      'The commission details are not on file yet: enter the commission number and the commission expiry date.',
    );
    expect(describeMissingCommissionFields({ commissionState: 'TX', commissionNumber: 'TX-1', county: 'Travis' })).toBe(
      'The commission details are not on file yet: enter the commission expiry date.',
    );
  });

  it('counts blank text and null as not given', () => {
    expect(describeMissingCommissionFields({ commissionState: 'TX', commissionNumber: '   ', county: null, commissionExpiresOn: '2030-03-31' })).toBe(
      'The commission details are not on file yet: enter the commission number and the county.',
    );
  });
});
