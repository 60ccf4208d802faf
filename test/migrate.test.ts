import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { applyMigrations, migrationsUpToDate } from '../src/db/migrate.ts';
import { createTestDatabase } from './helpers/app.ts';

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgConfigFromUrl(url));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('migrations at start', () => {
  // One query answers a start with nothing to apply; the wasm engine loads only when there is work.
  it('are up to date exactly when every migration folder is applied and none failed', async () => {
    const url = await createTestDatabase();
    expect(await migrationsUpToDate(url)).toBe(true);
    await withClient(url, (c) => c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('failed', 'x', '29990101000000_half_done', now())"));
    expect(await migrationsUpToDate(url)).toBe(false);
    await withClient(url, (c) => c.query("UPDATE _prisma_migrations SET finished_at = now() WHERE id = 'failed'"));
    // Applied here but not a folder in this checkout (a newer version ran on this database).
    expect(await migrationsUpToDate(url)).toBe(false);
    await withClient(url, (c) => c.query("DELETE FROM _prisma_migrations WHERE id = 'failed'"));
    expect(await migrationsUpToDate(url)).toBe(true);
    const newest = await withClient(url, (c) => c.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations) RETURNING migration_name"));
    expect(newest.rowCount).toBe(1);
    expect(await migrationsUpToDate(url)).toBe(false);
  });

  it('go through the engine otherwise: a new database is migrated, a failed migration stops the start', async () => {
    const url = await createTestDatabase({ empty: true });
    expect(await migrationsUpToDate(url)).toBe(false);
    expect((await applyMigrations(url)).length).toBeGreaterThan(0);
    expect(await migrationsUpToDate(url)).toBe(true);
    await withClient(url, (c) => c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('failed', 'x', '29990101000000_half_done', now())"));
    await expect(applyMigrations(url)).rejects.toThrow(/failed migrations|P3009|29990101000000_half_done/);
  });
});
