import type { Context } from '../../core/context.ts';
import { SettledLoader } from '../../core/loaders.ts';
import { directProjectLevels } from './store.ts';

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

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    directProjectLevels: ReturnType<typeof createDirectLevelLoader>;
  }
}
