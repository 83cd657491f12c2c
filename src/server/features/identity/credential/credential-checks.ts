import { formatCalendarDay } from '#shared/dates.ts';
import type { CredentialCheck, CredentialFields, DocumentType } from '#shared/identity.ts';
import { isSameName } from './name-match.ts';

/** What the analysis of one ID found. `documentNumber` is the full number: the caller's policy decides whether it is kept. */
export interface CredentialReading {
  passed: boolean;
  documentType: DocumentType;
  fields: CredentialFields;
  documentNumber: string | null;
  checks: CredentialCheck[];
}

/** What the person stated about themselves, compared with the ID. */
export interface StatedPerson {
  legalName: string;
  /** YYYY-MM-DD */
  birthDate: string;
}

export const emptyFields: CredentialFields = {
  firstName: null,
  lastName: null,
  birthDate: null,
  expiryDate: null,
  issuer: null,
  address: null,
  documentNumberLast4: null,
};

export function toReading(documentType: DocumentType, fields: CredentialFields, documentNumber: string | null, checks: CredentialCheck[]): CredentialReading {
  return { passed: checks.length > 0 && checks.every((check) => check.passed), documentType, fields, documentNumber, checks };
}

/** A reading of an ID that could not be read at all: no other check is made up. */
export function toUnreadable(documentType: DocumentType, sentence: string): CredentialReading {
  return toReading(documentType, emptyFields, null, [{ id: 'readable', passed: false, sentence }]);
}

export function toLastFour(documentNumber: string | null): string | null {
  return documentNumber ? documentNumber.slice(-4) : null;
}

/** The ID is valid through its expiry date (UTC). */
export function checkNotExpired(expiryDate: string | null, now: Date): CredentialCheck {
  if (!expiryDate) return { id: 'not_expired', passed: false, sentence: 'The expiry date could not be read from the ID.' };
  const today = now.toISOString().slice(0, 10);
  return expiryDate >= today
    ? { id: 'not_expired', passed: true, sentence: `The ID is valid until ${formatCalendarDay(expiryDate, { locale: 'en-US' })}.` }
    : { id: 'not_expired', passed: false, sentence: `This ID expired on ${formatCalendarDay(expiryDate, { locale: 'en-US' })}.` };
}

export function checkNameMatches(person: StatedPerson, id: { shownName: string; firstNames: string[]; lastName: string | null }): CredentialCheck {
  if (!id.lastName || id.firstNames.length === 0) return { id: 'name_matches', passed: false, sentence: 'The name could not be read from the ID.' };
  return isSameName(person.legalName, { firstNames: id.firstNames, lastName: id.lastName })
    ? { id: 'name_matches', passed: true, sentence: `The name on the ID (${id.shownName}) matches the name you gave.` }
    : { id: 'name_matches', passed: false, sentence: `The name on the ID (${id.shownName}) does not match the name you gave (${person.legalName.trim()}).` };
}

export function checkBirthDateMatches(person: StatedPerson, birthDate: string | null): CredentialCheck {
  if (!birthDate) return { id: 'birth_date_matches', passed: false, sentence: 'The date of birth could not be read from the ID.' };
  return birthDate === person.birthDate
    ? { id: 'birth_date_matches', passed: true, sentence: 'The date of birth on the ID matches the one you gave.' }
    : {
        id: 'birth_date_matches',
        passed: false,
        sentence: `The date of birth on the ID (${birthDate}) does not match the one you gave (${person.birthDate}).`,
      };
}

/** A list in words: "a", "a and b", "a, b and c". */
export function joinWords(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
