import path from 'node:path';
import pino from 'pino';
import type { Config } from './config.ts';
import { createDb, type QueryCounter } from './db/client.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { Notifications } from './db/notifications.ts';
import type { AppDeps } from './deps.ts';
import { EventBus } from './core/events.ts';
import { Mailer } from './mail/mailer.ts';
import { loadFlagDefinitions } from './flags/definitions.ts';
import { FlagStore } from './flags/store.ts';
import { GitStore } from './git/store.ts';
import type { JobDefinitions } from './jobs/definitions.ts';
import { JobQueue } from './jobs/queue.ts';
import { Worker, type WorkerOptions } from './jobs/worker.ts';
import { ensureRootUser } from './modules/users/bootstrap.ts';
import { loadSecrets, type Secrets } from './secrets.ts';
import { createThrottler } from './auth/throttle.ts';
import { ViewerCache } from './auth/viewer-cache.ts';

export type Runtime = {
  deps: AppDeps;
  database: DatabaseHandle;
  /** Starts a worker in this process (options default to the JOB_* configuration). */
  startWorker: (options?: Partial<WorkerOptions>) => Promise<Worker>;
  /** Stops this process's workers (finishing or handing back their jobs), then every connection. */
  close: () => Promise<void>;
};

export type RuntimeOptions = {
  queryCounter?: QueryCounter;
  databaseUrl?: string;
  /** Queues besides the ones modules declare (tests). */
  jobs?: JobDefinitions[];
  /** Flag definition folders instead of config/feature_flags (tests). */
  flagDefinitionDirs?: string[];
  /** Run the job queue's maintenance (expiring runs of crashed workers, archiving) in this process. */
  jobMaintenance?: boolean;
  /** The embedded database died and could not be restarted: the process should exit non-zero. */
  onDatabaseLost?: (error: Error) => void;
};

/** Config → database (embedded or DATABASE_URL) → pending migrations → deps → root user. */
export async function startRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = pino({
    level: config.logLevel,
    redact: ['req.headers["private-token"]', 'req.headers.authorization', 'req.headers["job-token"]'],
  });
  // Definitions first: a broken definition file stops the start before anything connects.
  const flagDefinitions = loadFlagDefinitions(opts.flagDefinitionDirs);
  const secrets = loadSecrets(config);
  // The areas (kernel.ts and all of src/modules) take about a second to load: they load while
  // PostgreSQL starts in its own process, and initdb runs on a first start, not before (issue #12).
  // Pending migrations are checked (and applied) as soon as the database answers, while they still load.
  const opening = connect(config, opts, log, secrets);
  const migrating = opening.then((database) => applyMigrations(database.url));
  const [opened, migrated, kernel] = await Promise.allSettled([opening, migrating, import('./kernel.ts')]);
  if (opened.status === 'rejected') throw opened.reason;
  const database = opened.value;
  try {
    if (migrated.status === 'rejected') throw migrated.reason;
    if (kernel.status === 'rejected') throw kernel.reason;
    if (migrated.value.length) log.info({ applied: migrated.value }, 'applied migrations');
    return await assemble(config, opts, log, secrets, database, flagDefinitions, kernel.value);
  } catch (error) {
    // A failed start must not leave the embedded server running behind it.
    await database.stop();
    throw error;
  }
}

/** The database of DATABASE_URL (or the test's), else the embedded server, started. */
async function connect(config: Config, opts: RuntimeOptions, log: pino.Logger, secrets: Secrets): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, embedded: false, stop: async () => {} };
  return openDatabase(config, secrets, {
    onNotice: (m) => log.warn(m),
    onRestart: (info) => log.error(info, 'embedded PostgreSQL exited; restarting it'),
    onRestarted: () => log.warn('embedded PostgreSQL restarted'),
    onLost: (error) => {
      log.fatal({ err: error }, 'embedded PostgreSQL is gone');
      opts.onDatabaseLost?.(error);
    },
  });
}

async function assemble(
  config: Config,
  opts: RuntimeOptions,
  log: pino.Logger,
  secrets: Secrets,
  database: DatabaseHandle,
  flagDefinitions: ReturnType<typeof loadFlagDefinitions>,
  { jobDefinitions, loaderFactories, subscribers }: typeof import('./kernel.ts'),
): Promise<Runtime> {
  const { db, pool } = createDb(database.url, {
    counter: opts.queryCounter,
    timeouts: config.database,
    onIdleError: (error) => log.warn({ err: error }, 'idle database connection lost'),
  });
  const git = new GitStore(path.join(config.dataDir, 'repositories'), config.archives);
  const leftovers = await git.removeLeftoverTemporaryFiles();
  if (leftovers) log.warn({ files: leftovers }, 'removed fast-import crash reports left by a crash');
  const notifications = await Notifications.connect(database.url, log);
  const flags = new FlagStore(db, flagDefinitions, notifications);
  await flags.listen();
  const viewers = new ViewerCache(notifications, config.authCacheMs);
  await viewers.listen();
  const jobs = await JobQueue.start({ url: database.url, db, notifications, log, maintenance: opts.jobMaintenance ?? config.jobs.workersInServer });
  for (const definitions of [...jobDefinitions, ...(opts.jobs ?? [])]) await jobs.register(definitions);
  const events = new EventBus(subscribers);
  const deps: AppDeps = {
    config,
    secrets,
    db,
    git,
    log,
    events,
    loaderFactories,
    flags,
    jobs,
    mail: new Mailer(db, config.mail),
    notifications,
    throttle: await createThrottler(config, database.url),
    viewers,
    queryCounter: opts.queryCounter,
  };
  events.bind(deps);
  jobs.attach(deps);
  await ensureRootUser(deps);

  const workers: Worker[] = [];
  const { concurrency, queues, tag, labels, pollIntervalMs, heartbeatMs } = config.jobs;
  return {
    deps,
    database,
    startWorker: async (options = {}) => {
      const worker = new Worker(jobs, db, { concurrency, queues, tag, labels, pollIntervalMs, heartbeatMs, ...options });
      await worker.start();
      workers.push(worker);
      return worker;
    },
    close: async () => {
      for (const worker of workers.splice(0)) {
        const { handedBack } = await worker.stop(config.jobs.shutdownTimeoutMs);
        if (handedBack) log.warn({ handedBack }, 'jobs still running at shutdown were handed back to the queue');
      }
      await jobs.stop();
      deps.mail.close();
      await notifications.close();
      await deps.throttle.close();
      await db.$disconnect();
      if (!pool.ended) await pool.end();
      await database.stop();
    },
  };
}
