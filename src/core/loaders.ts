import DataLoader from 'dataloader';
import type { Repository } from '../git/repository.ts';
import type { Namespace, Project, User } from '../generated/prisma/client.ts';
import type { Context } from './context.ts';
import { projectsWithNamespace, usersByEmail, usersById } from './store.ts';

/**
 * A DataLoader that also hands out what it has already read without a promise: `use(key, fn)`
 * calls `fn` at once when the key's batch has resolved, else when it resolves. A page of 100
 * releases reads its links, milestones and authors through loaders from ~1,000 fields: a field
 * that answers a value, not a promise, spares graphql-jit an async step (its promises and a
 * microtask), and a list resolver that preloads its rows' relations (see graphql/preload.ts) turns
 * every field below it into a plain value.
 */
export class SettledLoader<K, V> extends DataLoader<K, V> {
  private readonly settled: Map<K, V>;
  private readonly cache: Map<K, Promise<V>>;

  constructor(batch: (keys: readonly K[]) => Promise<readonly V[]>) {
    const settled = new Map<K, V>();
    const cache = new Map<K, Promise<V>>();
    super(
      async (keys) => {
        const values = await batch(keys);
        // An Error in the list is that key's failure (DataLoader rejects its load), and a key
        // cleared while it was read (a write in between) is read again: neither is settled.
        for (let i = 0; i < keys.length; i++) if (!(values[i] instanceof Error) && cache.has(keys[i])) settled.set(keys[i], values[i]);
        return values;
      },
      { cacheMap: cache },
    );
    this.settled = settled;
    this.cache = cache;
  }

  /** `fn(value)`, at once when the key has been read. */
  use<T>(key: K, fn: (value: V) => T): T | Promise<Awaited<T>> {
    if (this.settled.has(key)) return fn(this.settled.get(key) as V);
    return this.load(key).then(fn) as Promise<Awaited<T>>;
  }

  /** The value, at once when the key has been read. */
  get(key: K): V | Promise<V> {
    return this.settled.has(key) ? (this.settled.get(key) as V) : this.load(key);
  }

  /**
   * Reads the keys not read yet, in one batch, and fails as that read fails: for a list resolver
   * to settle its rows' relations before their fields ask (loadMany makes three promises a key and
   * hands failures back inside its list).
   */
  async preload(keys: Iterable<K>): Promise<void> {
    const reads: Promise<V>[] = [];
    for (const key of keys) if (!this.settled.has(key)) reads.push(this.load(key));
    await Promise.all(reads);
  }

  /** As DataLoader's: a key already read or being read keeps its value; a plain value is settled. */
  override prime(key: K, value: V | PromiseLike<V> | Error) {
    const plain = !(value instanceof Error) && typeof (value as PromiseLike<V> | null)?.then !== 'function';
    if (plain && !this.cache.has(key)) this.settled.set(key, value as V);
    return super.prime(key, value);
  }

  override clear(key: K) {
    this.settled.delete(key);
    return super.clear(key);
  }

  override clearAll() {
    this.settled.clear();
    return super.clearAll();
  }
}

/** Loads rows by a key column in one query per tick, in the order of the keys asked for. */
export function batchBy<K, V>(load: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K) {
  return new SettledLoader<K, V | null>(async (keys) => {
    const rows = await load(keys);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    return keys.map((k) => byKey.get(k) ?? null);
  });
}

/** Groups rows by a key column: one query per tick for "all children of these parents". */
export function batchGroupBy<K, V>(load: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K) {
  return new SettledLoader<K, V[]>(async (keys) => {
    const rows = await load(keys);
    const groups = new Map<K, V[]>(keys.map((k) => [k, []]));
    for (const row of rows) groups.get(keyOf(row))?.push(row);
    return keys.map((k) => groups.get(k) ?? []);
  });
}

/**
 * The rows of several keys through a loader, failing as `load` fails: `loadMany` hands a failed
 * read back as an Error inside the list, and read as "missing" that turns a lost database into a
 * short answer instead of a 503. Keys without a row are left out.
 */
