import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../src/core/bounded-cache.ts';

describe('BoundedCache', () => {
  it('holds at most its bound and forgets the least recently used entry first', () => {
    const cache = new BoundedCache<string, number | null>(3);
    cache.set('a', 1);
    cache.set('b', null);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    // A remembered null is an entry (a lookup that found nothing), not a miss.
    cache.set('e', null);
    expect(cache.has('e')).toBe(true);
    expect(cache.get('e')).toBeNull();
    // Setting a key again replaces it without growing.
    cache.set('e', 5);
    expect(cache.size).toBe(3);
    expect(cache.get('missing')).toBeUndefined();
  });
});
