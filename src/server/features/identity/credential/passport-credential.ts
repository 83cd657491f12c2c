import { states, type FieldName, type ParseResult } from 'mrz';
import type { CredentialCheck, CredentialFields } from '#shared/identity.ts';
import {
  checkBirthDateMatches,
  checkNameMatches,
  checkNotExpired,
  joinWords,
  toLastFour,
  toReading,
  toUnreadable,
  type CredentialReading,
  type StatedPerson,
} from './credential-checks.ts';
import { readPassportZone } from './passport-zone.ts';

/** A passport: the two machine-readable lines at the bottom of its photo page (ICAO 9303 TD3). */

const unreadableZone =
  'The two lines of letters and <<< signs at the bottom of the passport’s photo page could not be read. Take the photo again in good light, the whole page flat and in the frame.';

const checkDigitWords: Partial<Record<FieldName, string>> = {
  documentNumberCheckDigit: 'passport number',
  birthDateCheckDigit: 'date of birth',
  expirationDateCheckDigit: 'expiry date',
  personalNumberCheckDigit: 'personal number',
  compositeCheckDigit: 'second line as a whole',
};

const fieldWords: Partial<Record<FieldName, string>> = {
  documentCode: 'document type',
  issuingState: 'issuing country',
  lastName: 'last name',
  firstName: 'given names',
  documentNumber: 'passport number',
  nationality: 'nationality',
  birthDate: 'date of birth',
  sex: 'sex',
  expirationDate: 'expiry date',
  personalNumber: 'personal number',
};

/** The ICAO example country of specimen documents, which mrz does not know as a state. */
const specimenState = 'UTO';

function toStateName(code: string | null | undefined): string | null {
  if (!code) return null;
  const name = (states as Record<string, string | undefined>)[code];
  return name ? name.replace(/\s*\(the\)$/, '') : code;
}

/** YYMMDD as YYYY-MM-DD. Birth dates are in the past; expiry dates after 1970. */
function toIsoDate(value: string | null | undefined, kind: 'birth' | 'expiry', now: Date): string | null {
  if (!value || !/^\d{6}$/.test(value)) return null;
  const year = Number(value.slice(0, 2));
  const century = kind === 'birth' ? (year > now.getUTCFullYear() % 100 ? 1900 : 2000) : year >= 70 ? 1900 : 2000;
  const iso = `${century + year}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}

function checkFormat(result: ParseResult, issuingState: string): CredentialCheck {
  if (!result.fields.documentCode?.startsWith('P')) {
    return { id: 'format', passed: false, sentence: 'The machine-readable lines are not those of a passport. Take a photo of the passport’s photo page.' };
  }
  if (issuingState === specimenState) {
    return {
      id: 'format',
      passed: false,
      sentence: 'This is a specimen passport (issued by Utopia, the example country of the passport standard), not a real one.',
    };
  }
  const invalid = result.details.filter((detail) => detail.field && !detail.field.endsWith('CheckDigit') && !detail.valid);
  if (invalid.length > 0) {
    const words = [...new Set(invalid.map((detail) => (detail.field && fieldWords[detail.field]) ?? detail.label.toLowerCase()))];
    return {
      id: 'format',
      passed: false,
      sentence: `The passport’s machine-readable lines have an invalid ${joinWords(words)}. Take the photo again; if this persists, the passport cannot be verified.`,
    };
  }
  return { id: 'format', passed: true, sentence: `The machine-readable lines are in the passport format, issued by ${toStateName(issuingState)}.` };
}

function checkCheckDigits(result: ParseResult): CredentialCheck {
  const wrong = result.details.filter((detail) => detail.field?.endsWith('CheckDigit') && !detail.valid);
  if (wrong.length === 0) return { id: 'check_digits', passed: true, sentence: 'Every check digit in the passport’s machine-readable lines is right.' };
  const words = wrong.map((detail) => (detail.field && checkDigitWords[detail.field]) ?? detail.label.toLowerCase());
  return {
    id: 'check_digits',
    passed: false,
    sentence: `${wrong.length === 1 ? 'The check digit for the' : 'The check digits for the'} ${joinWords(words)} ${wrong.length === 1 ? 'is' : 'are'} wrong. Take the photo again; if this persists, the passport may have been altered.`,
  };
}

export async function analysePassport(passport: Buffer | undefined, person: StatedPerson, now: Date): Promise<CredentialReading> {
  if (!passport || passport.length === 0) return toUnreadable('passport', 'Add a photo of the passport’s photo page.');
  const reading = await readPassportZone(passport);
  if (reading.status === 'not_image') {
    return toUnreadable('passport', 'The photo of the passport could not be opened as an image. Upload a JPEG, PNG or WebP photo of its photo page.');
  }
  if (reading.status === 'no_zone') return toUnreadable('passport', unreadableZone);

  const { result, lines } = reading;
  // mrz blanks a field it finds invalid; the raw characters are still in the lines.
  const issuingState = lines[0].slice(2, 5).replace(/</g, '');
  const documentNumber = result.fields.documentNumber ?? (lines[1].slice(0, 9).replace(/</g, '') || null);
  const givenNames = result.fields.firstName ?? null;
  const lastName = result.fields.lastName ?? null;
  const fields: CredentialFields = {
    firstName: givenNames,
    lastName,
    birthDate: toIsoDate(result.fields.birthDate, 'birth', now),
    expiryDate: toIsoDate(result.fields.expirationDate, 'expiry', now),
    issuer: toStateName(result.fields.issuingState) ?? (issuingState || null),
    address: null,
    documentNumberLast4: toLastFour(documentNumber),
  };
  const firstGivenName = givenNames?.split(' ')[0];
  const checks: CredentialCheck[] = [
    { id: 'readable', passed: true, sentence: 'The machine-readable lines on the passport’s photo page were read.' },
    checkFormat(result, issuingState),
    checkCheckDigits(result),
    checkNotExpired(fields.expiryDate, now),
    checkNameMatches(person, {
      shownName: [givenNames, lastName].filter(Boolean).join(' '),
      firstNames: givenNames ? [...new Set([givenNames, firstGivenName ?? givenNames])] : [],
      lastName,
    }),
    checkBirthDateMatches(person, fields.birthDate),
  ];
  return toReading('passport', fields, documentNumber, checks);
}
