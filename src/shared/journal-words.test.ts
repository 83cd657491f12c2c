import { describe, expect, it } from 'vitest';
import { describeFinalized, describeIdDocument, formatJournalTime, getFinalizeQuestion } from './journal-words.ts';

describe('formatJournalTime', () => {
  it('writes an instant as people read it, in UTC when no zone is known', () => {
    expect(formatJournalTime('2026-11-26T22:22:23.459Z', null)).toBe('26 November 2026, 22:22 UTC');
  });

  it('writes it in the notary’s zone when known, naming the zone', () => {
    expect(formatJournalTime('2026-11-26T22:22:23.459Z', 'America/Chicago')).toBe('26 November 2026, 16:22 (America/Chicago)');
  });

  it('says when nothing was recorded, and keeps a value it cannot read', () => {
    expect(formatJournalTime(null, 'UTC')).toBe('not recorded');
    expect(formatJournalTime('soon', 'UTC')).toBe('soon');
  });
});

describe('describeIdDocument', () => {
  it('names the ID type in the product’s words, and keeps an unknown one as it came', () => {
    expect(describeIdDocument('drivers_license')).toBe('Driver’s licence');
    expect(describeIdDocument('passport')).toBe('Passport');
    expect(describeIdDocument('military_id')).toBe('military_id');
    expect(describeIdDocument(null)).toBe('');
  });
});

describe('the words around finalizing', () => {
  it('says an entry is final, cannot be changed, and is corrected by an addendum', () => {
    expect(describeFinalized(1)).toBe('This entry is final: it can no longer be changed; add an addendum to correct it.');
    expect(describeFinalized(2)).toBe('These 2 entries are final: they can no longer be changed; add an addendum to correct one.');
  });

  it('asks before finalizing, saying what cannot be undone', () => {
    expect(getFinalizeQuestion(1)).toEqual({
      title: 'Finalize this journal entry?',
      description: 'A final entry can never be changed or taken back: a correction is an addendum beside it. This cannot be undone.',
      confirmLabel: 'Finalize',
    });
    expect(getFinalizeQuestion(3).title).toBe('Finalize these 3 journal entries?');
  });
});
