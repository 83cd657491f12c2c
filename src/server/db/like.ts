/** `%`, `_` and `\` of a search are plain characters in ILIKE (backslash is its default escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** A pattern for ILIKE that matches the text anywhere, case-insensitively. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}
