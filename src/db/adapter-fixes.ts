// Workarounds that let @prisma/adapter-pg 7.10 drive the wasm schema engine (shared notes/stack.md §1b).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import { parse } from 'pg-connection-string';

export type PgConfig = {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  allowExitOnIdle?: boolean;
  max?: number;
};

/** Discrete fields, because pg lets `connectionString` override the shadow pool's `database`. */
export function pgConfigFromUrl(url: string): PgConfig {
  const c = parse(url);
  return {
    host: c.host ?? '127.0.0.1',
    port: Number(c.port ?? 5432),
    user: c.user ?? 'postgres',
    password: c.password ?? undefined,
    database: c.database ?? 'postgres',
    allowExitOnIdle: true,
  };
}

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;
type Queryable = Pick<Adapter, 'queryRaw'> & { performIO(query: unknown): Promise<{ fields?: { dataTypeID: number }[] }> };

/**
 * adapter-pg has no mapping for OID 18 ("char"), which the engine's introspection reads: report
 * such columns as text. Patched on the migrating instance (and its transactions) only, never on
 * the prototype every runtime adapter shares, and without AsyncLocalStorage: each call gets its
 * own view of the adapter whose `performIO` notes the char columns, so async hooks stay off and
 * runtime queries run the stock code.
 */
function reportCharColumns<T extends Queryable>(queryable: T): T {
  const { queryRaw, performIO } = queryable;
  queryable.queryRaw = async function (this: T, query) {
    const columns: number[] = [];
    const view = Object.create(this, {
      performIO: {
        value: async (q: unknown) => {
          const result = await performIO.call(this, q);
          result?.fields?.forEach((field, index) => {
            if (field.dataTypeID !== 18) return;
            columns.push(index);
            field.dataTypeID = 25;
          });
          return result;
        },
      },
    });
    const result = await queryRaw.call(view, query);
    for (const index of columns) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}

function reportCharColumnsEverywhere(adapter: Adapter) {
  reportCharColumns(adapter as unknown as Queryable);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args) => reportCharColumns((await startTransaction(...args)) as unknown as Queryable) as never;
}

// The stock executeScript splits on every ';', which breaks dollar-quoted function bodies.
function runScriptsWhole(adapter: Adapter) {
  const driver = adapter.underlyingDriver() as pg.Pool;
  adapter.executeScript = async (script: string) => {
    await driver.query(script);
  };
}

function fixAdapter(adapter: Adapter): Adapter {
  reportCharColumnsEverywhere(adapter);
  runScriptsWhole(adapter);
  return adapter;
}

export class MigratingPrismaPg extends PrismaPg {
  private readonly opened: Adapter[] = [];

  constructor(private readonly cfg: PgConfig) {
    super(cfg);
  }

  override async connect() {
    const adapter = fixAdapter(await super.connect());
    this.opened.push(adapter);
    return adapter;
  }

  /**
   * Closes the engine's connections. The engine's migration lock is a session advisory lock
   * that outlives the engine: while the pool keeps that connection idle (10 s), every other
   * process that starts and migrates waits for it.
   */
  async disposeAll() {
    for (const adapter of this.opened.splice(0)) await adapter.dispose();
  }

  // The stock version drops the shadow database before closing its pool, and leaks it.
  override async connectToShadowDb() {
    const admin = new pg.Pool({ ...this.cfg, max: 1 });
    const database = `prisma_migrate_shadow_db_${randomUUID().replaceAll('-', '')}`;
    await admin.query(`CREATE DATABASE "${database}"`);
    const shadow = fixAdapter(await new PrismaPg({ ...this.cfg, database }).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    };
    return shadow;
  }
}
