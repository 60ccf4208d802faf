import type { Context } from '../../core/context.ts';
import { batchBy } from '../../core/loaders.ts';

/** The viewer's subscriptions among the labels a request shows, in one query. */
export function createLabelSubscriptionLoader(ctx: Context) {
  return batchBy(
    (labelIds: readonly number[]) => ctx.db.labelSubscription.findMany({ where: { userId: ctx.viewer.userId ?? 0, labelId: { in: [...labelIds] } } }),
    (row) => row.labelId,
  );
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    labelSubscriptions: ReturnType<typeof createLabelSubscriptionLoader>;
  }
}
