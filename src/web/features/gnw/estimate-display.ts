import type { GnwEstimate } from '#shared/gnw.ts';
import { formatCents, priceUnitLabels } from '#shared/pricing.ts';

/**
 * The live estimate as the person reads it (decision 051): each line with its count, the notary's
 * notarial fee apart from the platform's fees, and the state's cap with its citation. Cents become
 * dollars only here, through formatCents.
 */
export interface EstimateLineView {
  key: string;
  label: string;
  /** "2 × $10.00 per signer", or "$10.00 per job" for one. */
  detail: string;
  amount: string;
}

export interface EstimateView {
  notarial: { lines: EstimateLineView[]; subtotal: string };
  platform: { lines: EstimateLineView[]; subtotal: string };
  total: string;
  /** "Texas allows … (Tex. Gov’t Code § 406.111)." — null when the state has no cap recorded. */
  capSentence: string | null;
  notes: string[];
}

function toLineView(line: GnwEstimate['lines'][number]): EstimateLineView {
  const unit = `${formatCents(line.unitCents)} ${priceUnitLabels[line.unit]}`;
  return { key: line.key, label: line.label, detail: line.quantity === 1 ? unit : `${line.quantity} × ${unit}`, amount: formatCents(line.amountCents) };
}

export function toEstimateView(estimate: GnwEstimate): EstimateView {
  // A line counted zero times (no witnesses asked for) costs nothing and is left out.
  const counted = estimate.lines.filter((line) => line.quantity > 0);
  return {
    notarial: { lines: counted.filter((line) => line.feeKind === 'notarial').map(toLineView), subtotal: formatCents(estimate.notarialCents) },
    platform: { lines: counted.filter((line) => line.feeKind === 'platform').map(toLineView), subtotal: formatCents(estimate.platformCents) },
    total: formatCents(estimate.totalCents),
    capSentence: estimate.cap ? `${estimate.cap.rule.replace(/[.\s]+$/, '')} (${estimate.cap.citation}).` : null,
    notes: estimate.notes,
  };
}
