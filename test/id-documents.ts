import sharp from 'sharp';
import { writeBarcode } from 'zxing-wasm/full';
import { loadBarcodeModule } from '#server/features/identity/credential/barcode-reader.ts';

/**
 * Test images of identity documents: the back of a US licence with a real AAMVA PDF417, its front,
 * and a passport photo page whose machine-readable zone is rendered as text (DejaVu Sans Mono).
 */

export interface LicenceData {
  /** Two-letter state written in DAJ. */
  state: string;
  /** The six-digit issuer number in the header. */
  issuerNumber: string;
  subfileType: 'DL' | 'ID';
  firstName: string;
  middleName?: string;
  lastName: string;
  /** YYYY-MM-DD */
  birthDate: string;
  /** YYYY-MM-DD */
  expiryDate: string;
  documentNumber: string;
  street: string;
  city: string;
  postalCode: string;
  country: 'USA' | 'CAN';
  /** Replaces the header's 'ANSI ' marker, to make a barcode that is not AAMVA. */
  fileType?: string;
}

export const sampleLicence: LicenceData = {
  state: 'TX',
  issuerNumber: '636015',
  subfileType: 'DL',
  firstName: 'JOHN',
  middleName: 'QUINCY',
  lastName: 'SAMPLE',
  birthDate: '1990-01-15',
  expiryDate: '2030-03-01',
  documentNumber: '12345678',
  street: '123 MAIN ST',
  city: 'AUSTIN',
  postalCode: '787010000',
  country: 'USA',
};

/** YYYY-MM-DD as MMDDCCYY (United States) or CCYYMMDD (Canada). */
function toAamvaDate(iso: string, country: 'USA' | 'CAN'): string {
  const [year = '', month = '', day = ''] = iso.split('-');
  return country === 'CAN' ? `${year}${month}${day}` : `${month}${day}${year}`;
}

/** The barcode text of an AAMVA DL/ID-2020 (version 10) card with one subfile. */
export function makeAamvaText(overrides: Partial<LicenceData> = {}): string {
  const data = { ...sampleLicence, ...overrides };
  const elements = [
    ['DCA', 'C'],
    ['DCS', data.lastName],
    ['DAC', data.firstName],
    ['DAD', data.middleName ?? 'NONE'],
    ['DBB', toAamvaDate(data.birthDate, data.country)],
    ['DBA', toAamvaDate(data.expiryDate, data.country)],
    ['DBD', toAamvaDate('2022-03-01', data.country)],
    ['DBC', '1'],
    ['DAQ', data.documentNumber],
    ['DAG', data.street],
    ['DAI', data.city],
    ['DAJ', data.state],
    ['DAK', data.postalCode.padEnd(11, ' ')],
    ['DCG', data.country],
  ];
  const subfile = `${data.subfileType}${elements.map(([code, value]) => `${code}${value}`).join('\n')}\r`;
  const header = `@\n\x1e\r${data.fileType ?? 'ANSI '}${data.issuerNumber}${'10'}${'00'}${'01'}`;
  const offset = header.length + 10;
  const designator = `${data.subfileType}${String(offset).padStart(4, '0')}${String(subfile.length).padStart(4, '0')}`;
  return header + designator + subfile;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const cardWidth = 1012;
const cardHeight = 638;

/** A PDF417 of `text` as a PNG, drawn by zxing-wasm. */
export async function makePdf417(text: string): Promise<Buffer> {
  await loadBarcodeModule();
  const written = await writeBarcode(text, { format: 'PDF417', scale: 3, options: 'columns=8' });
  if (!written.image) throw new Error(`zxing could not write the barcode: ${written.error}`);
  return Buffer.from(await written.image.arrayBuffer());
}

/** The back of a licence: a light card with a line of print and the barcode, optionally photographed tilted. */
export async function makeLicenceBack(options: { text?: string; rotation?: number } = {}): Promise<Buffer> {
  const barcode = await makePdf417(options.text ?? makeAamvaText());
  const fitted = await sharp(barcode)
    .resize({ width: cardWidth - 80, height: cardHeight - 140, fit: 'inside' })
    .png()
    .toBuffer();
  const background = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${cardWidth}" height="${cardHeight}"><rect width="100%" height="100%" rx="30" fill="#f1f4f8"/>` +
      '<text x="40" y="60" font-family="DejaVu Sans" font-size="26" fill="#333">This card is the property of the issuing state.</text></svg>',
  );
  const card = await sharp(background)
    .composite([{ input: fitted, top: 100, left: 40 }])
    .png()
    .toBuffer();
  if (!options.rotation) return card;
  return sharp(card).rotate(options.rotation, { background: '#ffffff' }).png().toBuffer();
}

/** A date as the card prints it: MM/DD/YYYY in the United States, YYYY/MM/DD in Canada. */
function toPrintedDate(iso: string, country: 'USA' | 'CAN'): string {
  const [year = '', month = '', day = ''] = iso.split('-');
  return country === 'CAN' ? `${year}/${month}/${day}` : `${month}/${day}/${year}`;
}

/**
 * The front of a licence as states print it: the title, a photo box, and the numbered fields
 * (1 family name, 2 given names, 8 address) with the number, date of birth and expiry date.
 */
