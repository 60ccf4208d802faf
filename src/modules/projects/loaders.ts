import type { Context } from '../../core/context.ts';
import { SettledLoader } from '../../core/loaders.ts';
import { refreshRepositoryFacts } from './service.ts';
import { directProjectLevels, type RepositoryFacts } from './store.ts';

/**
 * The viewer's own membership level in projects (not through a group; 0: none): REST's
 * `permissions.project_access`. One statement for a page; a project read by id or path comes with
 * its level already (`readProject`).
 */
export function createDirectLevelLoader(ctx: Context) {
  return new SettledLoader<number, number>(async (ids) => {
    const userId = ctx.viewer.userId;
    if (userId == null) return ids.map(() => 0);
    const levels = new Map((await directProjectLevels(ctx.deps.sql, userId, ids)).map((r) => [r.id, r.level]));
    return ids.map((id) => levels.get(id) ?? 0);
  });
}

/**
 * The repository facts of projects whose rows are older than the columns that keep them (null:
 * not read yet): read from each repository once, and stored, the first time an answer shows them.
 */
export function createRepositoryFactsLoader(ctx: Context) {
  return new SettledLoader<number, RepositoryFacts | null>((ids) => Promise.all(ids.map((id) => refreshRepositoryFacts(ctx.deps, id))));
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    directProjectLevels: ReturnType<typeof createDirectLevelLoader>;
    repositoryFacts: ReturnType<typeof createRepositoryFactsLoader>;
  }
}
