import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepositoryBusyError, RepositoryLimiter } from '../src/git/limiter.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('RepositoryLimiter', () => {
  it('runs up to the bound per repository, queues in order, hands a freed slot to the next waiter', async () => {
    const limiter = new RepositoryLimiter(2, 2, 60_000);
    const first = await limiter.acquire(1);
    const second = await limiter.acquire(1);
    const other = await limiter.acquire(2); // another repository has its own slots
    expect([limiter.running(1), limiter.running(2)]).toEqual([2, 1]);
    const granted: string[] = [];
    const third = limiter.acquire(1).then((release) => {
      granted.push('third');
      return release;
    });
    const fourth = limiter.acquire(1).then((release) => {
      granted.push('fourth');
      return release;
    });
    await expect(limiter.acquire(1)).rejects.toBeInstanceOf(RepositoryBusyError); // queue full
    first();
    first(); // releasing twice frees one slot only
    (await third)();
    expect(granted).toEqual(['third']);
    second();
    (await fourth)();
    expect(granted).toEqual(['third', 'fourth']);
    expect(limiter.running(1)).toBe(0);
    other();
    expect(limiter.running(2)).toBe(0);
  });

  it('gives up on a waiter after the wait limit, and the slot count stays right', async () => {
    vi.useFakeTimers();
    const limiter = new RepositoryLimiter(1, 5, 1000);
    const held = await limiter.acquire(7);
    const waiting = limiter.acquire(7);
    const assertion = expect(waiting).rejects.toBeInstanceOf(RepositoryBusyError);
    await vi.advanceTimersByTimeAsync(1000);
    await assertion;
    held();
    expect(limiter.running(7)).toBe(0);
    (await limiter.acquire(7))();
  });
});
