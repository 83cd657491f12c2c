import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  makeAamvaText,
  makeBlankImage,
  makeLicenceBack,
  makeLicenceFront,
  makePassportPage,
  makePassportZone,
  computeCheckDigit,
  type LicenceData,
} from '#test/id-documents.ts';
import { analyseCredential, stopCredentialReader, type CredentialReading } from './credential-reader.ts';
import { isSameName } from './name-match.ts';

const now = new Date('2026-06-01T12:00:00Z');
const john = { legalName: 'John Quincy Sample', birthDate: '1990-01-15' };
const jane = { legalName: 'Jane Marie Sample', birthDate: '1985-07-04' };
const notAnImage = Buffer.from('%PDF-1.7 this is not a photo of anything');

/** A licence's front and back printed from the same data, as a real card is. */
async function makeCard(overrides: Partial<LicenceData> = {}, options: { rotation?: number } = {}) {
  return { front: await makeLicenceFront(overrides), back: await makeLicenceBack({ text: makeAamvaText(overrides), ...options }) };
}

const checkOf = (reading: CredentialReading, id: string) => reading.checks.find((check) => check.id === id);
const failedIds = (reading: CredentialReading) => reading.checks.filter((check) => !check.passed).map((check) => check.id);

const networkCalls = vi.fn((...args: unknown[]) => {
  throw new Error(`The credential reader tried the network: ${String(args[0])}`);
});

beforeAll(() => {
  vi.stubGlobal('fetch', networkCalls);
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await stopCredentialReader();
});

