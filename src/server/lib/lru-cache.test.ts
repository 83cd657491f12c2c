import { describe, expect, it } from 'vitest';
import { LruCache } from './lru-cache.ts';

describe('LruCache', () => {
  it('drops the least recently used entry past its entry bound, a read counting as a use', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps the total size under its byte bound, and never keeps an entry larger than the bound', () => {
    const cache = new LruCache<string, Buffer>({ maxEntries: 10, maxBytes: 10, sizeOf: (value) => value.length });
    cache.set('a', Buffer.alloc(4));
    cache.set('b', Buffer.alloc(4));
    cache.set('c', Buffer.alloc(4));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBe(8);
    cache.set('huge', Buffer.alloc(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.bytes).toBe(8);
  });

  it('replaces a value set again under the same key, counting its size once', () => {
    const cache = new LruCache<string, Buffer>({ maxEntries: 10, maxBytes: 100, sizeOf: (value) => value.length });
    cache.set('a', Buffer.alloc(30));
    cache.set('a', Buffer.alloc(20));
    expect(cache.get('a')?.length).toBe(20);
    expect(cache.bytes).toBe(20);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });
});
