/**
 * A bounded least-recently-used map: at most `maxEntries` entries and, with a `sizeOf`, at most
 * `maxBytes` in all. A read makes an entry the most recent; adding past a bound drops the least
 * recent ones. An entry larger than `maxBytes` on its own is not kept.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private totalBytes = 0;

  constructor(private readonly options: { maxEntries: number; maxBytes?: number; sizeOf?: (value: V) => number }) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.options.sizeOf?.(value) ?? 0;
    const maxBytes = this.options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (bytes > maxBytes || this.options.maxEntries <= 0) return;
    this.entries.set(key, { value, bytes });
    this.totalBytes += bytes;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.totalBytes <= maxBytes) break;
      this.entries.delete(oldestKey);
      this.totalBytes -= oldest.bytes;
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }
}
