import pg from 'pg';
import type { DbTimeouts } from '../db/client.ts';

/** Where counters live: PostgreSQL by default, Redis when REDIS_URL is set; shared by every process. */
export interface CounterStore {
  /** Counts one hit in the fixed window of `periodSeconds` that `key` is in; returns the count and when the window ends. */
  hit(key: string, periodSeconds: number): Promise<{ count: number; resetAt: Date }>;
  /** Sets `key` to `count` until `seconds` from now (a ban). */
  set(key: string, seconds: number): Promise<void>;
  /** When `key`'s window ends, or null when it has none (never set or expired). */
  expiry(key: string): Promise<Date | null>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Counters in the `throttle_counters` table; one statement per operation, atomic under
 * concurrency. They use a small pool of their own: the ban and the throttles keep working when the
 * request pool is exhausted, and a request's own statements are all the request pool carries.
 */
export class PostgresCounterStore implements CounterStore {
  private hits = 0;
  private readonly pool: pg.Pool;

  constructor(url: string, timeouts: DbTimeouts) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: 2,
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      statement_timeout: timeouts.statementTimeoutMs,
      query_timeout: timeouts.statementTimeoutMs + 1_000,
    });
    this.pool.on('error', () => {});
  }

  async hit(key: string, periodSeconds: number) {
    const { rows } = await this.pool.query<{ count: number; expires_at: Date }>(
      `INSERT INTO throttle_counters (key, count, expires_at) VALUES ($1, 1, now() AT TIME ZONE 'UTC' + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN throttle_counters.expires_at <= now() AT TIME ZONE 'UTC' THEN 1 ELSE throttle_counters.count + 1 END,
         expires_at = CASE WHEN throttle_counters.expires_at <= now() AT TIME ZONE 'UTC' THEN EXCLUDED.expires_at ELSE throttle_counters.expires_at END
       RETURNING count, expires_at AT TIME ZONE 'UTC' AS expires_at`,
      [key, periodSeconds],
    );
    // Expired windows are dead rows; sweep them now and then rather than on every hit.
    if (++this.hits % 500 === 0) await this.pool.query(`DELETE FROM throttle_counters WHERE expires_at < now() AT TIME ZONE 'UTC'`);
    return { count: rows[0].count, resetAt: rows[0].expires_at };
  }

  async set(key: string, seconds: number) {
    await this.pool.query(
      `INSERT INTO throttle_counters (key, count, expires_at) VALUES ($1, 1, now() AT TIME ZONE 'UTC' + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET count = 1, expires_at = EXCLUDED.expires_at`,
      [key, seconds],
    );
  }

  async expiry(key: string) {
    const { rows } = await this.pool.query<{ expires_at: Date }>(
      `SELECT expires_at AT TIME ZONE 'UTC' AS expires_at FROM throttle_counters WHERE key = $1 AND expires_at > now() AT TIME ZONE 'UTC'`,
      [key],
    );
    return rows[0]?.expires_at ?? null;
  }

  async remove(key: string) {
    await this.pool.query('DELETE FROM throttle_counters WHERE key = $1', [key]);
  }

  async close() {
    await this.pool.end();
  }
}
