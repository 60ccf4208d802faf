// Prisma migrations through @prisma/schema-engine-wasm: the CLI needs a native engine binary
// that cannot be downloaded on these machines. Same folder layout as `prisma migrate`.
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
    ? fs.readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
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

/**
 * True when the database has applied exactly the migration folders and none failed: the engine
 * would do nothing. Most starts are such starts, and one query spares them loading the ~5 MB wasm
 * engine (~40 MB of memory and ~0.2 s of CPU, issue #12). Any other state goes to the engine,
 * which applies, or reports a failed migration as it always did.
 */
export async function migrationsUpToDate(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client(pgConfigFromUrl(databaseUrl));
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string; finished: boolean; rolled_back: boolean }>(
      'SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
    );
    if (rows.some((r) => !r.finished && !r.rolled_back)) return false;
    const applied = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => r.migration_name));
    const names = migrationNames();
    return applied.size === names.length && names.every((name) => applied.has(name));
  } catch (error) {
    // A new database: no migrations table yet.
    if ((error as { code?: string }).code === '42P01') return false;
    throw error;
  } finally {
    await client.end();
  }
}

/** Applies pending migrations (like `prisma migrate deploy`); returns the names applied. */
export async function applyMigrations(databaseUrl: string): Promise<string[]> {
  if (await migrationsUpToDate(databaseUrl)) return [];
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
