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