describe('a driver’s licence or ID card', () => {
  it('passes every check for a valid licence, and shows only the last four characters of its number', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', front: await makeLicenceFront(), back: await makeLicenceBack() }, john, now);
    expect(reading.checks.map((check) => [check.id, check.passed])).toEqual([
      ['readable', true],
      ['format', true],
      ['not_expired', true],
      ['name_matches', true],
      ['birth_date_matches', true],
      ['front_matches', true],
    ]);
    expect(reading.passed).toBe(true);
    expect(reading.documentType).toBe('drivers_license');
    expect(reading.fields).toEqual({
      firstName: 'JOHN',
      lastName: 'SAMPLE',
      birthDate: '1990-01-15',
      expiryDate: '2030-03-01',
      issuer: 'Texas',
      address: '123 MAIN ST, AUSTIN, TX 78701',
      documentNumberLast4: '5678',
    });
    expect(reading.documentNumber).toBe('12345678');
    expect(JSON.stringify(reading.fields)).not.toContain('12345678');
    expect(checkOf(reading, 'not_expired')?.sentence).toBe('The ID is valid until Mar 1, 2030.');
    expect(networkCalls).not.toHaveBeenCalled();
  });

  it('passes a state ID card from Virginia, whose barcode carries an ID subfile', async () => {
    const reading = await analyseCredential(
      { documentType: 'id_card', ...(await makeCard({ state: 'VA', issuerNumber: '636000', subfileType: 'ID', city: 'RICHMOND', postalCode: '232191234' })) },
      john,
      now,
    );
    expect(failedIds(reading)).toEqual([]);
    expect(reading.passed).toBe(true);
    expect(reading.fields).toMatchObject({ issuer: 'Virginia', address: '123 MAIN ST, RICHMOND, VA 23219-1234' });
  });

  it('reads a Canadian card’s dates as year, month, day', async () => {
    const reading = await analyseCredential(
      { documentType: 'drivers_license', ...(await makeCard({ state: 'ON', issuerNumber: '636012', country: 'CAN', postalCode: 'M5V2T6' })) },
      john,
      now,
    );
    expect(reading.passed).toBe(true);
    expect(reading.fields).toMatchObject({ birthDate: '1990-01-15', expiryDate: '2030-03-01', issuer: 'Ontario' });
  });

  it('still reads a barcode photographed about 6 degrees off straight', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({}, { rotation: 6 })) }, john, now);
    expect(checkOf(reading, 'readable')?.passed).toBe(true);
    expect(reading.passed).toBe(true);
    expect(reading.documentNumber).toBe('12345678');
  });

  it('fails an expired licence with the date it expired', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({ expiryDate: '2024-03-01' })) }, john, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['not_expired']);
    expect(checkOf(reading, 'not_expired')?.sentence).toBe('This ID expired on Mar 1, 2024.');
  });

  it('counts a licence as valid through its expiry date', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({ expiryDate: '2026-06-01' })) }, john, now);
    expect(checkOf(reading, 'not_expired')).toEqual({ id: 'not_expired', passed: true, sentence: 'The ID is valid until Jun 1, 2026.' });
  });

  it('fails the format when the issuer number belongs to another state than the one on the card', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({ state: 'TX', issuerNumber: '636000' })) }, john, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['format']);
    expect(checkOf(reading, 'format')?.sentence).toBe(
      "The barcode's issuer number (636000) belongs to Virginia, but the card says it was issued by Texas. The card may have been altered.",
    );
  });

  it('fails the format when the barcode header is not AAMVA', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({ fileType: 'ANSX ' })) }, john, now);
    expect(reading.passed).toBe(false);
    expect(checkOf(reading, 'readable')?.passed).toBe(true);
    expect(checkOf(reading, 'format')).toEqual({
      id: 'format',
      passed: false,
      sentence: 'The barcode on the back is not in the AAMVA format US licences and ID cards use, so the card cannot be verified.',
    });
  });

  it('fails the format for a state it has no issuer number for, and says which', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard({ state: 'XX', issuerNumber: '636015' })) }, john, now);
    expect(reading.passed).toBe(false);
    expect(checkOf(reading, 'format')?.passed).toBe(false);
    expect(checkOf(reading, 'format')?.sentence).toContain('issued by "XX", which is not a state we can verify');
  });

  it('fails when the name on the licence is not the name given', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard()) }, { ...john, legalName: 'Jane Sample' }, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['name_matches']);
    expect(checkOf(reading, 'name_matches')?.sentence).toBe('The name on the ID (JOHN QUINCY SAMPLE) does not match the name you gave (Jane Sample).');
  });

  it('fails when the date of birth on the licence is not the one given', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', ...(await makeCard()) }, { ...john, birthDate: '1990-01-16' }, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['birth_date_matches']);
    expect(checkOf(reading, 'birth_date_matches')?.sentence).toBe('The date of birth on the ID (1990-01-15) does not match the one you gave (1990-01-16).');
  });

  it('fails a barcode a computer made from the typed name beside a blank front, naming the front', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', front: await makeBlankImage(), back: await makeLicenceBack() }, john, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['front_matches']);
    expect(checkOf(reading, 'front_matches')?.sentence).toBe(
      'No printed text could be read on the photo of the front, so it does not show the front of an ID card. Take a photo of the front of the card, where your photo, name and date of birth are printed.',
    );
  });

  it('fails a front printed with another person’s name or date of birth than the barcode’s', async () => {
    const otherName = await analyseCredential(
      {
        documentType: 'drivers_license',
        front: await makeLicenceFront({ firstName: 'MARY', middleName: 'ANN', lastName: 'OTHERS' }),
        back: await makeLicenceBack(),
      },
      john,
      now,
    );
    expect(failedIds(otherName)).toEqual(['front_matches']);
    expect(checkOf(otherName, 'front_matches')?.sentence).toBe(
      'The name printed on the front of the card does not match the name in its barcode (JOHN QUINCY SAMPLE). Take photos of the front and back of the same card.',
    );
    const otherBirth = await analyseCredential(
      { documentType: 'drivers_license', front: await makeLicenceFront({ birthDate: '1991-02-16' }), back: await makeLicenceBack() },
      john,
      now,
    );
    expect(failedIds(otherBirth)).toEqual(['front_matches']);
    expect(checkOf(otherBirth, 'front_matches')?.sentence).toBe(
      'The date of birth printed on the front of the card does not match the one in its barcode (Jan 15, 1990). Take photos of the front and back of the same card.',
    );
  });

  it('fails a card sent without its front', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', back: await makeLicenceBack() }, john, now);
    expect(failedIds(reading)).toEqual(['front_matches']);
    expect(checkOf(reading, 'front_matches')?.sentence).toBe('Add a photo of the front of the card, where your photo, name and date of birth are printed.');
  });

  it('says the barcode could not be read on a blank photo, and makes no other check', async () => {
    const reading = await analyseCredential({ documentType: 'drivers_license', back: await makeBlankImage() }, john, now);
    expect(reading).toEqual({
      passed: false,
      documentType: 'drivers_license',
      fields: { firstName: null, lastName: null, birthDate: null, expiryDate: null, issuer: null, address: null, documentNumberLast4: null },
      documentNumber: null,
      checks: [
        {
          id: 'readable',
          passed: false,
          sentence: 'The barcode on the back could not be read. Take the photo again in good light, the whole card in the frame.',
        },
      ],
    });
  });

  it('says a back or front that is not an image could not be opened', async () => {
    const back = await analyseCredential({ documentType: 'drivers_license', back: notAnImage }, john, now);
    expect(back.passed).toBe(false);
    expect(back.checks).toEqual([
      {
        id: 'readable',
        passed: false,
        sentence: 'The photo of the back could not be opened as an image. Upload a JPEG, PNG or WebP photo of the back of the card.',
      },
    ]);
    const front = await analyseCredential({ documentType: 'drivers_license', front: notAnImage, back: await makeLicenceBack() }, john, now);
    expect(front.checks).toEqual([
      {
        id: 'readable',
        passed: false,
        sentence: 'The photo of the front could not be opened as an image. Upload a JPEG, PNG or WebP photo of the front of the card.',
      },
    ]);
  });

  it('asks for the back when only the front was sent', async () => {
    const reading = await analyseCredential({ documentType: 'id_card', front: await makeLicenceFront() }, john, now);
    expect(reading.checks).toEqual([{ id: 'readable', passed: false, sentence: 'Add a photo of the back of the card, where the barcode is.' }]);
  });
});

