import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { startHttpServer, type HttpServer } from './http-server.ts';
import { startRuntime, type Runtime } from './server.ts';

const started = performance.now();
// Everything the server writes (repositories, archives, secrets) is for its own user only.
process.umask(0o077);
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

let runtime: Runtime | undefined;
let http: HttpServer | undefined;
let stopping: { reason: string; code: number } | undefined;

/**
 * Drains requests in flight (up to SHUTDOWN_GRACE_MS), then stops the database. A signal that
 * arrives while starting is kept and honoured as soon as the start is over, so the embedded
 * database is never left behind.
 */
async function stop(reason: string, code: number) {
  if (stopping) return;
  stopping = { reason, code };
  if (!runtime) return;
  const { log } = runtime.deps;
  log.info({ reason }, 'shutting down');
  try {
    await http?.drain(config.shutdownGraceMs);
    // Workers get JOB_SHUTDOWN_TIMEOUT_SECONDS to finish; what still runs is handed back to the queue.
    await runtime.close();
    log.info('stopped');
  } catch (error) {
    log.error({ err: error }, 'shutdown failed');
    code ||= 1;
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop('SIGINT', 0));
process.on('SIGTERM', () => void stop('SIGTERM', 0));

// The HTTP side (Express, Yoga, the REST routes) loads while startRuntime starts the database.
const application = import('./app.ts');
try {
  // A lost embedded database that cannot be restarted ends the process non-zero, so a supervisor
  // (systemd, Docker, Kubernetes) starts the whole service again.
  runtime = await startRuntime(config, { onDatabaseLost: () => void stop('database lost', 1) });
} catch (error) {
  // PostgreSQL's own message is part of the error: print it whole.
  console.error(`forgegate could not start: ${(error as Error).message}`);
  process.exit(1);
}
if (stopping) {
  const { reason, code } = stopping;
  stopping = undefined;
  await stop(reason, code);
}
const { log } = runtime.deps;
const { buildApp } = await application;
if (config.jobs.workersInServer) await runtime.startWorker();
http = startHttpServer(buildApp(runtime.deps), config, log, () => {
  // The bound port, not the configured one: PORT=0 asks the system for a free port.
  const { port } = http!.server.address() as AddressInfo;
  log.info(
    {
      url: `http://${config.host}:${port}`,
      externalUrl: config.externalUrl,
      embeddedDatabase: runtime!.database.embedded,
      startupMs: Math.round(performance.now() - started),
    },
    'forgegate is listening',
  );
});
// A git push or an LFS upload streams its body for as long as the client needs; Node's default
// (300 s for a whole request) would cut big pushes. Headers must still arrive within headersTimeout.
http.server.requestTimeout = 60 * 60 * 1000;
http.server.on('error', (error) => {
  log.fatal({ err: error }, 'cannot listen');
  void stop('listen error', 1);
});
