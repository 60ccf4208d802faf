import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db, QueryCounter } from './db/client.ts';
import type { GitStore } from './git/store.ts';
import type { Secrets } from './secrets.ts';

/** Long-lived collaborators, built once at start (or per test file) and shared by every request. */
export type AppDeps = {
  config: Config;
  secrets: Secrets;
  db: Db;
  git: GitStore;
  log: Logger;
  queryCounter?: QueryCounter;
};