describe('a passport', () => {
  it('passes every check for a valid passport', async () => {
    const reading = await analyseCredential({ documentType: 'passport', passport: await makePassportPage() }, jane, now);
    expect(reading.checks.map((check) => [check.id, check.passed])).toEqual([
      ['readable', true],
      ['format', true],
      ['check_digits', true],
      ['not_expired', true],
      ['name_matches', true],
      ['birth_date_matches', true],
    ]);
    expect(reading.passed).toBe(true);
    expect(reading.fields).toEqual({
      firstName: 'JANE MARIE',
      lastName: 'SAMPLE',
      birthDate: '1985-07-04',
      expiryDate: '2031-05-20',
      issuer: 'United States of America',
      address: null,
      documentNumberLast4: '4567',
    });
    expect(reading.documentNumber).toBe('C01234567');
    expect(networkCalls).not.toHaveBeenCalled();
  });

  it('matches a passport whose given names include a middle name the person left out', async () => {
    const reading = await analyseCredential({ documentType: 'passport', passport: await makePassportPage() }, { ...jane, legalName: 'jane sample' }, now);
    expect(checkOf(reading, 'name_matches')).toEqual({
      id: 'name_matches',
      passed: true,
      sentence: 'The name on the ID (JANE MARIE SAMPLE) matches the name you gave.',
    });
  });

  it('fails the check digits when one of them is wrong', async () => {
    const reading = await analyseCredential({ documentType: 'passport', passport: await makePassportPage({ wrongCheckDigit: 'birthDate' }) }, jane, now);
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['check_digits']);
    expect(checkOf(reading, 'check_digits')?.sentence).toBe(
      'The check digit for the date of birth is wrong. Take the photo again; if this persists, the passport may have been altered.',
    );
  });

  it('fails the format of a specimen passport from Utopia, whose check digits are right', async () => {
    const reading = await analyseCredential(
      { documentType: 'passport', passport: await makePassportPage({ issuingState: 'UTO', nationality: 'UTO' }) },
      jane,
      now,
    );
    expect(reading.passed).toBe(false);
    expect(failedIds(reading)).toEqual(['format']);
    expect(checkOf(reading, 'format')?.sentence).toContain('specimen passport');
  });

  it('reads two passports sent at the same time, each for itself', async () => {
    const [valid, wrong] = await Promise.all([
      analyseCredential({ documentType: 'passport', passport: await makePassportPage() }, jane, now),
      analyseCredential({ documentType: 'passport', passport: await makePassportPage({ wrongCheckDigit: 'documentNumber' }) }, jane, now),
    ]);
    expect(valid.passed).toBe(true);
    expect(failedIds(wrong)).toEqual(['check_digits']);
    expect(checkOf(wrong, 'check_digits')?.sentence).toContain('The check digit for the passport number is wrong.');
  });

  it('says the lines could not be read on a blank photo or bytes that are not an image', async () => {
    const blank = await analyseCredential({ documentType: 'passport', passport: await makeBlankImage() }, jane, now);
    expect(blank.passed).toBe(false);
    expect(blank.checks.map((check) => [check.id, check.passed])).toEqual([['readable', false]]);
    expect(blank.checks[0]?.sentence).toContain('could not be read. Take the photo again in good light');
    const bytes = await analyseCredential({ documentType: 'passport', passport: notAnImage }, jane, now);
    expect(bytes.checks).toEqual([
      {
        id: 'readable',
        passed: false,
        sentence: 'The photo of the passport could not be opened as an image. Upload a JPEG, PNG or WebP photo of its photo page.',
      },
    ]);
  });
});

