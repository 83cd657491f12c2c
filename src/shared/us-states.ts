/**
 * The US states and the District of Columbia: the two-letter code stored with a commission, the
 * full name people read, and how a date filled into a document of that state is written. Pickers
 * list them by name; add a jurisdiction here and every picker, certificate and date field knows it.
 */

/** How a filled date field is written: the tokens of ./dates.ts formatFieldDate. */
export const dateFieldFormats = ['MM/DD/YYYY', 'YYYY-MM-DD', 'MMMM D, YYYY'] as const;
export type DateFieldFormat = (typeof dateFieldFormats)[number];

interface UsState {
  name: string;
  /** How the state's documents write a date (every US state: month/day/year, two digits each). */
  dateFieldFormat: DateFieldFormat;
}

const us = 'MM/DD/YYYY' satisfies DateFieldFormat;

/** In the order of their names, as a picker lists them. */
export const usStates = {
  AL: { name: 'Alabama', dateFieldFormat: us },
  AK: { name: 'Alaska', dateFieldFormat: us },
  AZ: { name: 'Arizona', dateFieldFormat: us },
  AR: { name: 'Arkansas', dateFieldFormat: us },
  CA: { name: 'California', dateFieldFormat: us },
  CO: { name: 'Colorado', dateFieldFormat: us },
  CT: { name: 'Connecticut', dateFieldFormat: us },
  DE: { name: 'Delaware', dateFieldFormat: us },
  DC: { name: 'District of Columbia', dateFieldFormat: us },
  FL: { name: 'Florida', dateFieldFormat: us },
  GA: { name: 'Georgia', dateFieldFormat: us },
  HI: { name: 'Hawaii', dateFieldFormat: us },
  ID: { name: 'Idaho', dateFieldFormat: us },
  IL: { name: 'Illinois', dateFieldFormat: us },
  IN: { name: 'Indiana', dateFieldFormat: us },
  IA: { name: 'Iowa', dateFieldFormat: us },
  KS: { name: 'Kansas', dateFieldFormat: us },
  KY: { name: 'Kentucky', dateFieldFormat: us },
  LA: { name: 'Louisiana', dateFieldFormat: us },
  ME: { name: 'Maine', dateFieldFormat: us },
  MD: { name: 'Maryland', dateFieldFormat: us },
  MA: { name: 'Massachusetts', dateFieldFormat: us },
  MI: { name: 'Michigan', dateFieldFormat: us },
  MN: { name: 'Minnesota', dateFieldFormat: us },
  MS: { name: 'Mississippi', dateFieldFormat: us },
  MO: { name: 'Missouri', dateFieldFormat: us },
  MT: { name: 'Montana', dateFieldFormat: us },
  NE: { name: 'Nebraska', dateFieldFormat: us },
  NV: { name: 'Nevada', dateFieldFormat: us },
  NH: { name: 'New Hampshire', dateFieldFormat: us },
  NJ: { name: 'New Jersey', dateFieldFormat: us },
  NM: { name: 'New Mexico', dateFieldFormat: us },
  NY: { name: 'New York', dateFieldFormat: us },
  NC: { name: 'North Carolina', dateFieldFormat: us },
  ND: { name: 'North Dakota', dateFieldFormat: us },
  OH: { name: 'Ohio', dateFieldFormat: us },
  OK: { name: 'Oklahoma', dateFieldFormat: us },
  OR: { name: 'Oregon', dateFieldFormat: us },
  PA: { name: 'Pennsylvania', dateFieldFormat: us },
  RI: { name: 'Rhode Island', dateFieldFormat: us },
  SC: { name: 'South Carolina', dateFieldFormat: us },
  SD: { name: 'South Dakota', dateFieldFormat: us },
  TN: { name: 'Tennessee', dateFieldFormat: us },
  TX: { name: 'Texas', dateFieldFormat: us },
  UT: { name: 'Utah', dateFieldFormat: us },
  VT: { name: 'Vermont', dateFieldFormat: us },
  VA: { name: 'Virginia', dateFieldFormat: us },
  WA: { name: 'Washington', dateFieldFormat: us },
  WV: { name: 'West Virginia', dateFieldFormat: us },
  WI: { name: 'Wisconsin', dateFieldFormat: us },
  WY: { name: 'Wyoming', dateFieldFormat: us },
} as const satisfies Record<string, UsState>;

export type UsStateCode = keyof typeof usStates;
export const usStateCodes = Object.keys(usStates) as [UsStateCode, ...UsStateCode[]];

export function isUsStateCode(value: string): value is UsStateCode {
  return Object.hasOwn(usStates, value);
}

/** The state of a code ("TX", " tx "), or null for anything else. */
export function findUsState(code: string | null | undefined): (typeof usStates)[UsStateCode] | null {
  const key = (code ?? '').trim().toUpperCase();
  return isUsStateCode(key) ? usStates[key] : null;
}

/** "Texas" for "TX"; what was stored, trimmed, when it is not a known code (an older row may hold a name). */
export function getUsStateName(code: string): string {
  return findUsState(code)?.name ?? code.trim();
}

/** The codes of states one of whose name's words begins with `word` ("virg" → VA, WV); none for words under three letters. */
export function findUsStateCodesByNameWord(word: string): UsStateCode[] {
  const needle = word.trim().toLowerCase();
  if (needle.length < 3) return [];
  return usStateCodes.filter((code) =>
    usStates[code].name
      .toLowerCase()
      .split(/\s+/)
      .some((part) => part.startsWith(needle)),
  );
}
