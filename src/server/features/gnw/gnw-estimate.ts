import { and, count, eq } from 'drizzle-orm';
import { findNotarialFeeCap } from '#shared/fee-caps.ts';
import type { GnwEstimate, GnwEstimateLine } from '#shared/gnw.ts';
import { formatCents, priceQuantity } from '#shared/pricing.ts';
import { getUsStateName } from '#shared/us-states.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, jobParticipants, type instantRequests } from '#server/db/schema/index.ts';
import { AppError } from '#server/lib/errors.ts';
import { completionPrices } from '#server/features/pricing/pricing.service.ts';

/**
 * The Notarize Now estimate (decision 051): the default price list (an instant job has no title
 * company) counted for the person's acts, signers and the witnesses the platform provides, the
 * notarial fee apart from the platform's fees, and the cap of the person's state with its citation.
 */

export interface GnwCounts {
  /** Notarial acts: one per signing document, at least one. */
  acts: number;
  signers: number;
  /** Witnesses the platform is asked to provide. */
  witnesses: number;
}

/** No price is set, so no amount may be shown as a price (409 prices_not_set). */
export const pricesNotSet = () =>
  new AppError(
    409,
    'prices_not_set',
    'Prices for Notarize Now are not set yet, so we cannot tell you what it costs or take a payment. Please try again later.',
  );

const perActWords = (acts: number) => (acts === 1 ? '1 notarial act' : `${acts} notarial acts`);

/**
 * The estimate for these counts and state, or null when the default prices charge nothing for it
 * (no price list): $0 is never presented as a price. The no-show price is a cancellation fee, not a
 * line of a notarization, so it is left out.
 */
export async function computeGnwEstimate(db: DbOrTx, counts: GnwCounts, signerState: string | null): Promise<GnwEstimate | null> {
  const prices = await completionPrices(db, null);
  const lines: GnwEstimateLine[] = prices
    .map((price) => ({ price, quantity: priceQuantity(price.unit, counts) }))
    .filter(({ quantity }) => quantity > 0)
    .map(({ price, quantity }) => ({
      key: price.key,
      label: price.label,
      unit: price.unit,
      feeKind: price.feeKind,
      quantity,
      unitCents: price.amountCents,
      amountCents: quantity * price.amountCents,
    }));
  const notarialCents = lines.filter((line) => line.feeKind === 'notarial').reduce((sum, line) => sum + line.amountCents, 0);
  const platformCents = lines.filter((line) => line.feeKind === 'platform').reduce((sum, line) => sum + line.amountCents, 0);
  const totalCents = notarialCents + platformCents;
  if (totalCents <= 0) return null;

  // The most one act carries: the per-act items, plus the per-further-act items for every act after the first.
  const perActCents = prices
    .filter((price) => price.feeKind === 'notarial' && (price.unit === 'act' || (price.unit === 'additional_act' && counts.acts > 1)))
    .reduce((sum, price) => sum + price.amountCents, 0);
  const capRow = findNotarialFeeCap(signerState);
  const cap = capRow ? { state: capRow.code, stateName: capRow.name, perActCents: capRow.perActCents, rule: capRow.rule, citation: capRow.citation } : null;

  const notes: string[] = [
    notarialCents > 0
      ? `The notarial fee, the notary’s fee set by state law, is ${formatCents(notarialCents)} for ${perActWords(counts.acts)}.`
      : 'No notarial fee applies.',
  ];
  if (platformCents > 0) notes.push(`Platform fees of ${formatCents(platformCents)} are apart from the notarial fee and are not a notary’s fee.`);
  if (cap) {
    notes.push(
      perActCents <= cap.perActCents
        ? `${cap.rule} (${cap.citation}); the notarial fee of ${formatCents(perActCents)} per act is within it.`
        : `${cap.rule} (${cap.citation}); the notarial fee of ${formatCents(perActCents)} per act is above it, so an administrator must correct the prices before you pay.`,
    );
  } else if (signerState) {
    notes.push(`No notarial fee cap for ${getUsStateName(signerState)} is recorded here.`);
  } else {
    notes.push('Choose the state you are in to see its notarial fee cap.');
  }
  if (counts.witnesses > 0 && !lines.some((line) => line.unit === 'witness')) {
    notes.push(`The ${counts.witnesses === 1 ? 'witness' : 'witnesses'} the platform provides cost nothing extra.`);
  }
  notes.push(
    `This is an estimate: ${formatCents(totalCents)} is held on your card, and once the notarization is complete you are charged what it cost, never more than the hold.`,
  );
  return { lines, notarialCents, platformCents, totalCents, cap, notes };
}

type RequestRow = typeof instantRequests.$inferSelect;

/** What the job counts now: its signing documents (at least one act), its signers, the witnesses asked for. */
export async function countGnwJob(db: DbOrTx, request: Pick<RequestRow, 'jobId' | 'witnessesRequested'>): Promise<GnwCounts> {
  const [signing] = await db
    .select({ documents: count() })
    .from(documents)
    .where(and(eq(documents.jobId, request.jobId), eq(documents.tag, 'signing')));
  const [signers] = await db
    .select({ people: count() })
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, request.jobId), eq(jobParticipants.role, 'signer')));
  return { acts: Math.max(signing?.documents ?? 0, 1), signers: Math.max(signers?.people ?? 0, 1), witnesses: request.witnessesRequested };
}

/** The estimate of a request's job as it stands, or null when no price is set. */
export async function estimateGnwRequest(db: DbOrTx, request: Pick<RequestRow, 'jobId' | 'witnessesRequested' | 'signerState'>): Promise<GnwEstimate | null> {
  return computeGnwEstimate(db, await countGnwJob(db, request), request.signerState);
}
