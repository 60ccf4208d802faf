import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Secrets } from '../secrets.ts';
import { pgConfigFromUrl } from './adapter-fixes.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded.ts';

export type DatabaseHandle = { url: string; embedded: boolean; stop: () => Promise<void> };

export const EMBEDDED_DATABASE = 'forgegate';

/** Uptime after which a restarted embedded server counts as healthy again (its retry budget refills). */
const HEALTHY_AFTER_MS = 60_000;

export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = pgConfigFromUrl(url);
  const admin = new pg.Client({ ...target, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [target.database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${target.database.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

export type DatabaseReport = {
  onNotice?: (message: string) => void;
  /** The embedded server died; `attempt` of `max` restarts follows. */
  onRestart?: (info: { attempt: number; max: number; exit: string }) => void;
  onRestarted?: () => void;
  /** The embedded server died and could not be brought back: the process should exit non-zero. */
  onLost?: (error: Error) => void;
};

/**
 * Keeps the embedded server running: when the postmaster exits unexpectedly it is started again on
 * the same port (so the pool's URL stays valid), at most `maxRestarts` times in a row with a
 * growing pause; past that, `onLost` tells the process to exit so a supervisor restarts it whole.
 */
function supervise(first: EmbeddedServer, start: (port: number) => Promise<EmbeddedServer>, maxRestarts: number, report: DatabaseReport) {
  let current = first;
  let stopping = false;
  let failures = 0;
  let healthyTimer: NodeJS.Timeout | undefined;

  const watch = (server: EmbeddedServer) => {
    void server.exited.then(async ({ code, signal }) => {
      if (stopping) return;
      clearTimeout(healthyTimer);
      const exit = signal ?? `exit ${code}`;
      while (!stopping) {
        if (failures >= maxRestarts) {
          report.onLost?.(new Error(`embedded PostgreSQL exited (${exit}) and ${maxRestarts} restarts did not bring it back`));
          return;
        }
        failures += 1;
        report.onRestart?.({ attempt: failures, max: maxRestarts, exit });
        // Backends of the dead postmaster may still hold its shared memory for a moment.
        await new Promise((resolve) => setTimeout(resolve, 250 * failures));
        try {
          current = await start(server.port);
          report.onRestarted?.();
          healthyTimer = setTimeout(() => (failures = 0), HEALTHY_AFTER_MS).unref();
          watch(current);
          return;
        } catch (error) {
          report.onNotice?.(`embedded PostgreSQL restart failed: ${(error as Error).message}`);
        }
      }
    });
  };
  watch(first);
  return async () => {
    stopping = true;
    clearTimeout(healthyTimer);
    await current.stop();
  };
}

/** DATABASE_URL when given, otherwise an embedded PostgreSQL under DATA_DIR/postgres. */
export async function openDatabase(config: Config, secrets: Secrets, report: DatabaseReport = {}): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const start = (port?: number) =>
    startEmbeddedPostgres({ dir: path.join(config.dataDir, 'postgres'), password: secrets.embeddedPgPassword, port, onNotice: report.onNotice });
  const server = await start();
  const url = server.url(EMBEDDED_DATABASE);
  await ensureDatabaseExists(url);
  const stop = supervise(server, start, config.embeddedPgMaxRestarts, report);
  return { url, embedded: true, stop };
}
