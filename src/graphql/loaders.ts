import DataLoader from 'dataloader';
import type { Db } from '../db/client.ts';
import type { GitStore } from '../git/store.ts';
import type { RepositoryReader } from '../git/reader.ts';
import type { Namespace, Project, User } from '../generated/prisma/client.ts';

/** Loads rows by a key column in one query per tick, in the order of the keys asked for. */
export function batchBy<K, V>(load: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K) {
  return new DataLoader<K, V | null>(async (keys) => {
    const rows = await load(keys);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    return keys.map((k) => byKey.get(k) ?? null);
  });
}

/** Groups rows by a key column: one query per tick for "all children of these parents". */
export function batchGroupBy<K, V>(load: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K) {
  return new DataLoader<K, V[]>(async (keys) => {
    const rows = await load(keys);
    const groups = new Map<K, V[]>(keys.map((k) => [k, []]));
    for (const row of rows) groups.get(keyOf(row))?.push(row);
    return keys.map((k) => groups.get(k) ?? []);
  });
}

export function createLoaders(db: Db, git: GitStore) {
  return {
    user: batchBy<number, User>((ids) => db.user.findMany({ where: { id: { in: [...ids] } } }), (u) => u.id),
    namespace: batchBy<number, Namespace>(
      (ids) => db.namespace.findMany({ where: { id: { in: [...ids] } } }),
      (n) => n.id,
    ),
    project: batchBy<number, Project & { namespace: Namespace }>(
      (ids) => db.project.findMany({ where: { id: { in: [...ids] } }, include: { namespace: true } }),
      (p) => p.id,
    ),
    /** One libgit2 handle per project and request. */
    repository: new DataLoader<number, RepositoryReader>((ids) => Promise.all(ids.map((id) => git.reader(id)))),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
