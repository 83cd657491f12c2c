import { z } from 'zod';

/**
 * Characters a one-line name or title may not hold: control characters (line breaks, tabs, NUL,
 * DEL, C1), Unicode line and paragraph separators, lone surrogates, the bidirectional embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make text display in an order other
 * than the one stored ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"), and the invisible zero-width
 * space, word joiner and byte-order mark (U+200B, U+2060, U+FEFF), which hide inside a name
 * ("Ann\u200BLee" shows as "AnnLee"). The bidi marks (U+200E, U+200F, U+061C) and the joiners
 * (U+200C, U+200D) stay allowed: mixed-script names, Persian and Indic scripts and emoji need them,
 * and they cannot reorder letters.
 */
const notSingleLine = /[\p{Cc}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069\u200B\u2060\uFEFF]/u;
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
  if (printableOneLine.test(text)) return text;
  return text.replace(notSingleLineGlobal, ' ').replace(/ {2,}/g, ' ').trim();
}

/** Printable ASCII, one space between words and none at either end: one line already (most names and sentences). */
const printableOneLine = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/;

const loneSurrogate = /\p{Cs}/u;

/** Text without a NUL, which PostgreSQL text and jsonb cannot hold, or a lone surrogate, which has no UTF-8 form. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !loneSurrogate.test(text);
}

/** The sentence for a value that holds a NUL or a lone surrogate, naming where it was. */
export function notStorableMessage(where: string): string {
  return `${where} holds a character that is not text (a NUL or half of a broken character pair); remove it and send again.`;
}

/**
 * The path ('entries.0.notes') of the first string in `value`, key or value, that holds a NUL or a
 * lone surrogate; null when there is none. It walks with its own stack, so no nesting depth a JSON
 * body can have overflows it.
 */
export function findUnstorableText(value: unknown): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const next = stack.pop() as { value: unknown; path: string };
    if (typeof next.value === 'string') {
      if (!isStorableText(next.value)) return next.path;
    } else if (next.value !== null && typeof next.value === 'object') {
      const children = Object.entries(next.value).map(([key, child]) => ({ key, value: child, path: next.path ? `${next.path}.${key}` : key }));
      const badKey = children.find((child) => !isStorableText(child.key));
      if (badKey) return badKey.path;
      // pushed last to first, so the walk meets them in their own order
      for (const child of children.reverse()) stack.push({ value: child.value, path: child.path });
    }
  }
  return null;
}
