import type { Logger } from 'pino';
import type { Throttler } from './auth/throttle.ts';
import type { ViewerCache } from './auth/viewer-cache.ts';
import type { Config } from './config.ts';
import type { EventBus } from './core/events.ts';
import type { LoaderFactories } from './core/loaders.ts';
import type { Db, QueryCounter } from './db/client.ts';
import type { SqlReader } from './db/rows.ts';
import type { FlagStore } from './flags/store.ts';
import type { GitStore } from './git/store.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Notifications } from './db/notifications.ts';
import type { Secrets } from './secrets.ts';

/** Long-lived collaborators, built once at start (or per test file) and shared by every request. */
export type AppDeps = {
  config: Config;
  secrets: Secrets;
  db: Db;
  /** Plain reads over the same pool, for the statements nearly every request runs (see SqlReader). */
  sql: SqlReader;
  git: GitStore;
  log: Logger;
  events: EventBus;
  /** Each area's per-request DataLoaders, from the module manifest. */
  loaderFactories: LoaderFactories;
  /** Feature flags; ask through `featureEnabled(deps, name, actor)`. */
  flags: FlagStore;
  /** The background job queue: `deps.jobs.send(queue, data)`. */
  jobs: JobQueue;
  /** Outgoing e-mail (SMTP_URL, else the outbox table): `deps.mail.send({ to, subject, text })`. */
  mail: Mailer;
  /** This process's LISTEN connection: cross-process signals (`subscribe(channel, …)`). */
  notifications: Notifications;
  /** Failed-authentication ban and API rate limits, with counters shared by every process. */
  throttle: Throttler;
  /** Token lookups for a few seconds, dropped on any token or user change (LISTEN/NOTIFY). */
  viewers: ViewerCache;
  queryCounter?: QueryCounter;
};
