import type { CredentialCheck, CredentialFields, DocumentType } from '#shared/identity.ts';
import { parseAamva, parseAamvaDate, type AamvaRecord } from './aamva.ts';
import { decodeImage, readPdf417 } from './barcode-reader.ts';
import { checkFront } from './card-front.ts';
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
import { findJurisdictionByCode, findJurisdictionByIssuerNumber, type Jurisdiction } from './issuer-numbers.ts';

/** A US driver's licence or ID card: the PDF417 barcode on its back, in the AAMVA format, and the name and date of birth printed on its front. */

const describeNotImage = (side: string) =>
  `The photo of the ${side} could not be opened as an image. Upload a JPEG, PNG or WebP photo of the ${side} of the card.`;
const unreadableBarcode = 'The barcode on the back could not be read. Take the photo again in good light, the whole card in the frame.';

const requiredElements: [code: string, words: string][] = [
  ['DCS', 'last name'],
  ['DAC', 'first name'],
  ['DBB', 'date of birth'],
  ['DBA', 'expiry date'],
  ['DAQ', 'ID number'],
];

/** The standard writes these in a name field that has no value. */
const noValues = new Set(['', 'NONE', 'UNAVL', 'UNAVAIL']);

function readElement(record: AamvaRecord, code: string): string | null {
  const value = record.elements.get(code)?.trim();
  return value && !noValues.has(value.toUpperCase()) ? value : null;
}

function checkFormat(record: AamvaRecord, jurisdiction: Jurisdiction | undefined): CredentialCheck {
  const fail = (sentence: string): CredentialCheck => ({ id: 'format', passed: false, sentence });
  if (!record.header) {
    return fail('The barcode on the back is not in the AAMVA format US licences and ID cards use, so the card cannot be verified.');
  }
  const stateCode = readElement(record, 'DAJ');
  if (!stateCode) return fail('The barcode on the back does not say which state issued the card, so the card cannot be verified.');
  if (!jurisdiction) {
    return fail(
      `The barcode says the card was issued by "${stateCode}", which is not a state we can verify. Use a licence or ID card from a US state or the District of Columbia, or a passport.`,
    );
  }
  const issuer = findJurisdictionByIssuerNumber(record.header.issuerNumber);
  if (issuer?.code !== jurisdiction.code) {
    const owner = issuer ? `belongs to ${issuer.name}` : 'is not the number of any state';
    return fail(
      `The barcode's issuer number (${record.header.issuerNumber}) ${owner}, but the card says it was issued by ${jurisdiction.name}. The card may have been altered.`,
    );
  }
  const country = readElement(record, 'DCG');
  if (country && country.toUpperCase() !== jurisdiction.country) {
    return fail(`The barcode gives the country as ${country}, but ${jurisdiction.name} is in ${jurisdiction.country}. The card may have been altered.`);
  }
  const missing = requiredElements.filter(([code]) => !readElement(record, code)).map(([, words]) => words);
  if (missing.length > 0) return fail(`The barcode on the back has no ${joinWords(missing)}, so the card cannot be verified.`);
  return { id: 'format', passed: true, sentence: `The barcode is in the AAMVA format and was issued by ${jurisdiction.name}.` };
}

/** "787010000" is the ZIP code 78701; "787011234" is 78701-1234; Canadian codes stay as they are. */
function formatPostalCode(value: string | null): string | null {
  if (!value) return null;
  const code = value.replace(/\s+/g, '');
  const zip = /^(\d{5})(\d{4})?$/.exec(code);
  if (!zip) return code;
  return zip[2] && zip[2] !== '0000' ? `${zip[1]}-${zip[2]}` : (zip[1] ?? code);
}

function formatAddress(record: AamvaRecord): string | null {
  const street = readElement(record, 'DAG');
  const city = readElement(record, 'DAI');
  const region = [readElement(record, 'DAJ'), formatPostalCode(readElement(record, 'DAK'))].filter(Boolean).join(' ');
  const parts = [street, city, region].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(', ') : null;
}

async function analyseBarcode(
  documentType: DocumentType,
  text: string,
  front: Buffer | undefined,
  person: StatedPerson,
  now: Date,
): Promise<CredentialReading> {
  const record = parseAamva(text, documentType === 'id_card' ? 'ID' : 'DL');
  const stateCode = readElement(record, 'DAJ');
  const jurisdiction = stateCode ? findJurisdictionByCode(stateCode) : undefined;
  const issuer = record.header ? findJurisdictionByIssuerNumber(record.header.issuerNumber) : undefined;
  const declaredCountry = readElement(record, 'DCG')?.toUpperCase();
  const country = declaredCountry === 'USA' || declaredCountry === 'CAN' ? declaredCountry : (jurisdiction?.country ?? issuer?.country ?? 'USA');

  const firstName = readElement(record, 'DAC') ?? readElement(record, 'DCT')?.split(/[\s,]+/)[0] ?? null;
  const middleName = readElement(record, 'DAD');
  const lastName = readElement(record, 'DCS');
  const documentNumber = readElement(record, 'DAQ');
  const fields: CredentialFields = {
    firstName,
    lastName,
    birthDate: parseAamvaDate(readElement(record, 'DBB') ?? undefined, country),
    expiryDate: parseAamvaDate(readElement(record, 'DBA') ?? undefined, country),
    issuer: jurisdiction?.name ?? stateCode,
    address: formatAddress(record),
    documentNumberLast4: toLastFour(documentNumber),
  };
  const checks: CredentialCheck[] = [
    { id: 'readable', passed: true, sentence: 'The barcode on the back was read.' },
    checkFormat(record, jurisdiction),
    checkNotExpired(fields.expiryDate, now),
    checkNameMatches(person, {
      shownName: [firstName, middleName, lastName].filter(Boolean).join(' '),
      firstNames: firstName ? [firstName] : [],
      lastName,
    }),
    checkBirthDateMatches(person, fields.birthDate),
    await checkFront(front, { firstName, middleName, lastName, birthDate: fields.birthDate }),
  ];
  return toReading(documentType, fields, documentNumber, checks);
}

export async function analyseCard(
  documentType: DocumentType,
  front: Buffer | undefined,
  back: Buffer | undefined,
  person: StatedPerson,
  now: Date,
): Promise<CredentialReading> {
  // The front is read after the barcode, to compare the two; first it only has to be an image.
  if (front && !(await decodeImage(front))) return toUnreadable(documentType, describeNotImage('front'));
  if (!back || back.length === 0) return toUnreadable(documentType, 'Add a photo of the back of the card, where the barcode is.');
  const image = await decodeImage(back);
  if (!image) return toUnreadable(documentType, describeNotImage('back'));
  const text = await readPdf417(image, (candidate) => parseAamva(candidate, 'DL').header !== null);
  if (!text) return toUnreadable(documentType, unreadableBarcode);
  return analyseBarcode(documentType, text, front, person, now);
}
