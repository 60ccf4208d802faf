/**
 * A Map that holds at most `max` entries and forgets the least recently used one first. For
 * caches whose keys name their content (object ids, document or markdown text), so an entry never
 * goes stale and only memory bounds it.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {}

  get size() {
    return this.map.size;
  }

  get(key: K): V | undefined {
    if (!this.map.has(key)) return undefined;
    const value = this.map.get(key) as V;
    // Map keeps insertion order: re-inserting marks the entry as the most recently used.
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  has(key: K) {
    return this.map.has(key);
  }

  delete(key: K) {
    this.map.delete(key);
  }

  set(key: K, value: V): V {
    this.map.delete(key);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    return value;
  }
}
