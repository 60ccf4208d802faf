// Prisma migrations through @prisma/schema-engine-wasm: the CLI needs a native engine binary
// that cannot be downloaded on these machines. Same folder layout as `prisma migrate`.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { MigratingPrismaPg, pgConfigFromUrl } from './adapter-fixes.ts';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The Prisma schema, one file per area. */
export const schemaDir = path.join(root, 'prisma/schema');
export const migrationsDir = path.join(root, 'prisma/migrations');
const filters = { externalTables: [], externalEnums: [] };

let wasmReady = false;
function initWasm() {
  if (wasmReady) return;
  const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
  const imports: Record<string, unknown> = { ...bg };
  // The engine arms a ~10 s timer; unref it so a migrating process can exit right away.
  for (const [name, fn] of Object.entries(bg)) {
    if (!name.startsWith('__wbg_setTimeout_')) continue;
    imports[name] = (...args: unknown[]) => {
      const timer = (fn as (...a: unknown[]) => NodeJS.Timeout)(...args);
      timer?.unref?.();
      return timer;
    };
  }
  const module = new WebAssembly.Module(fs.readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': imports as WebAssembly.ModuleImports });
  (bg as unknown as { __wbg_set_wasm(x: unknown): void }).__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  wasmReady = true;
}

/** The migration folders, oldest first. */
function migrationNames(): string[] {
  return fs.existsSync(migrationsDir)
    ? fs
        .readdirSync(migrationsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
}

function migrationsList() {
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  const names = migrationNames();
  return {
    baseDir: migrationsDir,
    lockfile: { path: lockPath, content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
    shadowDbInitScript: '',
  };
}

async function openEngine(databaseUrl: string) {
  initWasm();
  const files = fs
    .readdirSync(schemaDir)
    .filter((name) => name.endsWith('.prisma'))
    .sort()
    .map((name) => ({ path: name, content: fs.readFileSync(path.join(schemaDir, name), 'utf8') }));
  const adapters = new MigratingPrismaPg(pgConfigFromUrl(databaseUrl));
  const factory = bindMigrationAwareSqlAdapterFactory(adapters);
  const engine = await bg.SchemaEngine.new({ datamodels: files.map((f) => [f.path, f.content]) } as never, () => {}, factory as never);
  const close = async () => {
    engine.free();
    await adapters.disposeAll();
  };
  return { engine, close, schema: { files } };
}

/** Where a database stands against the migration folders. */
export type MigrationState =
  /** Exactly the folders applied, none failed: the engine would do nothing. */
  | 'current'
  /** No migrations table and no table at all: a database created for forgegate (or initdb's). */
  | 'new'
  /** Anything else (pending or failed migrations, a foreign schema): the engine's to handle or report. */
  | 'other';

/**
 * Most starts find the database current, and one query spares them loading the wasm schema
 * engine, which is dear in memory and CPU (bench/RESULTS.md, "Figures behind the code").
 */
export async function migrationState(client: pg.Client): Promise<MigrationState> {
  // Looked up rather than queried and caught: an error would abort the transaction this may run in.
  const {
    rows: [found],
  } = await client.query<{ migrations: boolean; tables: number }>(
    "SELECT to_regclass('_prisma_migrations') IS NOT NULL AS migrations, (SELECT count(*)::int FROM pg_tables WHERE schemaname = current_schema()) AS tables",
  );
  if (!found.migrations) return found.tables === 0 ? 'new' : 'other';
  const { rows } = await client.query<{ migration_name: string; finished: boolean; rolled_back: boolean }>(
    'SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
  );
  if (rows.some((r) => !r.finished && !r.rolled_back)) return 'other';
  const applied = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => r.migration_name));
  const names = migrationNames();
  return applied.size === names.length && names.every((name) => applied.has(name)) ? 'current' : 'other';
}

/** The key of the session advisory lock `prisma migrate` holds while it migrates a database. */
const PRISMA_MIGRATE_LOCK = 72707369;

/** `_prisma_migrations` as Prisma's engine creates it. */
const MIGRATIONS_TABLE = `CREATE TABLE _prisma_migrations (
  id VARCHAR(36) PRIMARY KEY NOT NULL,
  checksum VARCHAR(64) NOT NULL,
  finished_at TIMESTAMPTZ,
  migration_name VARCHAR(255) NOT NULL,
  logs TEXT,
  rolled_back_at TIMESTAMPTZ,
  started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  applied_steps_count INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Every migration applied to a new database in one transaction over a plain connection, and
 * recorded as the engine records them (a row per folder: the SHA-256 of its script, one applied
 * step, no logs), so the engine later finds its own history: a first start (a new DATA_DIR, a new
 * DATABASE_URL) spent ~1 s of a ~3 s start loading the wasm engine and applying folder by folder.
 * Holds the lock `prisma migrate` takes, and looks again under it, so processes starting together
 * on one new database migrate it once. Null when the database turns out not to be new, or a script
 * fails: the transaction leaves nothing behind, and the engine applies (or reports) as before.
 */
async function migrateNewDatabase(client: pg.Client): Promise<string[] | null> {
  await client.query('BEGIN');
  try {
    // Another process migrating holds the lock; the engine itself gives up after 10 s.
    await client.query("SET LOCAL lock_timeout = '10s'");
    await client.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_MIGRATE_LOCK]);
    if ((await migrationState(client)) !== 'new') {
      await client.query('ROLLBACK');
      return null;
    }
    await client.query(MIGRATIONS_TABLE);
    const names = migrationNames();
    for (const name of names) {
      const script = fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'));
      const started = new Date();
      await client.query(script.toString('utf8'));
      await client.query(
        'INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, clock_timestamp(), $3, $4, 1)',
        [randomUUID(), createHash('sha256').update(script).digest('hex'), name, started],
      );
    }
    await client.query('COMMIT');
    return names;
  } catch {
    await client.query('ROLLBACK');
    return null;
  }
}

/** Extensions the migrations create: pg_trgm serves search (trigram indexes, as GitLab's). */
const EXTENSIONS = ['pg_trgm'];

/** A database where the migrations cannot create an extension they need. */
export class MissingExtensionError extends Error {}

/**
 * Each extension the migrations need and the database lacks, created in a transaction rolled
 * back: a role without the right to create it (pg_trgm is trusted: the database's owner, or a role
 * with CREATE on it, may) learns what to ask for before any migration runs, rather than from a
 * failed migration halfway through the history.
 */
async function checkExtensions(client: pg.Client): Promise<void> {
  const {
    rows: [found],
  } = await client.query<{ role: string; db: string; present: string[] }>(
    'SELECT current_user AS role, current_database() AS db, array(SELECT extname::text FROM pg_extension WHERE extname = ANY($1)) AS present',
    [EXTENSIONS],
  );
  for (const name of EXTENSIONS.filter((e) => !found.present.includes(e))) {
    await client.query('BEGIN');
    try {
      // The name is one of the constants above, never input.
      await client.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
    } catch (error) {
      throw new MissingExtensionError(
        `PostgreSQL extension ${name} is not installed in database "${found.db}" and role "${found.role}" may not create it ` +
          `(${(error as Error).message}). forgegate's search needs it: have a superuser run \`CREATE EXTENSION ${name};\` in that database ` +
          `(or grant the role CREATE on it), then start again.`,
      );
    } finally {
      await client.query('ROLLBACK');
    }
  }
}

