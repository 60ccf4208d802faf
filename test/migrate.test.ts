import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { applyMigrations, applyWithEngine, MissingExtensionError, migrationState } from '../src/db/migrate.ts';
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

const stateOf = (url: string) => withClient(url, migrationState);

/** Tables, columns, constraints, indexes and enums of the public schema, in a stable order. */
async function schemaOf(url: string) {
  return withClient(url, async (c) => {
    const read = async (sql: string) => (await c.query(sql)).rows;
    return {
      columns: await read(`SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length
        FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`),
      constraints: await read(`SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`),
      indexes: await read(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`),
      enums: await read(`SELECT t.typname, e.enumlabel, e.enumsortorder FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid ORDER BY 1, 3`),
    };
  });
}

/** What the engine and forgegate record per migration (ids and times differ by nature). */
const history = (url: string) =>
  withClient(
    url,
    async (c) =>
      (
        await c.query(
          'SELECT migration_name, checksum, applied_steps_count, logs, rolled_back_at, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name',
        )
      ).rows,
  );

/** Transactions that wrote the history: the engine applies each folder in its own. */
const writingTransactions = (url: string) =>
  withClient(url, async (c) => (await c.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM _prisma_migrations')).rows[0].n);

describe('migrations at start', () => {
  // One query answers a start with nothing to apply; the wasm engine loads only when there is work.
  it('are current exactly when every migration folder is applied and none failed', async () => {
    const url = await createTestDatabase();
    expect(await stateOf(url)).toBe('current');
    await withClient(url, (c) =>
      c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('failed', 'x', '29990101000000_half_done', now())"),
    );
    expect(await stateOf(url)).toBe('other');
    await withClient(url, (c) => c.query("UPDATE _prisma_migrations SET finished_at = now() WHERE id = 'failed'"));
    // Applied here but not a folder in this checkout (a newer version ran on this database).
    expect(await stateOf(url)).toBe('other');
    await withClient(url, (c) => c.query("DELETE FROM _prisma_migrations WHERE id = 'failed'"));
    expect(await stateOf(url)).toBe('current');
    const newest = await withClient(url, (c) =>
      c.query(
        'UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations) RETURNING migration_name',
      ),
    );
    expect(newest.rowCount).toBe(1);
    expect(await stateOf(url)).toBe('other');
  });

  it('apply to a new database in one transaction the schema and the history the engine would write', async () => {
    const [ours, engines] = [await createTestDatabase({ empty: true }), await createTestDatabase({ empty: true })];
    expect(await stateOf(ours)).toBe('new');
    const applied = await applyMigrations(ours);
    expect(await applyWithEngine(engines)).toEqual(applied);
    expect(applied.length).toBeGreaterThan(10);
    expect(await stateOf(ours)).toBe('current');

    expect(await schemaOf(ours)).toEqual(await schemaOf(engines));
    expect((await schemaOf(ours)).columns.length).toBeGreaterThan(100);
    expect(await history(ours)).toEqual(await history(engines));
    // Ours in one transaction; the engine's folder by folder (the control: the query tells them apart).
    expect(await writingTransactions(ours)).toBe(1);
    expect(await writingTransactions(engines)).toBe(applied.length);
    // The engine takes the history as its own: nothing to apply, no checksum mismatch.
    await expect(applyWithEngine(ours)).resolves.toEqual([]);
  });

  it('migrate a new database once when several processes start on it together', async () => {
    const url = await createTestDatabase({ empty: true });
    const results = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
    const all = results.flat();
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all).size).toBe(all.length);
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await stateOf(url)).toBe('current');
  });

  it('go through the engine otherwise: a foreign schema is refused, a failed migration stops the start', async () => {
    const foreign = await createTestDatabase({ empty: true });
    await withClient(foreign, (c) => c.query('CREATE TABLE someone_elses (id int)'));
    expect(await stateOf(foreign)).toBe('other');
    await expect(applyMigrations(foreign)).rejects.toThrow(/P3005|not empty/);
    expect(await withClient(foreign, async (c) => (await c.query("SELECT to_regclass('_prisma_migrations') AS t")).rows[0].t)).toBeNull();

    const url = await createTestDatabase();
    await withClient(url, (c) =>
      c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('failed', 'x', '29990101000000_half_done', now())"),
    );
    await expect(applyMigrations(url)).rejects.toThrow(/failed migrations|P3009|29990101000000_half_done/);
  });

  // pg_trgm (search) comes with the migrations; a role that may not create it is told so at start.
  it('stop with a clear message when the role may not create pg_trgm, before any migration runs', async () => {
    const url = await createTestDatabase({ empty: true });
    const role = `fg_no_create_${randomBytes(4).toString('hex')}`;
    // With a password: the embedded server authenticates by password (a trusting server ignores it).
    const password = randomBytes(8).toString('hex');
    await withClient(url, (c) => c.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`));
    try {
      const asRole = new URL(url);
      asRole.username = role;
      asRole.password = password;
      const failure = await applyMigrations(asRole.toString()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MissingExtensionError);
      expect((failure as Error).message).toMatch(new RegExp(`extension pg_trgm is not installed in database "[^"]+" and role "${role}" may not create it`));
      expect((failure as Error).message).toContain('CREATE EXTENSION pg_trgm;');
      // Nothing was applied: the probe's transaction was rolled back.
      expect(await stateOf(url)).toBe('new');
      // The database's owner may: the same start then succeeds.
      expect((await applyMigrations(url)).length).toBeGreaterThan(0);
      expect((await withClient(url, (c) => c.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'"))).rowCount).toBe(1);
    } finally {
      await withClient(url, (c) => c.query(`DROP ROLE ${role}`));
    }
  });
});
