import DataLoader from 'dataloader';
import type { Context } from '../../core/context.ts';

const refKey = (projectId: number, ref: string) => `${projectId}\0${ref}`;

/**
 * Per-request loaders of the files area. Each ref is resolved once per project and request, so
 * every blob, tree and blame of one request reads the same commit even if a push lands meanwhile.
 */
export function createRepositoryFileLoaders(ctx: Context) {
  const commits = new DataLoader<string, string | null>((keys) =>
    Promise.all(
      keys.map(async (key) => {
        const [projectId, ref] = key.split('\0');
        return (await ctx.loaders.repository.load(Number(projectId))).resolveCommit(ref);
      }),
    ),
  );
  return {
    commitOfRef: {
      load: (projectId: number, ref: string) => commits.load(refKey(projectId, ref)),
      /** After a write: any ref this request resolved may have moved. */
      clear: () => commits.clearAll(),
    },
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    repositoryFiles: ReturnType<typeof createRepositoryFileLoaders>;
  }
}