/** Applies pending migrations (like `prisma migrate deploy`); returns the names applied. */
export async function applyMigrations(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client(pgConfigFromUrl(databaseUrl));
  await client.connect();
  try {
    const state = await migrationState(client);
    if (state === 'current') return [];
    await checkExtensions(client);
    const applied = state === 'new' ? await migrateNewDatabase(client) : null;
    if (applied) return applied;
  } finally {
    await client.end();
  }
  return applyWithEngine(databaseUrl);
}

/** Pending migrations applied by Prisma's schema engine (`prisma migrate deploy`). */
export async function applyWithEngine(databaseUrl: string): Promise<string[]> {
  const { engine, close } = await openEngine(databaseUrl);
  try {
    const result = await engine.applyMigrations({ migrationsList: migrationsList(), filters } as never);
    return (result as { appliedMigrationNames: string[] }).appliedMigrationNames;
  } finally {
    await close();
  }
}

/**
 * Writes a new migration from the schema diff (like `prisma migrate dev --create-only`). The wasm
 * engine's own `createMigration` cannot reach a shadow database for PostgreSQL, so the script comes
 * from `diff` (migration history, replayed on a shadow database through the adapter, against the
 * schema files), and the folder is named as Prisma names it.
 */
export async function createMigration(databaseUrl: string, name: string): Promise<string | null> {
  const { engine, close, schema } = await openEngine(databaseUrl);
  try {
    const out = (await engine.diff({
      from: { tag: 'migrations', ...migrationsList() },
      to: { tag: 'schemaDatamodel', files: schema.files },
      script: true,
      exitCode: true,
      filters,
    } as never)) as { exitCode: number; stdout: string | null };
    const script = out.stdout ?? '';
    if (out.exitCode !== 2 || !script.trim() || /^-- This is an empty migration\.\s*$/.test(script.trim())) return null;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const generated = `${stamp}_${name}`;
    const dir = path.join(migrationsDir, generated);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), script);
    return generated;
  } finally {
    await close();
  }
}
