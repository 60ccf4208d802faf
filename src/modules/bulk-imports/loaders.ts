import type { Context } from '../../core/context.ts';
import { batchGroupBy } from '../../core/loaders.ts';

/** An entity's failures, for a page of entities in one query. */
export function createFailureLoader(ctx: Context) {
  return batchGroupBy(
    (ids: readonly number[]) => ctx.db.bulkImportFailure.findMany({ where: { entityId: { in: [...ids] } }, orderBy: { id: 'asc' } }),
    (row) => row.entityId,
  );
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    bulkImportFailures: ReturnType<typeof createFailureLoader>;
  }
}
