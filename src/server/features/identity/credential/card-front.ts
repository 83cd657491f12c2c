import sharp from 'sharp';
import { formatCalendarDay } from '#shared/dates.ts';
import type { CredentialCheck } from '#shared/identity.ts';
import { maxImagePixels } from './image-limits.ts';
import { isSameName } from './name-match.ts';
import { recognizeText } from './ocr.ts';

/**
 * The front of a licence or ID card, read by OCR and compared with its barcode: the printed name
 * and date of birth must be the barcode's. A barcode alone can be made by any computer from a
 * typed name; the front is what shows a card was photographed.
 */

const sameCard = 'Take photos of the front and back of the same card.';
const asksForFront = 'Take a photo of the front of the card, where your photo, name and date of birth are printed.';

/** Fewer letters and digits than this is no printed card front (a card carries its title, name, dates and number). */
const minimumCharacters = 20;

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function toIso(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1900 || year > 2100) return null;
  const iso = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}

/**
 * Every date printed in the text, as YYYY-MM-DD: 01/15/1990 (and 15/01/1990, read both ways),
 * 1990/01/15, with dashes or dots too, and 15 JAN 1990.
 */
export function findPrintedDates(text: string): Set<string> {
  const dates = new Set<string>();
  const add = (iso: string | null) => iso && dates.add(iso);
  for (const match of text.matchAll(/(\d{1,4})\s?[/.-]\s?(\d{1,2})\s?[/.-]\s?(\d{2,4})/g)) {
    const [first, second, third] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if ((match[1] ?? '').length === 4) add(toIso(first, second, third));
    else if ((match[3] ?? '').length === 4) {
      add(toIso(third, first, second));
      add(toIso(third, second, first));
    }
  }
  for (const match of text.matchAll(/(\d{1,2})\s?([A-Za-z]{3})[A-Za-z]*\.?\s?(\d{4})/g)) {
    const month = months.indexOf((match[2] ?? '').toLowerCase()) + 1;
    if (month > 0) add(toIso(Number(match[3]), month, Number(match[1])));
  }
  return dates;
}

/** The front as greyscale at a size OCR reads printed text well; null when it cannot be decoded. */
async function prepareFront(bytes: Buffer): Promise<Buffer | null> {
  try {
    return await sharp(bytes, { limitInputPixels: maxImagePixels })
      .autoOrient()
      .resize({ width: 1600, height: 1600, fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .greyscale()
      .normalise()
      .png()
      .toBuffer();
  } catch {
    return null;
  }
}

export interface BarcodePerson {
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  /** YYYY-MM-DD */
  birthDate: string | null;
}

/** The 'front_matches' check: the front's printed name and date of birth against the barcode's. */
export async function checkFront(front: Buffer | undefined, barcode: BarcodePerson): Promise<CredentialCheck> {
  const fail = (sentence: string): CredentialCheck => ({ id: 'front_matches', passed: false, sentence });
  if (!front || front.length === 0) return fail(`Add a photo of the front of the card, where your photo, name and date of birth are printed.`);
  const image = await prepareFront(front);
  if (!image) return fail(`The photo of the front could not be opened as an image. ${asksForFront}`);
  const text = await recognizeText(image, 'text');
  if (text.replace(/[^A-Za-z0-9]/g, '').length < minimumCharacters) {
    return fail(`No printed text could be read on the photo of the front, so it does not show the front of an ID card. ${asksForFront}`);
  }
  const shownName = [barcode.firstName, barcode.middleName, barcode.lastName].filter(Boolean).join(' ');
  const isNamePrinted = Boolean(barcode.firstName && barcode.lastName && isSameName(text, { firstNames: [barcode.firstName], lastName: barcode.lastName }));
  if (!isNamePrinted) return fail(`The name printed on the front of the card does not match the name in its barcode (${shownName}). ${sameCard}`);
  if (!barcode.birthDate || !findPrintedDates(text).has(barcode.birthDate)) {
    const date = barcode.birthDate ? ` (${formatCalendarDay(barcode.birthDate, { locale: 'en-US' })})` : '';
    return fail(`The date of birth printed on the front of the card does not match the one in its barcode${date}. ${sameCard}`);
  }
  return { id: 'front_matches', passed: true, sentence: `The name (${shownName}) and date of birth printed on the front of the card match its barcode.` };
}
