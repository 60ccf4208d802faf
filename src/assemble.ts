import path from 'node:path';
import type pino from 'pino';
import type { Config } from './config.ts';
import { createDb } from './db/client.ts';
import { sampleRepositoryStorage } from './db/readiness.ts';
import { SqlReader } from './db/rows.ts';
import type { DatabaseHandle } from './db/database.ts';
import { Notifications } from './db/notifications.ts';
import type { AppDeps } from './deps.ts';
import { EventBus } from './core/events.ts';
import { Mailer } from './mail/mailer.ts';
import type { loadFlagDefinitions } from './flags/definitions.ts';
import { FlagStore } from './flags/store.ts';
import { GitStore } from './git/store.ts';
import type { JobDefinitions } from './jobs/definitions.ts';
import { JobQueue } from './jobs/queue.ts';
import { Worker } from './jobs/worker.ts';
import { ensureRootUser } from './modules/users/bootstrap.ts';
import type { Secrets } from './secrets.ts';
import { createThrottler } from './auth/throttle.ts';
import { ViewerCache } from './auth/viewer-cache.ts';
import type { Runtime, RuntimeOptions } from './server.ts';

/** The change feeds every process listens to, and the job queue with every area's queues. */
async function listeners(
  config: Config,
  opts: RuntimeOptions,
  log: pino.Logger,
  url: string,
  db: AppDeps['db'],
  flagDefinitions: ReturnType<typeof loadFlagDefinitions>,
  jobDefinitions: JobDefinitions[],
) {
  const notifications = await Notifications.connect(url, log);
  const flags = new FlagStore(db, flagDefinitions, notifications);
  const viewers = new ViewerCache(notifications, config.authCacheMs);
  await Promise.all([flags.listen(), viewers.listen()]);
  const jobs = await JobQueue.start({ url, db, notifications, log, maintenance: opts.jobMaintenance ?? config.jobs.workersInServer });
  for (const definitions of [...jobDefinitions, ...(opts.jobs ?? [])]) await jobs.register(definitions);
  return { notifications, flags, viewers, jobs };
}

/**
 * Says at start, once, when DATA_DIR does not hold repositories the database lists (another host's
 * data directory, a volume that is not mounted): every call on those repositories fails until it
 * is fixed, and readiness reports it too. The start goes on: the server still answers the rest.
 */
async function checkRepositoryStorage(config: Config, db: AppDeps['db'], git: GitStore, log: pino.Logger) {
  const sample = await sampleRepositoryStorage(db, git);
  if (!sample.missing.length) return;
  const example = git.pathFor(sample.missing[0]);
  log.error(
    { dataDir: config.dataDir, repositories: git.root, sampled: sample.sampled, missing: sample.missing, example },
    `DATA_DIR ${config.dataDir} does not hold repositories the database lists: ${sample.missing.length} of ${sample.sampled.length} sampled are missing, e.g. project ${sample.missing[0]} at ${example}`,
  );
}

/** A migrated database → the process's deps (connections, listeners, job queue, root user) and its lifecycle. */
export async function assemble(
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
  const git = new GitStore(path.join(config.dataDir, 'repositories'), config.archives, config.blobReads);
  const leftovers = await git.removeLeftoverTemporaryFiles();
  if (leftovers) log.warn({ files: leftovers }, 'removed fast-import crash reports left by a crash');
  // Independent round trips, together: the root user's query is Prisma's first, which loads its
  // query compiler (~0.1 s), while the listeners open their connection and the throttle its own.
  const [{ notifications, flags, viewers, jobs }, throttle] = await Promise.all([
    listeners(config, opts, log, database.url, db, flagDefinitions, jobDefinitions),
    createThrottler(config, database.url),
    ensureRootUser({ db, config, secrets, log }),
    checkRepositoryStorage(config, db, git, log),
  ]);
  const events = new EventBus(subscribers);
  const deps: AppDeps = {
    config,
    secrets,
    db,
    sql: new SqlReader(pool, config.database.preparedStatements),
    git,
    log,
    events,
    loaderFactories,
    flags,
    jobs,
    mail: new Mailer(db, config.mail),
    notifications,
    throttle,
    viewers,
    queryCounter: opts.queryCounter,
  };
  events.bind(deps);
  jobs.attach(deps);

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
