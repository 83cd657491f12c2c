import { parse, type ParseResult } from 'mrz';
import sharp from 'sharp';
import { maxImagePixels } from './image-limits.ts';
import { recognizeText, stopOcr } from './ocr.ts';

/** Reading a passport's machine-readable zone (ICAO 9303 TD3: two lines of 44 characters) by OCR. */

const lineLength = 44;

const recognize = (image: Buffer) => recognizeText(image, 'zone');

/** Stops the OCR workers (tests, shutdown); the next read starts new ones. */
export async function stopPassportReader(): Promise<void> {
  await stopOcr();
}

/** OCR drops or doubles a filler character now and then: the longest run of '<' takes up the difference. */
function fitLine(line: string): string | null {
  const difference = lineLength - line.length;
  if (difference === 0) return line;
  const runs = [...line.matchAll(/<{2,}/g)].sort((a, b) => b[0].length - a[0].length);
  const run = runs[0];
  if (!run || Math.abs(difference) > 3 || run[0].length + difference < 1) return null;
  return line.slice(0, run.index) + '<'.repeat(run[0].length + difference) + line.slice(run.index + run[0].length);
}

/** On the first line, three fillers in a row end the names: anything OCR saw after them (often L for <) is filler. */
function clearNameFillers(line: string): string {
  const end = line.indexOf('<<<', 5);
  return end < 0 ? line : line.slice(0, end) + '<'.repeat(line.length - end);
}

function findZoneLines(text: string): [string, string] | null {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ''))
    .filter((line) => /^[A-Z0-9<]{38,50}$/.test(line));
  for (let index = 0; index + 1 < lines.length; index += 1) {
    const first = fitLine(lines[index] ?? '');
    const second = fitLine(lines[index + 1] ?? '');
    if (first?.startsWith('P') && second) return [clearNameFillers(first), second];
  }
  return null;
}

function parseZone(lines: [string, string]): ParseResult | null {
  try {
    const result = parse(lines, { autocorrect: true });
    return result.format === 'TD3' ? result : null;
  } catch {
    return null;
  }
}

export function countWrongCheckDigits(result: ParseResult): number {
  return result.details.filter((detail) => detail.field?.endsWith('CheckDigit') && !detail.valid).length;
}

export type PassportZoneReading = { status: 'not_image' } | { status: 'no_zone' } | { status: 'read'; lines: [string, string]; result: ParseResult };

/**
 * Finds and parses the zone: first on the whole page, then on its lower part enlarged (where the
 * zone is printed). A reading whose check digits are all right wins; otherwise the first one read.
 */
export async function readPassportZone(bytes: Buffer): Promise<PassportZoneReading> {
  let page: { data: Buffer; width: number; height: number };
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxImagePixels })
      .autoOrient()
      .resize({ width: 1600, height: 1600, fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .greyscale()
      .normalise()
      .png()
      .toBuffer({ resolveWithObject: true });
    page = { data, width: info.width, height: info.height };
  } catch {
    return { status: 'not_image' };
  }
  const top = Math.floor(page.height * 0.55);
  const views = [
    () => Promise.resolve(page.data),
    () =>
      sharp(page.data)
        .extract({ left: 0, top, width: page.width, height: page.height - top })
        .resize({ width: 2000 })
        .png()
        .toBuffer(),
  ];
  let first: PassportZoneReading | null = null;
  for (const view of views) {
    const lines = findZoneLines(await recognize(await view()));
    const result = lines && parseZone(lines);
    if (!lines || !result) continue;
    const reading = { status: 'read' as const, lines, result };
    if (countWrongCheckDigits(result) === 0) return reading;
    first ??= reading;
  }
  return first ?? { status: 'no_zone' };
}