export async function loadExisting<K, V>(loader: DataLoader<K, V | null>, keys: readonly K[]): Promise<V[]> {
  const values = await loader.loadMany(keys);
  const failed = values.find((value) => value instanceof Error);
  if (failed) throw failed;
  return values.filter((value): value is V => value != null && !(value instanceof Error));
}

/** The viewer's level in a project (0: none) and whether it may read its code (GitLab's `read_code`). */
export type ProjectAccess = { level: number; readCode: boolean };

async function projectAccess(ctx: Context, projectId: number): Promise<ProjectAccess> {
  const project = await ctx.loaders.project.load(projectId);
  if (!project) return { level: 0, readCode: false };
  return { level: await ctx.policy.projectAccessLevel(project), readCode: await ctx.policy.canReadCode(project) };
}

/** The loaders every area shares (users, namespaces, projects, repository handles), as factories. */
const CORE_LOADERS = {
  /** Authors, assignees, members: over the pool (SqlReader), the row Prisma would read. */
  user: (ctx: Context) =>
    batchBy<number, User>(
      (ids) => usersById(ctx.deps.sql, ids),
      (u) => u.id,
    ),
  /** Users by e-mail address, compared case-insensitively (keys lower-cased): commit authors. */
  userByEmail: (ctx: Context) =>
    batchBy<string, User>(
      (emails) => usersByEmail(ctx.deps.sql, emails),
      (u) => u.email.toLowerCase(),
    ),
  namespace: (ctx: Context) =>
    batchBy<number, Namespace>(
      (ids) => ctx.db.namespace.findMany({ where: { id: { in: [...ids] } } }),
      (n) => n.id,
    ),
  project: (ctx: Context) =>
    batchBy<number, Project & { namespace: Namespace }>(
      (ids) => projectsWithNamespace(ctx.deps.sql, ids),
      (p) => p.id,
    ),
  /** The viewer's standing in projects, read once per project and request: what abilities (graphql/abilities.ts) decide from. */
  projectAccess: (ctx: Context) => new SettledLoader<number, ProjectAccess>((ids) => Promise.all(ids.map((id) => projectAccess(ctx, id)))),
  /** One Repository per project and request, over the libgit2 handle the git store keeps. */
  repository: (ctx: Context) => new SettledLoader<number, Repository>((ids) => Promise.all(ids.map((id) => ctx.deps.git.open(id)))),
};

type CoreLoaders = { [K in keyof typeof CORE_LOADERS]: ReturnType<(typeof CORE_LOADERS)[K]> };

/**
 * Loaders an area adds. Each area declares its entry by augmenting this interface from its own
 * folder (`declare module '../../core/loaders.ts' { interface ModuleLoaders { releases: … } }`)
 * and registers the factory in the module manifest; the kernel never names an area.
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas add their loaders to it by declaration merging
export interface ModuleLoaders {}

export type LoaderFactories = { [K in keyof ModuleLoaders]?: (ctx: Context) => ModuleLoaders[K] };

export type Loaders = CoreLoaders & ModuleLoaders;

const CONTEXT = Symbol('request context');

/** One prototype per set of factories (per app), made once: see createLoaders. */
const prototypes = new WeakMap<LoaderFactories, object>();

function loadersPrototype(factories: LoaderFactories): object {
  let prototype = prototypes.get(factories);
  if (prototype) return prototype;
  prototype = {};
  for (const [name, make] of Object.entries({ ...CORE_LOADERS, ...factories }) as [string, (ctx: Context) => unknown][]) {
    Object.defineProperty(prototype, name, {
      get(this: { [CONTEXT]: Context }) {
        const made = make(this[CONTEXT]);
        Object.defineProperty(this, name, { value: made, enumerable: true });
        return made;
      },
    });
  }
  prototypes.set(factories, prototype);
  return prototype;
}

/**
 * Per-request loaders, each made on its first use and kept for the request, so nothing is shared
 * between requests or viewers. Most requests use one or two: a getter per loader on a prototype
 * made once per app, instead of making every core loader and defining a getter per area on each
 * request.
 */
export function createLoaders(ctx: Context, factories: LoaderFactories): Loaders {
  const loaders = Object.create(loadersPrototype(factories)) as Loaders & { [CONTEXT]: Context };
  loaders[CONTEXT] = ctx;
  return loaders;
}
