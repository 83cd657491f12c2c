/**
 * The most a notary may charge for one online notarial act, by commissioning state, as data with
 * its citation (decision 047). A state is a row: a state without a row has no cap recorded here, and
 * nothing the product prints claims one for it. Platform fees (the technology, identity checks,
 * witnesses) are not the notarial fee and are shown apart from it.
 */
export interface NotarialFeeCap {
  /** Two-letter state code. */
  code: string;
  name: string;
  /** The most the notarial fee of one online act with one signature may be, in cents. */
  perActCents: number;
  /** What the cap is, as a sentence with its subject ("Florida caps …"). */
  rule: string;
  citation: string;
}

export const notarialFeeCaps: readonly NotarialFeeCap[] = [
  {
    code: 'TX',
    name: 'Texas',
    // $25 for the online notarization, on top of the fee for the act itself: an acknowledgment's
    // first signature or an oath, $10 each since H.B. 255 (2023).
    perActCents: 3500,
    rule: 'Texas allows $25 for an online notarization in addition to the fee for the act ($10 for an acknowledgment’s first signature or an oath)',
    citation: 'Tex. Gov’t Code § 406.111; § 406.024(a)(5)-(6)',
  },
  {
    code: 'FL',
    name: 'Florida',
    perActCents: 2500,
    rule: 'Florida allows at most $25 for an online notarization',
    citation: 'Fla. Stat. § 117.275',
  },
  {
    code: 'VA',
    name: 'Virginia',
    perActCents: 2500,
    rule: 'Virginia allows at most $25 for each electronic notarial act',
    citation: 'Va. Code § 47.1-19(B)',
  },
];

export function findNotarialFeeCap(stateCode: string | null | undefined): NotarialFeeCap | null {
  return notarialFeeCaps.find((cap) => cap.code === stateCode) ?? null;
}

/** The states whose cap a notarial fee of this many cents per act is above, lowest cap first. */
export function capsExceededBy(perActCents: number): NotarialFeeCap[] {
  return notarialFeeCaps.filter((cap) => perActCents > cap.perActCents).sort((a, b) => a.perActCents - b.perActCents);
}
