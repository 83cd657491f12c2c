import { formatDateTime } from '#shared/dates.ts';
import type { GnwLoop } from '#shared/gnw.ts';

/** The words of the notary loop test page (decision 051), apart from React so they can be tested. */

type Candidate = GnwLoop['candidates'][number];

const relativeUnits: Array<{ unit: Intl.RelativeTimeFormatUnit; seconds: number }> = [
  { unit: 'day', seconds: 86_400 },
  { unit: 'hour', seconds: 3_600 },
  { unit: 'minute', seconds: 60 },
];

/** "3 minutes ago", "yesterday", "now": how long ago an instant was, in words. */
export function describeHowLongAgo(value: string, now: number): string {
  const seconds = Math.round((Date.parse(value) - now) / 1000);
  if (Number.isNaN(seconds)) return '';
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const { unit, seconds: size } of relativeUnits) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return Math.abs(seconds) < 10 ? 'just now' : format.format(seconds, 'second');
}

/** "Nov 23, 2026, 2:05 PM EST (3 minutes ago)", or "Never offered". */
export function describeLastOffered(lastOfferedAt: string | null, now: number, timeZone?: string): string {
  if (!lastOfferedAt) return 'Never offered';
  const when = formatDateTime(lastOfferedAt, { timeZone });
  if (!when) return 'Never offered';
  return `${when} (${describeHowLongAgo(lastOfferedAt, now)})`;
}

/** Next in line first (order 1, 2, …), then those left out, by name. */
export function sortCandidates(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort((first, second) => {
    if (first.order !== null && second.order !== null) return first.order - second.order;
    if (first.order !== null) return -1;
    if (second.order !== null) return 1;
    return first.name.localeCompare(second.name);
  });
}

/** Whether an administrator may send this notary a test offer: next in line for real offers, and opted in. */
export function canSendTestOffer(candidate: Pick<Candidate, 'eligible' | 'acceptsTestOffers'>): boolean {
  return candidate.eligible && candidate.acceptsTestOffers;
}

function count(value: number, one: string, many: string): string {
  return `${value} ${value === 1 ? one : many}`;
}

/** "2 requests searching for a notary. 1 offer ringing now." */
export function describeLoopCounts(loop: Pick<GnwLoop, 'searching' | 'openOffers'>): string {
  const searching = loop.searching === 0 ? 'No request is searching for a notary.' : `${count(loop.searching, 'request', 'requests')} searching for a notary.`;
  const ringing = loop.openOffers === 0 ? 'No offer is ringing.' : `${count(loop.openOffers, 'offer', 'offers')} ringing now.`;
  return `${searching} ${ringing}`;
}

/** What the page says when the table is empty or nobody can be offered. */
export function describeLoopEmptiness(loop: Pick<GnwLoop, 'candidates'>): string | null {
  if (loop.candidates.length === 0) return 'No approved notaries yet. Approved notaries appear here with where the next offer would go.';
  if (!loop.candidates.some((candidate) => candidate.eligible)) return 'No notary is eligible for this state and act right now: an offer would find nobody.';
  return null;
}
