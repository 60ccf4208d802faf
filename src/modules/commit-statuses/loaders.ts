import type { Context } from '../../core/context.ts';
import { batchGroupBy } from '../../core/loaders.ts';

/** The latest statuses of every pipeline a request shows, in one query (a pipeline's status is computed from them). */
export function createPipelineStatusLoader(ctx: Context) {
  return batchGroupBy(
    (ids: readonly number[]) => ctx.db.commitStatus.findMany({ where: { pipelineId: { in: [...ids] }, retried: false }, orderBy: { id: 'asc' } }),
    (row) => row.pipelineId,
  );
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    pipelineStatuses: ReturnType<typeof createPipelineStatusLoader>;
  }
}
