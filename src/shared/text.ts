import { z } from 'zod';

/**
 * Characters a one-line name or title may not hold: control characters (line breaks, tabs, NUL,
 * DEL, C1), Unicode line and paragraph separators, lone surrogates, and the bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make text display in an
 * order other than the one stored ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"). The bidi
 * marks (U+200E, U+200F, U+061C) and joiners stay allowed: mixed-script names need them and they
 * cannot reorder letters.
 */
const notSingleLine = /[\p{Cc}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
/** The same, minus line feed, carriage return and tab, for free text that may span lines. */
const notPlainText = /[\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069]|(?![\n\r\t])\p{Cc}/u;
const notSingleLineGlobal = new RegExp(notSingleLine.source, 'gu');

export function isSingleLineText(text: string): boolean {
  return !notSingleLine.test(text);
}

/** The message naming the field, e.g. "The job title must be one line of text, without …". */
export function singleLineMessage(label: string): string {
  return `${label} must be one line of text, without line breaks, control characters or text-direction overrides.`;
}

/**
 * The one schema for names, titles and document names: trimmed, at most `max` characters, one line
 * (see notSingleLine). With `requiredMessage`, it may not be empty.
 */
export function singleLineTextSchema(options: { label: string; max: number; requiredMessage?: string }) {
  const base = z.string().trim();
  const required = options.requiredMessage ? base.min(1, { message: options.requiredMessage }) : base;
  return required
    .max(options.max, { message: `${options.label} must be at most ${options.max} characters.` })
    .refine(isSingleLineText, { message: singleLineMessage(options.label) });
}

/**
 * The text of a search box: trimmed, at most `max` characters, one line (see notSingleLine). A NUL
 * could not reach the database anyway: PostgreSQL's text cannot hold it.
 */
export function searchTextSchema(max: number) {
  const tooLong = { message: `Search with at most ${max} characters.` };
  return z
    .string(tooLong)
    .trim()
    .max(max, tooLong)
    .refine(isSingleLineText, { message: 'Search with one line of text, without control characters or text-direction overrides.' });
}

/** Free text such as a reason: line breaks allowed, other control and text-direction characters not. */
export function plainTextSchema(options: { label: string; max: number }) {
  return z
    .string()
    .trim()
    .max(options.max, { message: `${options.label} must be at most ${options.max} characters.` })
    .refine((text) => !notPlainText.test(text), { message: `${options.label} must be plain text, without control characters or text-direction overrides.` });
}

/**
 * Text stored before these rules, made safe for one line of an email or a header: every run of
 * forbidden characters becomes one space, so a name cannot start a line of its own ("Bcc: …").
 */
export function toSingleLine(text: string): string {
  return text.replace(notSingleLineGlobal, ' ').replace(/ {2,}/g, ' ').trim();
}
