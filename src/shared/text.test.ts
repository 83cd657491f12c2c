import { describe, expect, it } from 'vitest';
import { isSingleLineText, plainTextSchema, singleLineTextSchema, toSingleLine } from './text.ts';

const titleSchema = singleLineTextSchema({ label: 'The job title', max: 20, requiredMessage: 'Enter a title for the job.' });
const refusal = 'The job title must be one line of text, without line breaks, control characters or text-direction overrides.';

describe('singleLineTextSchema', () => {
  it.each([
    ['a line feed', 'Sam\nBcc: x@evil'],
    ['a carriage return', 'Sam\rBcc: x@evil'],
    ['a tab', 'Sam\tSigner'],
    ['NUL', 'Sam\u0000'],
    ['DEL', 'Sam\u007f'],
    ['a C1 control', 'Sam\u0085Next'],
    ['a line separator', 'Sam\u2028Bcc'],
    ['a right-to-left override', 'invoice\u202Efdp.exe'],
    ['a left-to-right isolate', 'Sam\u2066x\u2069'],
    ['a lone surrogate', 'Sam\ud800'],
  ])('refuses %s with a message naming the field', (_label, value) => {
    const parsed = titleSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(refusal);
  });

  it.each([
    ['plain ASCII', 'Sale of 12 Elm St.', 'Sale of 12 Elm St.'],
    ['accents and emoji', 'Zoë 🏠 Müller', 'Zoë 🏠 Müller'],
    ['Hebrew with a right-to-left mark', 'שרה\u200F (Sarah)', 'שרה\u200F (Sarah)'],
    ['a Persian zero-width non-joiner', 'می\u200Cخواهم', 'می\u200Cخواهم'],
    ['surrounding spaces and a trailing newline, trimmed', '  Deed\n', 'Deed'],
  ])('accepts %s', (_label, value, stored) => {
    expect(titleSchema.parse(value)).toBe(stored);
  });

  it('keeps its own required and length messages', () => {
    expect(titleSchema.safeParse('   ').error?.issues[0]?.message).toBe('Enter a title for the job.');
    expect(titleSchema.safeParse('x'.repeat(21)).error?.issues[0]?.message).toBe('The job title must be at most 20 characters.');
  });
});

describe('invisible characters in a name or title', () => {
  it('refuses a byte-order mark, a zero-width space and a word joiner, which hide inside a name', () => {
    for (const text of ['Deed\ufeffx', 'Ann\u200bLee', 'Ann\u2060Lee']) expect(isSingleLineText(text), JSON.stringify(text)).toBe(false);
  });

  it('keeps the joiners that scripts and emoji need', () => {
    for (const text of ['می\u200cخواهم', 'क्\u200dष', '👩\u200d💻 Ada']) expect(isSingleLineText(text), JSON.stringify(text)).toBe(true);
  });
});

describe('plainTextSchema', () => {
  const reasonSchema = plainTextSchema({ label: 'The reason', max: 100 });
  it('allows line breaks and tabs but not other controls or overrides', () => {
    expect(reasonSchema.parse('Known to me\r\n\tpersonally')).toBe('Known to me\r\n\tpersonally');
    expect(reasonSchema.safeParse('Known\u0000').success).toBe(false);
    expect(reasonSchema.safeParse('Known\u202E').error?.issues[0]?.message).toBe(
      'The reason must be plain text, without control characters or text-direction overrides.',
    );
  });
});

describe('toSingleLine', () => {
  it('turns every run of forbidden characters into one space', () => {
    expect(toSingleLine('Sam\r\nBcc: x@evil')).toBe('Sam Bcc: x@evil');
    expect(toSingleLine('\u202Einvoice\u0000\u0000pdf\n')).toBe('invoice pdf');
    expect(isSingleLineText(toSingleLine('a\u2028b\u2029c'))).toBe(true);
  });

  it('gives text already on one line back as it is, and cleans every other text the same way whatever it holds', () => {
    // The cleaning as it was written before its shortcut for text already on one line.
    const slow = (text: string) =>
      text
        .replace(/[\p{Cc}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069\u200B\u2060\uFEFF]/gu, ' ')
        .replace(/ {2,}/g, ' ')
        .trim();
    const samples = [
      '',
      'Sam Signer placed a signature field on page 1 of deed.pdf.',
      ' lead',
      'trail ',
      'two  spaces',
      'tab\there',
      'x\u00a0y',
      '\u00a0',
      'ok',
      'a b c',
    ];
    let seed = 7;
    const alphabet = ['a', 'Z', ' ', '  ', '\t', '\n', '\u00a0', '\u2028', '\u202e', 'é', '.', '\u0000', '\ufeff'];
    for (let round = 0; round < 2000; round += 1) {
      let text = '';
      for (let index = 0; index < 6; index += 1) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        text += alphabet[seed % alphabet.length];
      }
      samples.push(text);
    }
    for (const text of samples) expect(toSingleLine(text), JSON.stringify(text)).toBe(slow(text));
    const oneLine = 'Already one line.';
    expect(toSingleLine(oneLine)).toBe(oneLine);
  });
});
