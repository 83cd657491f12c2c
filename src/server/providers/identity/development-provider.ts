import { randomInt } from 'node:crypto';
import type { IdentityDataProvider, KbaQuestion, PersonData } from './identity-data-provider.ts';

/**
 * The development stand-in for an identity-data service: every question is made only from what the
 * person typed (birth date, address, name), so anyone who typed it can answer. It lets the whole
 * identity step run offline and in tests; it proves nothing.
 */
export const developmentProviderNotice =
  'These questions come from the development provider: they are made from what you typed and prove nothing about your identity.';

const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const weekdayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');

const stateNames: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

const cityNames = [
  'Springfield',
  'Riverside',
  'Franklin',
  'Greenville',
  'Fairview',
  'Madison',
  'Georgetown',
  'Clinton',
  'Salem',
  'Arlington',
  'Austin',
  'Houston',
  'Dallas',
  'Richmond',
  'Norfolk',
  'Orlando',
  'Tampa',
  'Miami',
  'Columbus',
  'Jacksonville',
  'Denver',
  'Portland',
  'Phoenix',
  'Charlotte',
  'Nashville',
  'Lexington',
  'Burlington',
  'Oxford',
  'Ashland',
  'Milford',
  'Newport',
  'Dover',
  'Auburn',
  'Lakewood',
  'Plano',
  'Alexandria',
  'Hampton',
  'Naples',
];

const streetNames = [
  'Oak',
  'Maple',
  'Cedar',
  'Pine',
  'Elm',
  'Washington',
  'Lake',
  'Hill',
  'Park',
  'Main',
  'Church',
  'Walnut',
  'Sunset',
  'Highland',
  'Ridge',
  'Willow',
  'Jefferson',
  'Lincoln',
  'Meadow',
  'Spring',
  'Chestnut',
  'River',
  'Forest',
  'Valley',
];
const streetSuffixes = ['Street', 'Avenue', 'Road', 'Drive', 'Lane', 'Boulevard', 'Court', 'Way'];

const nameSuffixes = new Set(['JR', 'SR', 'II', 'III', 'IV', 'V']);

function randomUnit(): number {
  // randomInt takes a range below 2^48.
  return randomInt(0, 2 ** 47) / 2 ** 47;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index -= 1) {
    const other = Math.min(index, Math.floor(random() * (index + 1)));
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}

const normalize = (label: string) => label.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * A question whose answer is `answer` and whose other choices are drawn from `candidates` (never
 * equal to the answer, never equal to each other), in shuffled order. Null when the candidates
 * cannot fill `choiceCount` choices.
 */
function makeQuestion(key: string, prompt: string, answer: string, candidates: string[], choiceCount: number, random: () => number): KbaQuestion | null {
  const seen = new Set([normalize(answer)]);
  const distractors: string[] = [];
  for (const candidate of shuffled(candidates, random)) {
    if (distractors.length >= choiceCount - 1) break;
    const normalized = normalize(candidate);
    if (seen.has(normalized)) continue;
    seen.add(normalized);
    distractors.push(candidate.trim());
  }
  if (distractors.length < choiceCount - 1) return null;
  const labels = shuffled([answer.trim(), ...distractors], random);
  const choices = labels.map((label, index) => ({ id: `${key}-${index + 1}`, label }));
  const correct = choices.find((choice) => normalize(choice.label) === normalize(answer));
  if (!correct) return null;
  return { key, prompt, choices, correctChoiceId: correct.id };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

/** The birth date's parts when it is a real calendar date. */
function parseBirthDate(birthDate: string): { year: number; month: number; day: number; weekday: number } | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return { year, month, day, weekday: date.getUTCDay() };
}

/** First and last name from "First Middle Last" or "Last, First", without suffixes such as Jr. */
function parseName(legalName: string): { first: string; last: string } | null {
  const clean = (part: string) => part.replace(/[.,]/g, '').trim();
  let first: string | undefined;
  let last: string | undefined;
  if (legalName.includes(',')) {
    const [lastPart = '', firstPart = ''] = legalName.split(',');
    last = clean(lastPart).split(/\s+/).at(-1);
    first = clean(firstPart).split(/\s+/)[0];
  } else {
    const words = legalName
      .split(/\s+/)
      .map(clean)
      .filter((word) => word && !nameSuffixes.has(word.toUpperCase()));
    first = words[0];
    last = words.length > 1 ? words.at(-1) : undefined;
  }
  return first && last ? { first, last } : null;
}

function firstLetter(word: string): string | null {
  const letter = word.trim().charAt(0).toUpperCase();
  return /\p{L}/u.test(letter) ? letter : null;
}

