import type { Context } from '../../core/context.ts';
import { batchBy } from '../../core/loaders.ts';

/** The statuses of every user a request shows, in one query. */
export function createUserStatusLoader(ctx: Context) {
  return batchBy(
    (ids: readonly number[]) => ctx.db.userStatus.findMany({ where: { userId: { in: [...ids] } } }),
    (row) => row.userId,
  );
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    userStatuses: ReturnType<typeof createUserStatusLoader>;
  }
}
