import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../src/core/time.ts';
import { prng } from './helpers/random.ts';

const same = (time: number) => {
  const date = new Date(time);
  expect(isoTimestamp(date), String(time)).toBe(date.toISOString());
};

/** The instants whose text differs from toISOString's (expect() per instant would cost more than the check). */
function differing(times: Iterable<number>, format: (date: Date) => string = isoTimestamp): string[] {
  const found: string[] = [];
  for (const time of times) {
    const date = new Date(time);
    if (format(date) !== date.toISOString()) found.push(date.toISOString());
  }
  return found;
}

describe('isoTimestamp', () => {
  it("writes toISOString's text at the edges: epoch, leap days, century rules, the first and last ms of years and of 0000-9999", () => {
    const edges = [
      Date.UTC(1970, 0, 1),
      -1,
      1,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1),
      Date.UTC(1900, 1, 28),
      Date.UTC(1900, 2, 1),
      Date.UTC(1600, 1, 29),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      Date.parse('0000-01-01T00:00:00.000Z'),
      Date.parse('0000-02-29T00:00:00.000Z'),
      Date.parse('0099-12-31T23:59:59.999Z'),
      Date.parse('0999-06-15T01:02:03.004Z'),
      Date.parse('9999-12-31T23:59:59.999Z'),
    ];
    for (const time of edges) same(time);
  });

  it("writes toISOString's text for every day of four centuries and random instants, years 0000-9999", () => {
    function* days() {
      // Every day from 1800 to 2200, at a time of day that moves with the day.
      for (let day = Date.UTC(1800, 0, 1) / 86_400_000; day < Date.UTC(2200, 0, 1) / 86_400_000; day++)
        yield day * 86_400_000 + ((day * 7_919_993) % 86_400_000);
    }
    function* instants() {
      const random = prng(20261126);
      const first = Date.parse('0000-01-01T00:00:00.000Z');
      const last = Date.parse('9999-12-31T23:59:59.999Z');
      for (let i = 0; i < 100_000; i++) yield Math.floor(first + random() * (last - first));
    }
    expect(differing(days())).toEqual([]);
    expect(differing(instants())).toEqual([]);
    // Positive control: the check sees a text off by a day.
    expect(differing([0, 1, Date.UTC(2000, 1, 29)], (date) => new Date(date.getTime() + 86_400_000).toISOString())).toHaveLength(3);
  });

  it('leaves extended years (a sign and six digits) and invalid dates to the built-in', () => {
    same(Date.parse('-000001-12-31T23:59:59.999Z'));
    same(Date.parse('+010000-01-01T00:00:00.000Z'));
    same(8.64e15);
    same(-8.64e15);
    expect(isoTimestamp(new Date(Date.parse('+010000-01-01T00:00:00.000Z')))).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
