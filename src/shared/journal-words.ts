import { documentTypeNames, type DocumentType } from './identity.ts';

/**
 * The journal's words for people: the page, the CSV's readable columns and the
 * signed PDF write dates as "26 November 2026, 22:22 UTC" and ID types as the identity step names
 * them, never `2026-11-26T22:22:23.459Z` or `drivers_license`. Times are in the notary's zone when
 * their profile names one, the zone said after the time.
 */
export function formatJournalTime(iso: string | null | undefined, timeZone: string | null | undefined): string {
  if (!iso) return 'not recorded';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const zone = timeZone || 'UTC';
  let parts: Record<string, string>;
  try {
    parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', { timeZone: zone, day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
        .formatToParts(date)
        .map((part) => [part.type, part.value]),
    );
  } catch {
    return formatJournalTime(iso, 'UTC');
  }
  return `${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute} ${zone === 'UTC' ? 'UTC' : `(${zone})`}`;
}

/** The ID type as the identity step names it ("Driver’s licence"); an unknown code stays as it came. */
export function describeIdDocument(type: string | null | undefined): string {
  if (!type) return '';
  return type in documentTypeNames ? documentTypeNames[type as DocumentType] : type;
}

/** What the page says once entries are finalized. */
export function describeFinalized(count: number): string {
  return count === 1
    ? 'This entry is final: it can no longer be changed; add an addendum to correct it.'
    : `These ${count} entries are final: they can no longer be changed; add an addendum to correct one.`;
}

/** The question "Finalize in my journal" asks first (a final entry never changes, decision 026). */
export function getFinalizeQuestion(count: number): { title: string; description: string; confirmLabel: string } {
  return {
    title: count === 1 ? 'Finalize this journal entry?' : `Finalize these ${count} journal entries?`,
    description: 'A final entry can never be changed or taken back: a correction is an addendum beside it. This cannot be undone.',
    confirmLabel: 'Finalize',
  };
}
