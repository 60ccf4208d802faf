// Workarounds that let @prisma/adapter-pg 7.10 drive the wasm schema engine (shared notes/stack.md §1b).
import { AsyncLocalStorage } from 'node:async_hooks';
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
const charColumns = new AsyncLocalStorage<number[]>();
const patchedPrototypes = new WeakSet<object>();

// adapter-pg has no mapping for OID 18 ("char"), which the engine's introspection reads.
function reportCharColumns(adapter: Adapter) {
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(adapter));
  if (patchedPrototypes.has(proto)) return;
  patchedPrototypes.add(proto);
  const { queryRaw, performIO } = proto;
  proto.performIO = async function (this: unknown, query: unknown) {
    const result = await performIO.call(this, query);
    const columns = charColumns.getStore();
    result?.fields?.forEach((field: { dataTypeID: number }, index: number) => {
      if (columns && field.dataTypeID === 18) {
        columns.push(index);
        field.dataTypeID = 25;
      }
    });
    return result;
  };
  proto.queryRaw = function (this: unknown, query: unknown) {
    const columns: number[] = [];
    return charColumns.run(columns, async () => {
      const result = await queryRaw.call(this, query);
      for (const index of columns) result.columnTypes[index] = ColumnTypeEnum.Character;
      return result;
    });
  };
}

// The stock executeScript splits on every ';', which breaks dollar-quoted function bodies.
function runScriptsWhole(adapter: Adapter) {
  const driver = adapter.underlyingDriver() as pg.Pool;
  adapter.executeScript = async (script: string) => {
    await driver.query(script);
  };
}

function fixAdapter(adapter: Adapter): Adapter {
  reportCharColumns(adapter);
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
