/**
 * The query string of a list call: the filters given, in the order given, leaving out those not set
 * (undefined, null or an empty or blank string), so an empty search box asks for everything and two
 * equal filters give the same query key.
 */
export function toQueryString(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const text = String(value).trim();
    if (text) search.set(key, text);
  }
  return search.toString();
}

/**
 * The filters a list page opens with, read once from its address (`?q=…&page=2` and the list's own
 * choices), so a link or a reload shows the same search; a value that is not one of `choices` is
 * ignored, and a page that is not a whole number from 1 reads as 1.
 */
export function readListAddress<K extends string>(
  params: URLSearchParams,
  choices: Record<K, readonly string[]>,
): { q: string; page: number; choices: Record<K, string> } {
  const page = Number(params.get('page'));
  const picked = {} as Record<K, string>;
  for (const key of Object.keys(choices) as K[]) {
    const value = params.get(key) ?? '';
    picked[key] = choices[key].includes(value) ? value : '';
  }
  return { q: (params.get('q') ?? '').slice(0, 200), page: Number.isInteger(page) && page >= 1 ? page : 1, choices: picked };
}
