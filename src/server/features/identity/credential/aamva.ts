/**
 * The AAMVA DL/ID card design standard's barcode data: a header naming the issuer, a list of
 * subfile designators, then subfiles (DL for a driver's licence, ID for an ID card) of elements,
 * each a three-letter code and its value, separated by line feeds and ended by a carriage return.
 */

export type AamvaSubfileType = 'DL' | 'ID';

export interface AamvaHeader {
  issuerNumber: string;
  version: number;
  jurisdictionVersion: number | null;
  subfiles: { type: string; offset: number; length: number }[];
}

export interface AamvaRecord {
  /** Null when the text does not start with a well-formed AAMVA header. */
  header: AamvaHeader | null;
  subfileType: AamvaSubfileType | null;
  elements: Map<string, string>;
}

const headerStart = '@\n\x1e\rANSI ';

function parseHeader(text: string): AamvaHeader | null {
  if (!text.startsWith(headerStart)) return null;
  let rest = text.slice(headerStart.length);
  const lead = /^(\d{6})(\d{2})/.exec(rest);
  if (!lead) return null;
  const [, issuerNumber = '', versionText = ''] = lead;
  const version = Number(versionText);
  if (version < 1) return null;
  rest = rest.slice(lead[0].length);
  // Version 01 (AAMVA DL/ID-2000) has no jurisdiction version field.
  const counts = version === 1 ? /^()(\d{2})/.exec(rest) : /^(\d{2})(\d{2})/.exec(rest);
  if (!counts) return null;
  const jurisdictionVersion = version === 1 ? null : Number(counts[1]);
  const entries = Number(counts[2]);
  if (entries < 1) return null;
  rest = rest.slice(counts[0].length);
  const subfiles: AamvaHeader['subfiles'] = [];
  for (let index = 0; index < entries; index += 1) {
    const designator = /^([A-Z]{2})(\d{4})(\d{4})/.exec(rest);
    if (!designator) return null;
    subfiles.push({ type: designator[1] ?? '', offset: Number(designator[2]), length: Number(designator[3]) });
    rest = rest.slice(designator[0].length);
  }
  if (!subfiles.some((subfile) => subfile.type === 'DL' || subfile.type === 'ID')) return null;
  return { issuerNumber, version, jurisdictionVersion, subfiles };
}

function parseElements(subfile: string): Map<string, string> {
  const elements = new Map<string, string>();
  const body = subfile.split('\r')[0] ?? '';
  for (const piece of body.split('\n')) {
    const element = /^([A-Z]{3})(.*)$/s.exec(piece);
    if (!element) continue;
    const [, code = '', value = ''] = element;
    if (!elements.has(code)) elements.set(code, value.trim());
  }
  return elements;
}

/** Finds a DL or ID subfile by its first element when the header does not say where it is. */
function findSubfile(text: string, preferred: AamvaSubfileType): { type: AamvaSubfileType; body: string } | null {
  const starts = [...text.matchAll(/(DL|ID)(?=D[A-Z]{2})/g)];
  const start = starts.find((match) => match[1] === preferred) ?? starts[0];
  if (!start) return null;
  return { type: start[1] as AamvaSubfileType, body: text.slice(start.index + 2) };
}

/** Reads the barcode text; never throws. `preferred` picks the subfile when a card carries both. */
export function parseAamva(text: string, preferred: AamvaSubfileType): AamvaRecord {
  const header = parseHeader(text);
  if (header) {
    const designators = header.subfiles.filter((subfile) => subfile.type === 'DL' || subfile.type === 'ID');
    const designator = designators.find((subfile) => subfile.type === preferred) ?? designators[0];
    if (designator && text.startsWith(designator.type, designator.offset)) {
      const body = text.slice(designator.offset + 2, designator.offset + designator.length);
      return { header, subfileType: designator.type as AamvaSubfileType, elements: parseElements(body) };
    }
  }
  // Offsets are often off by a byte or two on real cards; the elements are still there.
  const found = findSubfile(text, preferred);
  return { header, subfileType: found?.type ?? null, elements: found ? parseElements(found.body) : new Map() };
}

/**
 * An AAMVA date as YYYY-MM-DD, or null when it is not a real date. Barcodes from the United
 * States write MMDDCCYY; Canadian ones CCYYMMDD.
 */
export function parseAamvaDate(value: string | undefined, country: 'USA' | 'CAN'): string | null {
  if (!value || !/^\d{8}$/.test(value)) return null;
  const [year, month, day] =
    country === 'CAN' ? [value.slice(0, 4), value.slice(4, 6), value.slice(6, 8)] : [value.slice(4, 8), value.slice(0, 2), value.slice(2, 4)];
  const iso = `${year}-${month}-${day}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}
