import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/** Counts SQL statements sent through the pool; tests assert on it to catch N+1 queries. */
export class QueryCounter {
  count = 0;
  reset() {
    this.count = 0;
  }
}

export function createDb(
  url: string,
  counter?: QueryCounter,
  onIdleError: (error: Error) => void = () => {},
  max = 10,
): { db: Db; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection that the server drops (restart, shutdown) emits 'error'; unheard, that
  // event would crash the process. The pool replaces the connection on next use.
  pool.on('error', onIdleError);
  if (counter) {
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        counter.count += 1;
        return query(...args);
      };
    });
  }
  const db = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { db, pool };
}
