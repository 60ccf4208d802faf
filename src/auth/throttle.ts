import type { Config, Throttle } from '../config.ts';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../core/errors.ts';
import { PostgresCounterStore, type CounterStore } from './counter-store.ts';

type RedisChain = {
  incr(k: string): RedisChain;
  pexpire(k: string, ms: number, mode: 'NX'): RedisChain;
  pttl(k: string): RedisChain;
  exec(): Promise<[Error | null, unknown][] | null>;
};
type RedisLike = {
  multi(): RedisChain;
  set(k: string, v: string, px: 'PX', ms: number): Promise<unknown>;
  pttl(k: string): Promise<number>;
  del(k: string): Promise<number>;
  quit(): Promise<unknown>;
};

/** Counters in Redis: INCR with an expiry set on the window's first hit. */
export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: RedisLike) {}

  static async connect(url: string): Promise<RedisCounterStore> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000 }) as unknown as RedisLike & { connect(): Promise<void> };
    await redis.connect();
    return new RedisCounterStore(redis);
  }

  async hit(key: string, periodSeconds: number) {
    const replies = await this.redis
      .multi()
      .incr(key)
      .pexpire(key, periodSeconds * 1000, 'NX')
      .pttl(key)
      .exec();
    const [[, count], , [, ttl]] = replies as [null, number][];
    return { count: Number(count), resetAt: new Date(Date.now() + Math.max(0, Number(ttl))) };
  }

  async set(key: string, seconds: number) {
    await this.redis.set(key, '1', 'PX', seconds * 1000);
  }

  async expiry(key: string) {
    const ttl = await this.redis.pttl(key);
    return ttl > 0 ? new Date(Date.now() + ttl) : null;
  }

  async remove(key: string) {
    await this.redis.del(key);
  }

  async close() {
    await this.redis.quit();
  }
}

/** How long a process trusts the ban state it read for an IP. */
const BAN_CACHE_MS = 2_000;

const secondsUntil = (date: Date) => Math.max(1, Math.ceil((date.getTime() - Date.now()) / 1000));

/**
 * GitLab's abuse protections in front of authentication:
 * - the failed-authentication ban: `maxRetry` bad credentials from one IP within `findTime`
 *   ban that IP's credentialed requests for `banTime` (403, no headers); a success resets the count;
 * - the API throttles (off unless configured): per IP for anonymous requests, per user for
 *   authenticated ones, answering 429 with `RateLimit-*` and `Retry-After`.
 */
export class Throttler {
  /** IPs this process saw fail recently, so a success only costs a reset when one is due. */
  private readonly failedRecently = new Set<string>();

  constructor(
    private readonly store: CounterStore,
    private readonly config: Pick<Config, 'authBan' | 'rateLimits'>,
  ) {}

  get banEnabled() {
    return this.config.authBan.enabled;
  }

  /** Ban state per IP as last read, so a busy client costs one lookup per BAN_CACHE_MS, not one per request. */
  private readonly bans = new Map<string, { until: number; checkedAt: number }>();

  /** 403 while the IP is banned (a ban set by another process is seen within BAN_CACHE_MS). */
  async checkBan(ip: string): Promise<void> {
    if (!this.banEnabled) return;
    const now = Date.now();
    let known = this.bans.get(ip);
    if (!known || now - known.checkedAt > BAN_CACHE_MS) {
      if (this.bans.size > 10_000) this.bans.clear();
      known = { until: (await this.store.expiry(`ban:${ip}`))?.getTime() ?? 0, checkedAt: now };
      this.bans.set(ip, known);
    }
    if (known.until > now) throw new ForbiddenError();
  }

  /** Counts a failed authentication; the failure that reaches the limit starts the ban. */
  async recordFailure(ip: string): Promise<void> {
    if (!this.banEnabled) return;
    const { maxRetry, findTimeSeconds, banTimeSeconds } = this.config.authBan;
    this.failedRecently.add(ip);
    const { count } = await this.store.hit(`authfail:${ip}`, findTimeSeconds);
    if (count < maxRetry) return;
    await this.store.set(`ban:${ip}`, banTimeSeconds);
    this.bans.set(ip, { until: Date.now() + banTimeSeconds * 1000, checkedAt: Date.now() });
  }

  async recordSuccess(ip: string): Promise<void> {
    if (!this.banEnabled || !this.failedRecently.delete(ip)) return;
    await this.store.remove(`authfail:${ip}`);
  }

  /**
   * Runs an authentication behind GitLab's failed-authentication ban: a banned IP is refused (403)
   * before any lookup, a bad credential counts towards a ban, a good one resets the count.
   * Requests that carry no credential are neither checked nor counted.
   */
  async authenticateBehindBan<T>(ip: string, credentialed: boolean, authenticate: () => Promise<T>): Promise<T> {
    if (!credentialed) return authenticate();
    await this.checkBan(ip);
    try {
      const result = await authenticate();
      await this.recordSuccess(ip);
      return result;
    } catch (error) {
      if (error instanceof UnauthorizedError) await this.recordFailure(ip);
      throw error;
    }
  }

  /** Counts the request against its throttle; 429 past the limit. Returns the headers to send. */
  async throttle(subject: { userId: number | null; ip: string }): Promise<Record<string, string>> {
    const limit = subject.userId === null ? this.config.rateLimits.unauthenticated : this.config.rateLimits.authenticated;
    if (!limit) return {};
    const name = subject.userId === null ? 'throttle_unauthenticated_api' : 'throttle_authenticated_api';
    const key = subject.userId === null ? `${name}:ip:${subject.ip}` : `${name}:user:${subject.userId}`;
    const { count, resetAt } = await this.store.hit(key, limit.periodSeconds);
    if (count <= limit.requests) return {};
    throw new TooManyRequestsError(secondsUntil(resetAt), rateLimitHeaders(name, limit, count, resetAt));
  }

  close() {
    return this.store.close();
  }
}

/** The headers GitLab's throttles send with a 429. */
function rateLimitHeaders(name: string, limit: Throttle, observed: number, resetAt: Date): Record<string, string> {
  return {
    'RateLimit-Name': name,
    'RateLimit-Limit': String(limit.requests),
    'RateLimit-Observed': String(observed),
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(Math.ceil(resetAt.getTime() / 1000)),
  };
}

export async function createThrottler(config: Config, databaseUrl: string): Promise<Throttler> {
  const store = config.redisUrl ? await RedisCounterStore.connect(config.redisUrl) : new PostgresCounterStore(databaseUrl, config.database);
  return new Throttler(store, config);
}
