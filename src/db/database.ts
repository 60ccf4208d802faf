import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Secrets } from '../secrets.ts';
import { pgConfigFromUrl } from './adapter-fixes.ts';
import { startEmbeddedPostgres } from './embedded.ts';

export type DatabaseHandle = { url: string; embedded: boolean; stop: () => Promise<void> };

export const EMBEDDED_DATABASE = 'forgegate';

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

/** DATABASE_URL when given, otherwise an embedded PostgreSQL under DATA_DIR/postgres. */
export async function openDatabase(
  config: Config,
  secrets: Secrets,
  report: { onError?: (e: unknown) => void; onNotice?: (message: string) => void } = {},
): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const server = await startEmbeddedPostgres({
    dir: path.join(config.dataDir, 'postgres'),
    password: secrets.embeddedPgPassword,
    ...report,
  });
  const url = server.url(EMBEDDED_DATABASE);
  await ensureDatabaseExists(url);
  return { url, embedded: true, stop: server.stop };
}
