/**
 * Whether the names printed on an ID are the name a person gave: case, accents, spaces, hyphens
 * and apostrophes do not count, middle names are optional, and both the first and the last name
 * on the ID must be found, each as one or more whole words of the stated name.
 */

/** Letters with no decomposition, and the ICAO 9303 transliterations passports print (Ü as UE). */
const plainLetters: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', đ: 'd', ł: 'l', þ: 'th', ð: 'd', ı: 'i' };
const passportLetters: Record<string, string> = { ...plainLetters, ä: 'ae', ö: 'oe', ü: 'ue', å: 'aa', ø: 'oe' };

function simplify(text: string, letters: Record<string, string>): string {
  return text
    .toLowerCase()
    .replace(/[ßæøœđłþðıäöüå]/g, (letter) => letters[letter] ?? letter)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/['’ʼ`]/g, '');
}

function toWords(text: string, letters: Record<string, string>): string[] {
  return simplify(text, letters)
    .split(/[^a-z]+/)
    .filter(Boolean);
}

function compact(text: string): string {
  return simplify(text, plainLetters).replace(/[^a-z]/g, '');
}

/** Every run of consecutive words that spells `target`, as [first, last] word indexes. */
function findSpans(words: string[], target: string): [number, number][] {
  const spans: [number, number][] = [];
  if (!target) return spans;
  for (let start = 0; start < words.length; start += 1) {
    let joined = '';
    for (let end = start; end < words.length && joined.length < target.length; end += 1) {
      joined += words[end];
      if (joined === target) spans.push([start, end]);
    }
  }
  return spans;
}

/**
 * True when the stated legal name holds the ID's last name and one of its first-name forms (for a
 * passport, all given names or only the first), in separate words.
 */
export function isSameName(legalName: string, id: { firstNames: string[]; lastName: string }): boolean {
  const lastName = compact(id.lastName);
  const firstNames = id.firstNames.map(compact).filter(Boolean);
  if (!lastName || firstNames.length === 0) return false;
  for (const letters of [plainLetters, passportLetters]) {
    const words = toWords(legalName, letters);
    const lastSpans = findSpans(words, lastName);
    for (const firstName of firstNames) {
      const firstSpans = findSpans(words, firstName);
      if (firstSpans.some(([firstStart, firstEnd]) => lastSpans.some(([lastStart, lastEnd]) => firstEnd < lastStart || lastEnd < firstStart))) return true;
    }
  }
  return false;
}
