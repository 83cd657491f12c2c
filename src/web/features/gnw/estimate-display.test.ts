import { describe, expect, it } from 'vitest';
import type { GnwEstimate } from '#shared/gnw.ts';
import { toEstimateView } from './estimate-display.ts';

const estimate: GnwEstimate = {
  lines: [
    { key: 'platform', label: 'Platform fee', unit: 'job', feeKind: 'platform', quantity: 1, unitCents: 1000, amountCents: 1000 },
    { key: 'first_seal', label: 'Notarial act', unit: 'act', feeKind: 'notarial', quantity: 2, unitCents: 2500, amountCents: 5000 },
    { key: 'identity_check', label: 'Identity check', unit: 'signer', feeKind: 'platform', quantity: 2, unitCents: 400, amountCents: 800 },
    { key: 'witness', label: 'Witness', unit: 'witness', feeKind: 'platform', quantity: 0, unitCents: 1500, amountCents: 0 },
  ],
  notarialCents: 5000,
  platformCents: 1800,
  totalCents: 123_456,
  cap: {
    state: 'FL',
    stateName: 'Florida',
    perActCents: 2500,
    rule: 'Florida allows at most $25 for an online notarization',
    citation: 'Fla. Stat. § 117.275',
  },
  notes: ['The notarial fee is within Florida’s cap.'],
};

describe('toEstimateView', () => {
  it('shows the notarial fee apart from the platform fees, each line in dollars with its count', () => {
    const view = toEstimateView(estimate);
    expect(view.notarial).toEqual({
      lines: [{ key: 'first_seal', label: 'Notarial act', detail: '2 × $25.00 per notarial act', amount: '$50.00' }],
      subtotal: '$50.00',
    });
    expect(view.platform.lines).toEqual([
      { key: 'platform', label: 'Platform fee', detail: '$10.00 per job', amount: '$10.00' },
      { key: 'identity_check', label: 'Identity check', detail: '2 × $4.00 per signer', amount: '$8.00' },
    ]);
    expect(view.platform.subtotal).toBe('$18.00');
    expect(view.total).toBe('$1,234.56');
  });

  it('states the cap with its citation, and claims none for a state without a cap row', () => {
    expect(toEstimateView(estimate).capSentence).toBe('Florida allows at most $25 for an online notarization (Fla. Stat. § 117.275).');
    expect(toEstimateView(estimate).notes).toEqual(['The notarial fee is within Florida’s cap.']);
    expect(toEstimateView({ ...estimate, cap: null }).capSentence).toBeNull();
  });
});
