import path from 'node:path';
import pino from 'pino';
import type { Config } from './config.ts';
import { createDb, type QueryCounter } from './db/client.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import type { AppDeps } from './deps.ts';
import { GitStore } from './git/store.ts';
import { ensureRootUser } from './modules/users/bootstrap.ts';
import { loadSecrets } from './secrets.ts';

export type Runtime = { deps: AppDeps; database: DatabaseHandle; close: () => Promise<void> };

/** Config → database (embedded or DATABASE_URL) → pending migrations → deps → root user. */
export async function startRuntime(config: Config, opts: { queryCounter?: QueryCounter; databaseUrl?: string } = {}): Promise<Runtime> {
  const log = pino({
    level: config.logLevel,
    redact: ['req.headers["private-token"]', 'req.headers.authorization', 'req.headers["job-token"]'],
  });
  const secrets = loadSecrets(config);
  const database: DatabaseHandle = opts.databaseUrl
    ? { url: opts.databaseUrl, embedded: false, stop: async () => {} }
    : await openDatabase(config, secrets, { onError: (e) => log.error({ err: e }, 'embedded postgres'), onNotice: (m) => log.warn(m) });
  const applied = await applyMigrations(database.url);
  if (applied.length) log.info({ applied }, 'applied migrations');
  const { db, pool } = createDb(database.url, opts.queryCounter, (error) => log.warn({ err: error }, 'idle database connection lost'));
  const deps: AppDeps = { config, secrets, db, git: new GitStore(path.join(config.dataDir, 'repositories')), log, queryCounter: opts.queryCounter };
  await ensureRootUser(deps);
  return {
    deps,
    database,
    close: async () => {
      await db.$disconnect();
      if (!pool.ended) await pool.end();
      await database.stop();
    },
  };
}
