import { describe, expect, it } from 'vitest';
import { settledOnce } from '../src/core/loaders.ts';

describe('settledOnce', () => {
  it('loads a key once, shares the first load, then hands the value over without a promise', async () => {
    const loads: number[] = [];
    const facts = settledOnce(async (id: number) => {
      loads.push(id);
      return { id, url: `/p/${id}` };
    });
    const first = facts(1, (f) => f.url);
    const second = facts(1, (f) => f.id);
    expect(first).toBeInstanceOf(Promise);
    expect(await Promise.all([first, second])).toEqual(['/p/1', 1]);
    // Settled: the value at once, as a plain value.
    expect(facts(1, (f) => f.url)).toBe('/p/1');
    expect(loads).toEqual([1]);
    // Another key is its own load.
    expect(await facts(2, (f) => f.url)).toBe('/p/2');
    expect(loads).toEqual([1, 2]);
  });
});