export async function makeLicenceFront(data: Partial<LicenceData> = {}): Promise<Buffer> {
  const licence = { ...sampleLicence, ...data };
  const title = licence.subfileType === 'ID' ? 'IDENTIFICATION CARD' : 'DRIVER LICENSE';
  const line = (y: number, size: number, text: string) => `<text x="360" y="${y}" font-family="DejaVu Sans" font-size="${size}">${escapeXml(text)}</text>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${cardWidth}" height="${cardHeight}"><rect width="100%" height="100%" rx="30" fill="#dbe8f5"/>` +
    `<text x="40" y="70" font-family="DejaVu Sans" font-size="40" font-weight="bold">${escapeXml(licence.state)} ${title}</text>` +
    '<rect x="40" y="120" width="280" height="360" fill="#9aa7b4"/>' +
    line(150, 26, `DL ${licence.documentNumber}`) +
    line(205, 30, `1 ${licence.lastName}`) +
    line(250, 30, `2 ${[licence.firstName, licence.middleName].filter(Boolean).join(' ')}`) +
    line(300, 24, `8 ${licence.street}`) +
    line(335, 24, `${licence.city}, ${licence.state} ${licence.postalCode.slice(0, 5)}`) +
    line(395, 28, `DOB ${toPrintedDate(licence.birthDate, licence.country)}`) +
    line(445, 28, `EXP ${toPrintedDate(licence.expiryDate, licence.country)}`) +
    '</svg>';
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** An image with nothing on it. */
export function makeBlankImage(): Promise<Buffer> {
  return sharp({ create: { width: cardWidth, height: cardHeight, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
}

const checkDigitValues = (character: string): number => {
  if (character === '<') return 0;
  if (/[0-9]/.test(character)) return Number(character);
  if (/[A-Z]/.test(character)) return character.charCodeAt(0) - 55;
  throw new Error(`'${character}' is not in the machine-readable alphabet.`);
};

/** The ICAO 9303 check digit: characters valued 0-35 (< is 0), weighted 7, 3, 1 in turn, modulo 10. */
export function computeCheckDigit(text: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let index = 0; index < text.length; index += 1) sum += checkDigitValues(text[index] ?? '<') * (weights[index % 3] ?? 1);
  return String(sum % 10);
}

export interface PassportData {
  issuingState: string;
  nationality: string;
  lastName: string;
  givenNames: string;
  documentNumber: string;
  /** YYYY-MM-DD */
  birthDate: string;
  /** YYYY-MM-DD */
  expiryDate: string;
  sex: 'M' | 'F' | '<';
  personalNumber: string;
  /** Writes this check digit one higher than it should be. */
  wrongCheckDigit?: 'documentNumber' | 'birthDate' | 'expiryDate' | 'personalNumber' | 'composite';
}

export const samplePassport: PassportData = {
  issuingState: 'USA',
  nationality: 'USA',
  lastName: 'SAMPLE',
  givenNames: 'JANE MARIE',
  documentNumber: 'C01234567',
  birthDate: '1985-07-04',
  expiryDate: '2031-05-20',
  sex: 'F',
  personalNumber: '',
};

/** Letters and digits, anything else as '<', padded to `length` (0: as long as it is). */
const toZone = (text: string, length: number) => {
  const zone = text.toUpperCase().replace(/[^A-Z0-9]+/g, '<');
  return length === 0 ? zone : zone.padEnd(length, '<').slice(0, length);
};
const toYymmdd = (iso: string) => iso.slice(2).replace(/-/g, '');

/** The two TD3 lines of 44 characters. */
export function makePassportZone(overrides: Partial<PassportData> = {}): [string, string] {
  const data = { ...samplePassport, ...overrides };
  const wrong = (field: PassportData['wrongCheckDigit'], digit: string) => (data.wrongCheckDigit === field ? String((Number(digit) + 1) % 10) : digit);
  const names = `${toZone(data.lastName, 0)}<<${toZone(data.givenNames, 0)}`;
  const first = `P<${data.issuingState}${names.padEnd(39, '<').slice(0, 39)}`;
  const number = toZone(data.documentNumber, 9);
  const birth = toYymmdd(data.birthDate);
  const expiry = toYymmdd(data.expiryDate);
  const personal = toZone(data.personalNumber, 14);
  const numberPart = number + wrong('documentNumber', computeCheckDigit(number));
  const birthPart = birth + wrong('birthDate', computeCheckDigit(birth));
  const expiryPart = expiry + wrong('expiryDate', computeCheckDigit(expiry));
  const personalPart = personal + wrong('personalNumber', data.personalNumber ? computeCheckDigit(personal) : '0');
  const composite = wrong('composite', computeCheckDigit(numberPart + birthPart + expiryPart + personalPart));
  const second = `${numberPart}${data.nationality}${birthPart}${data.sex}${expiryPart}${personalPart}${composite}`;
  return [first, second];
}

/** A passport photo page with a photo box, printed fields and the zone at the bottom. */
export async function makePassportPage(overrides: Partial<PassportData> = {}): Promise<Buffer> {
  const data = { ...samplePassport, ...overrides };
  const [first, second] = makePassportZone(overrides);
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="1250" height="880"><rect width="100%" height="100%" fill="#eef3f7"/>' +
    '<text x="60" y="80" font-family="DejaVu Sans" font-size="34">PASSPORT</text>' +
    '<rect x="60" y="130" width="300" height="380" fill="#c8d0d8"/>' +
    `<text x="400" y="180" font-family="DejaVu Sans" font-size="26">Surname ${escapeXml(data.lastName)}</text>` +
    `<text x="400" y="240" font-family="DejaVu Sans" font-size="26">Given names ${escapeXml(data.givenNames)}</text>` +
    `<text x="400" y="300" font-family="DejaVu Sans" font-size="26">Date of birth ${data.birthDate}</text>` +
    `<text x="40" y="770" font-family="DejaVu Sans Mono" font-size="40" xml:space="preserve">${escapeXml(first)}</text>` +
    `<text x="40" y="830" font-family="DejaVu Sans Mono" font-size="40" xml:space="preserve">${escapeXml(second)}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
