import pino from 'pino';
import type { Config } from './config.ts';
import type { QueryCounter } from './db/client.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import type { AppDeps } from './deps.ts';
import { loadFlagDefinitions } from './flags/definitions.ts';
import type { JobDefinitions } from './jobs/definitions.ts';
import type { Worker, WorkerOptions } from './jobs/worker.ts';
import { loadSecrets, type Secrets } from './secrets.ts';

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
  const migrating = opening.then(async (database) => (await import('./db/migrate.ts')).applyMigrations(database.url));
  // The application's own pieces (Prisma's client, the job queue, git) load here too rather than
  // with this module: `npm start` imports it first, and the database starts no later than they.
  const [opened, migrated, kernel, assembly] = await Promise.allSettled([opening, migrating, import('./kernel.ts'), import('./assemble.ts')]);
  if (opened.status === 'rejected') throw opened.reason;
  const database = opened.value;
  try {
    if (migrated.status === 'rejected') throw migrated.reason;
    if (kernel.status === 'rejected') throw kernel.reason;
    if (assembly.status === 'rejected') throw assembly.reason;
    if (migrated.value.length) log.info({ applied: migrated.value }, 'applied migrations');
    return await assembly.value.assemble(config, opts, log, secrets, database, flagDefinitions, kernel.value);
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