describe('the test documents', () => {
  it('compute the ICAO 9303 check digits of the standard’s own example', () => {
    // ICAO 9303 part 4 example: L898902C3 6, birth 740812 2, expiry 120415 9, composite 0.
    expect(computeCheckDigit('L898902C3')).toBe('6');
    expect(computeCheckDigit('740812')).toBe('2');
    expect(computeCheckDigit('120415')).toBe('9');
    expect(computeCheckDigit('ZE184226B<<<<<')).toBe('1');
    const [, second] = makePassportZone({
      documentNumber: 'L898902C3',
      birthDate: '1974-08-12',
      expiryDate: '2012-04-15',
      personalNumber: 'ZE184226B',
      sex: 'F',
      nationality: 'UTO',
    });
    expect(second).toBe('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
  });
});

describe('name matching', () => {
  it('ignores case, accents, spaces and hyphens, and lets middle names be left out', () => {
    expect(isSameName('john sample', { firstNames: ['JOHN'], lastName: 'SAMPLE' })).toBe(true);
    expect(isSameName('Jöhn Q. Sample', { firstNames: ['JOHN'], lastName: 'SAMPLE' })).toBe(true);
    expect(isSameName('Maria de la Cruz', { firstNames: ['MARIA'], lastName: 'DELACRUZ' })).toBe(true);
    expect(isSameName('Anne-Marie O’Brien', { firstNames: ['ANNE MARIE'], lastName: 'OBRIEN' })).toBe(true);
    expect(isSameName('Jürgen Müller', { firstNames: ['JUERGEN'], lastName: 'MUELLER' })).toBe(true);
  });

  it('needs both the first and the last name, as whole words', () => {
    expect(isSameName('Jane Sample', { firstNames: ['JOHN'], lastName: 'SAMPLE' })).toBe(false);
    expect(isSameName('John Samples', { firstNames: ['JOHN'], lastName: 'SAMPLE' })).toBe(false);
    expect(isSameName('Sample', { firstNames: ['SAMPLE'], lastName: 'SAMPLE' })).toBe(false);
  });
});
