import DataLoader from 'dataloader';
import type { Context } from '../../core/context.ts';
import type { DiffStats } from '../../git/repository.ts';

/**
 * Per-request loaders of the commits area: the stats of every commit a request shows are read
 * in one git call per project, however many commits a page lists.
 */
export function createCommitLoaders(ctx: Context) {
  const stats = new DataLoader<string, DiffStats | null>(async (keys) => {
    const byProject = new Map<number, string[]>();
    for (const key of keys) {
      const [projectId, sha] = key.split('\0');
      byProject.set(Number(projectId), [...(byProject.get(Number(projectId)) ?? []), sha]);
    }
    const found = new Map<string, DiffStats>();
    for (const [projectId, shas] of byProject) {
      const repository = await ctx.loaders.repository.load(projectId);
      for (const [sha, s] of await repository.stats([...new Set(shas)])) found.set(`${projectId}\0${sha}`, s);
    }
    return keys.map((key) => found.get(key) ?? null);
  });
  return {
    stats: { load: (projectId: number, sha: string) => stats.load(`${projectId}\0${sha}`) },
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    commits: ReturnType<typeof createCommitLoaders>;
  }
}
