import fs from 'node:fs';
import type { Db } from './client.ts';
import { migrationsDir } from './migrate.ts';

/** Migrations in prisma/migrations that the database has not finished applying. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const expected = fs.readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const applied = await db.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const done = new Set(applied.map((r) => r.migration_name));
  return expected.filter((name) => !done.has(name));
}
