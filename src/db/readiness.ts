import fs from 'node:fs';
import type { GitStore } from '../git/store.ts';
import type { Db } from './client.ts';
import { migrationsDir } from './migrate.ts';

/** Resolves when the database answers a statement. */
export async function databaseAnswers(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}

/** Migrations in prisma/migrations that the database has not finished applying. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const expected = fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const applied = await db.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const done = new Set(applied.map((r) => r.migration_name));
  return expected.filter((name) => !done.has(name));
}

/** Projects of each kind the storage check looks at: this many of the newest, this many spread over all ids. */
const SAMPLE = 5;

/**
 * Projects whose repositories the storage should hold: the newest (another host's DATA_DIR shows
 * there first) and a few spread evenly over the ids, the same ones from one probe to the next so
 * the answer does not flap. Each is an index lookup. Projects younger than a minute are left out:
 * a project's row is written just before its repository.
 */
async function sampledProjectIds(db: Db): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    (SELECT id FROM projects WHERE created_at < (now() AT TIME ZONE 'UTC') - interval '1 minute' ORDER BY id DESC LIMIT ${SAMPLE})
    UNION
    (SELECT spread.id FROM (SELECT min(id) AS lo, max(id) AS hi FROM projects) AS bounds, generate_series(0, ${SAMPLE - 1}) AS step,
      LATERAL (SELECT id FROM projects WHERE id >= bounds.lo + (bounds.hi - bounds.lo) * step / ${SAMPLE - 1}
               AND created_at < (now() AT TIME ZONE 'UTC') - interval '1 minute' ORDER BY id LIMIT 1) AS spread)`;
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export type StorageSample = { sampled: number[]; missing: number[] };

/**
 * Whether the repository storage holds the repositories of a sample of the projects the database
 * lists (a stat or two each): a server whose DATA_DIR is not the one the database was filled with
 * (another host's, an unmounted volume) is found here instead of by every repository call. A
 * project deleted meanwhile (its row goes before its repository) is not counted as missing.
 */
export async function sampleRepositoryStorage(db: Db, git: GitStore): Promise<StorageSample> {
  const sampled = await sampledProjectIds(db);
  const held = await Promise.all(sampled.map((id) => git.holds(id)));
  const absent = sampled.filter((_id, i) => !held[i]);
  if (!absent.length) return { sampled, missing: [] };
  const listed = await db.$queryRaw<{ id: number }[]>`SELECT id FROM projects WHERE id = ANY(${absent})`;
  return { sampled, missing: listed.map((r) => r.id).sort((a, b) => a - b) };
}

/** What is wrong with the storage, for the readiness answer (no paths: the probe is public). */
export const describeMissing = ({ sampled, missing }: StorageSample) =>
  `the repository storage does not hold ${missing.length} of ${sampled.length} sampled repositories the database lists (projects ${missing.join(', ')}): DATA_DIR is not the one this database belongs to, or is incomplete`;
