// npx forgegate <command>: administrator jobs on the configured database.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { createDb, type Db } from './db/client.ts';
import { issueJobToken } from './auth/job-tokens.ts';
import { TOKEN_SCOPES, type Scope } from './auth/scopes.ts';
import { issueToken } from './auth/tokens.ts';
import { JobQueue } from './jobs/queue.ts';
import { loadSecrets } from './secrets.ts';
import { startRuntime } from './server.ts';
import { createUserRecord } from './modules/users/service.ts';

const USAGE = `usage: forgegate <command> [options]
  migrate                                   apply pending migrations (and the job queue's tables and queues)
  worker                                    run background jobs until SIGTERM/SIGINT (JOB_* settings;
                                            several worker processes may share one database)
  create-user --username U --name N --email E [--password P] [--admin]
  create-token --username U --name N [--scopes api,read_api] [--expires-at YYYY-MM-DD]
                                            prints the new token once
  create-job-token --username U --project group/project [--minutes 60]
                                            prints a CI job token bound to the project, once`;

async function createJobTokenFor(db: Db, digestKey: string, userId: number, fullPath?: string, minutes?: string) {
  const slash = fullPath?.lastIndexOf('/') ?? -1;
  if (!fullPath || slash < 1) throw new Error('--project group/project is required');
  const project = await db.project.findFirst({ where: { path: fullPath.slice(slash + 1), namespace: { fullPath: fullPath.slice(0, slash) } } });
  if (!project) throw new Error(`no project ${fullPath}`);
  if (minutes !== undefined && !/^\d{1,4}$/.test(minutes)) throw new Error('--minutes must be a number');
  const { token } = await issueJobToken(db, digestKey, { projectId: project.id, userId, minutes: minutes === undefined ? undefined : Number(minutes) });
  return token;
}

/**
 * A process that only runs jobs: the same runtime as the server (database, flags, queues) with a
 * worker and no HTTP listener. It registers itself in process metrics and, on SIGTERM/SIGINT,
 * finishes or hands back its running jobs before it exits.
 */
async function runWorker(config: Config): Promise<number> {
  // What jobs write (exports, archives, repositories) is for the server's user only, as in the
  // server process (src/main.ts), whatever umask the worker was started with.
  process.umask(0o077);
  // Listen first: a signal that arrives while starting must still stop the worker cleanly.
  const stopSignal = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const runtime = await startRuntime(config, { jobMaintenance: true });
  const { log } = runtime.deps;
  const worker = await runtime.startWorker();
  log.info({ worker: worker.id, queues: worker.queues, concurrency: worker.options.concurrency, pid: process.pid }, 'forgegate worker started');
  const signal = await stopSignal;
  log.info({ signal }, 'worker stopping');
  await runtime.close();
  log.info('worker stopped');
  return 0;
}

type Io = {
  /** The environment the configuration is read from. */
  env?: NodeJS.ProcessEnv;
  /** Where results (a token, "created user …") are written: stdout by default. */
  print?: (line: string) => void;
};

/** Runs one command and returns its exit status; throws on failure (`runCli` prints it). */
export async function main(argv: string[], { env = process.env, print = console.log }: Io = {}): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      project: { type: 'string' },
      minutes: { type: 'string' },
    },
  });
  if (!command || !['migrate', 'worker', 'create-user', 'create-token', 'create-job-token'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig(env);
  if (command === 'worker') return runWorker(config);
  const secrets = loadSecrets(config);
  const database = await openDatabase(config, secrets);
  try {
    const applied = await applyMigrations(database.url);
    if (command === 'migrate') {
      // The areas load only here: the other commands need none of them.
      const { jobDefinitions } = await import('./kernel.ts');
      await JobQueue.install(database.url, jobDefinitions);
      print(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    const { db, pool } = createDb(database.url, { timeouts: config.database });
    try {
      if (command === 'create-user') {
        if (!values.username || !values.name || !values.email) throw new Error('--username, --name and --email are required');
        const user = await createUserRecord(db, {
          username: values.username,
          name: values.name,
          email: values.email,
          password: values.password,
          admin: values.admin,
        });
        print(`created user ${user.username} (id ${user.id})`);
        return 0;
      }
      const user = await db.user.findUnique({ where: { username: values.username ?? '' } });
      if (!user) throw new Error(`no user ${values.username}`);
      if (command === 'create-job-token') {
        print(await createJobTokenFor(db, secrets.tokenDigestKey, user.id, values.project, values.minutes));
        return 0;
      }
      const scopes = (values.scopes ?? 'api').split(',').map((s) => s.trim());
      const unknown = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw new Error(`unknown scopes: ${unknown.join(', ')}`);
      const expiresAt = values['expires-at'] ? new Date(`${values['expires-at']}T00:00:00Z`) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new Error('--expires-at must be YYYY-MM-DD');
      const { token } = await issueToken(db, secrets.tokenDigestKey, { userId: user.id, name: values.name ?? 'cli', scopes: scopes as Scope[], expiresAt });
      print(token);
      return 0;
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  } finally {
    await database.stop();
  }
}

/** `main` for a process: failures are printed to stderr as one line and give status 1. */
export async function runCli(argv: string[], io: Io = {}): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`);
    return 1;
  }
}
