import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/** Counts SQL statements sent through the pool; tests assert on it to catch N+1 queries. */
export class QueryCounter {
  count = 0;
  /** The statements' text, in order, while `record` is on (tests compare the SQL of two requests). */
  statements: string[] = [];
  /** Each statement's bound values, beside `statements` (tests EXPLAIN the statements a request sent). */
  values: unknown[][] = [];
  /** Rows the statements returned while `record` is on (tests: what a check reads, not only how often). */
  rows = 0;
  record = false;
  reset() {
    this.count = 0;
    this.statements = [];
    this.values = [];
    this.rows = 0;
  }
}

export type DbTimeouts = { poolSize: number; connectTimeoutMs: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number };

export const DEFAULT_DB_TIMEOUTS: DbTimeouts = { poolSize: 10, connectTimeoutMs: 5_000, statementTimeoutMs: 15_000, idleInTransactionTimeoutMs: 60_000 };

/** Extra time the client waits past the server's statement timeout before giving up on a silent server. */
const READ_TIMEOUT_MARGIN_MS = 1_000;

/**
 * The pool every request uses. A stalled or lost database must turn into errors, not hangs:
 * connecting and waiting for a free connection give up after `connectTimeoutMs`, the server
 * cancels statements after `statementTimeoutMs` and ends sessions idle inside a transaction, and
 * the client stops waiting for a server that does not answer at all (SIGSTOP, network loss)
 * shortly after the statement timeout.
 */
export function createDb(
  url: string,
  opts: { counter?: QueryCounter; onIdleError?: (error: Error) => void; timeouts?: DbTimeouts } = {},
): { db: Db; pool: pg.Pool } {
  const t = opts.timeouts ?? DEFAULT_DB_TIMEOUTS;
  const pool = new pg.Pool({
    connectionString: url,
    max: t.poolSize,
    connectionTimeoutMillis: t.connectTimeoutMs,
    statement_timeout: t.statementTimeoutMs,
    idle_in_transaction_session_timeout: t.idleInTransactionTimeoutMs,
    query_timeout: t.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
  });
  // An idle connection that the server drops (restart, shutdown) emits 'error'; unheard, that
  // event would crash the process. The pool replaces the connection on next use.
  pool.on('error', opts.onIdleError ?? (() => {}));
  const counter = opts.counter;
  if (counter) {
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        counter.count += 1;
        if (!counter.record) return query(...args);
        const first = args[0] as string | { text?: string; values?: unknown[] };
        counter.statements.push(typeof first === 'string' ? first : (first?.text ?? ''));
        counter.values.push((typeof first === 'string' ? (Array.isArray(args[1]) ? args[1] : undefined) : first?.values) ?? []);
        const countRows = (r: { rows?: unknown[] } | undefined) => (counter.rows += r?.rows?.length ?? 0);
        // pg-pool passes a callback; direct callers get a promise.
        const last = args.at(-1);
        if (typeof last === 'function') {
          args[args.length - 1] = (error: unknown, r: { rows?: unknown[] } | undefined) => {
            if (!error) countRows(r);
            return (last as (...a: unknown[]) => unknown)(error, r);
          };
        }
        const result = query(...args);
        if (result instanceof Promise) result.then(countRows, () => {});
        return result;
      };
    });
  }
  const db = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { db, pool };
}