/** Same number of digits as `value`, none equal to it. */
function nearbyNumbers(value: number, digits: number, count: number, random: () => number): string[] {
  const low = digits === 1 ? 1 : 10 ** (digits - 1);
  const high = 10 ** digits - 1;
  const result = new Set<string>();
  const domain = high - low + 1;
  if (domain - 1 <= count * 4) {
    for (const candidate of range(low, high)) if (candidate !== value) result.add(String(candidate));
    return [...result];
  }
  for (let tries = 0; result.size < count * 4 && tries < count * 100; tries += 1) {
    const candidate = low + Math.floor(random() * domain);
    if (candidate !== value) result.add(String(candidate));
  }
  return [...result];
}

/** Builds every question the person's own data allows. */
export function buildDevelopmentQuestions(person: PersonData, choicesPerQuestion: number, random: () => number): KbaQuestion[] {
  if (!Number.isInteger(choicesPerQuestion) || choicesPerQuestion < 2) throw new Error('A question needs at least 2 choices.');
  const questions: (KbaQuestion | null)[] = [];
  const ask = (key: string, prompt: string, answer: string, candidates: string[]) =>
    questions.push(makeQuestion(key, prompt, answer, candidates, choicesPerQuestion, random));

  const birth = parseBirthDate(person.birthDate);
  if (birth) {
    ask(
      'birth_year',
      'In which year were you born?',
      String(birth.year),
      [...range(birth.year - 8, birth.year - 1), ...range(birth.year + 1, birth.year + 8)].map(String),
    );
    ask('birth_month', 'In which month were you born?', monthNames[birth.month - 1] as string, monthNames);
    ask('birth_day', 'On which day of the month were you born?', String(birth.day), range(1, 31).map(String));
    ask('birth_weekday', 'On which day of the week were you born?', weekdayNames[birth.weekday] as string, weekdayNames);
    ask(
      'birth_decade',
      'In which decade were you born?',
      `${birth.year - (birth.year % 10)}s`,
      range(-5, 5).map((offset) => `${birth.year - (birth.year % 10) + offset * 10}s`),
    );
  }

  const { street, city, state, postalCode } = person.address;
  const streetMatch = /^\s*(\d+)([A-Za-z]?)\s+(.+?)\s*$/.exec(street);
  if (streetMatch) {
    const [, numberText = '', , streetName = ''] = streetMatch;
    ask(
      'house_number',
      'What is the house number of your address?',
      numberText,
      nearbyNumbers(Number(numberText), numberText.length, choicesPerQuestion, random),
    );
    const words = streetName.split(/\s+/);
    const suffix = words.length > 1 ? words.at(-1) : undefined;
    const distractors = suffix
      ? streetNames.map((name) => `${name} ${suffix}`)
      : streetNames.flatMap((name) => streetSuffixes.map((type) => `${name} ${type}`));
    ask('street_name', 'On which street do you live?', streetName, distractors);
  }
  ask('city', 'In which city do you live?', city.trim(), cityNames);
  const stateCode = state.trim().toUpperCase();
  const stateName = stateNames[stateCode];
  if (stateName) ask('state', 'In which state do you live?', stateName, Object.values(stateNames));

  const zip = /^(\d{5})/.exec(postalCode.trim())?.[1];
  if (zip) {
    const prefix = zip.slice(0, 3);
    const lastTwo = zip.slice(3);
    ask(
      'zip_code',
      'What is your ZIP code?',
      zip,
      range(0, 99).map((n) => `${prefix}${String(n).padStart(2, '0')}`),
    );
    ask(
      'zip_last_two',
      'What are the last two digits of your ZIP code?',
      lastTwo,
      range(0, 99).map((n) => String(n).padStart(2, '0')),
    );
    ask('zip_first_digit', 'What is the first digit of your ZIP code?', zip.charAt(0), range(0, 9).map(String));
  }

  const name = parseName(person.legalName);
  if (name) {
    const lastInitial = firstLetter(name.last);
    const firstInitial = firstLetter(name.first);
    if (lastInitial) ask('last_name_initial', 'With which letter does your last name begin?', lastInitial, letters);
    if (firstInitial) ask('first_name_initial', 'With which letter does your first name begin?', firstInitial, letters);
    ask('last_name_length', 'How many letters are in your last name?', String(name.last.replace(/[^\p{L}]/gu, '').length), range(2, 16).map(String));
  }
  return questions.filter((question): question is KbaQuestion => question !== null);
}

export function createDevelopmentIdentityProvider(options: { random?: () => number } = {}): IdentityDataProvider {
  const random = options.random ?? randomUnit;
  return {
    name: 'development',
    isDevelopment: true,
    notice: developmentProviderNotice,
    async questionPool(person, choicesPerQuestion) {
      return buildDevelopmentQuestions(person, choicesPerQuestion, random);
    },
  };
}
