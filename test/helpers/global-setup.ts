import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../scripts/build.mjs';

/**
 * The application's modules, loaded once dist/ is current: the suite runs the compiled modules
 * (see vitest.config.ts), so importing them before the build would load a stale or missing copy.
 */
async function application() {
  const [{ loadConfig }, { pgConfigFromUrl }, { ensureDatabaseExists }, { startEmbeddedPostgres }, { applyMigrations }, { JobQueue }] = await Promise.all([
    import('../../src/config.ts'),
    import('../../src/db/adapter-fixes.ts'),
    import('../../src/db/database.ts'),
    import('../../src/db/embedded.ts'),
    import('../../src/db/migrate.ts'),
    import('../../src/jobs/queue.ts'),
  ]);
  // The areas' job queues go into the template; loading every area takes most of a second of
  // CPU, which overlaps PostgreSQL's start when it begins here.
  const jobDefinitions = import('../../src/kernel.ts').then((kernel) => kernel.jobDefinitions);
  return { loadConfig, pgConfigFromUrl, ensureDatabaseExists, startEmbeddedPostgres, applyMigrations, JobQueue, jobDefinitions };
}

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDatabase: string;
    /** How CREATE DATABASE copies the template: see `cloneStrategy` below. */
    cloneStrategy: 'FILE_COPY' | 'WAL_LOG';
  }
}

const withDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

/**
 * One PostgreSQL for the run (TEST_DATABASE_URL's server, or an embedded one), one migrated
 * template database; each test file then clones the template, which takes milliseconds.
 */
export default async function setup(project: TestProject) {
  // Tests that start processes run dist/, as `npm start` does: a change to src/ must be in it.
  await ensureBuilt();
  const { loadConfig, pgConfigFromUrl, ensureDatabaseExists, startEmbeddedPostgres, applyMigrations, JobQueue, jobDefinitions } = await application();
  const config = loadConfig();
  let serverUrl: string;
  let stopServer = async () => {};
  let dataDir: string | undefined;
  if (config.testDatabaseUrl) {
    serverUrl = withDatabase(config.testDatabaseUrl, 'postgres');
  } else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-test-pg-'));
    // A throwaway server: nothing in it needs to survive a crash, so it neither flushes nor logs
    // whole pages (tests that kill a database start their own: test/faults/). Its databases live
    // for one test file, too short for autovacuum to matter, and each one it visits is a process.
    const server = await startEmbeddedPostgres({
      dir: dataDir,
      password: 'forgegate-test',
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', wal_level: 'minimal', max_wal_senders: '0', autovacuum: 'off' },
    });
    serverUrl = server.url('postgres');
    stopServer = server.stop;
    await cheapLogins(pgConfigFromUrl(serverUrl), 'forgegate-test');
  }
  const template = `fg_template_${process.pid}`;
  const templateUrl = withDatabase(serverUrl, template);
  await ensureDatabaseExists(templateUrl);
  await applyMigrations(templateUrl);
  // The job queue's tables and the areas' queues too, as `forgegate migrate` installs them: a test
  // app's start then only reads them, where creating the five queues' partitions cost each start
  // ~35 ms of PostgreSQL's CPU and ~15 ms of the worker's.
  await JobQueue.install(templateUrl, await jobDefinitions);
  const admin = new pg.Client(pgConfigFromUrl(serverUrl));
  await admin.connect();
  // A template cannot be cloned while anything is connected to it.
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [template]);
  project.provide('serverUrl', serverUrl);
  project.provide('templateDatabase', template);
  project.provide('cloneStrategy', cloneStrategy(Boolean(dataDir)));

  return async () => {
    // The embedded server goes away with its data directory; an external one keeps only what it had.
    if (!dataDir) await dropTestDatabases(admin, template);
    await admin.end();
    await stopServer();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

/**
 * The default (WAL_LOG) copies the template block by block through the WAL: 77 ms of CPU per clone
 * on the development machine. FILE_COPY copies the files after a checkpoint: 20 ms where nothing is
 * flushed (the embedded server above), but 112 ms on a server that fsyncs (the PostgreSQL service).
 */
function cloneStrategy(embedded: boolean): 'FILE_COPY' | 'WAL_LOG' {
  return embedded ? 'FILE_COPY' : 'WAL_LOG';
}

/**
 * The suite opens about 500 connections. SCRAM's 4096 iterations (they slow down guessing the
 * password from a stolen verifier, which a throwaway server does not have) cost 8.3 ms of the
 * server's CPU and 1.8 ms of the client's per login; stored with one iteration, 4.9 and 1.3 ms.
 */
async function cheapLogins(config: pg.ClientConfig, password: string) {
  const client = new pg.Client(config);
  await client.connect();
  await client.query('SET scram_iterations = 1');
  await client.query(`ALTER ROLE CURRENT_USER PASSWORD '${password}'`);
  await client.end();
}

async function dropTestDatabases(admin: pg.Client, template: string) {
  const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2', [
    template,
    `fg_test_${process.pid}_%`,
  ]);
  for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}
