import { randomUUID } from 'node:crypto';
import { Policy } from '../auth/policy.ts';
import type { Viewer } from '../auth/viewer.ts';
import type { AppDeps } from '../deps.ts';
import { createLoaders, type Loaders } from './loaders.ts';

/** Everything a use case needs for one request: who asks, what they may do, per-request caches. */
export type Context = {
  deps: AppDeps;
  db: AppDeps['db'];
  viewer: Viewer;
  policy: Policy;
  loaders: Loaders;
  requestId: string;
  /**
   * Where a list's count may stop (REST's paginated routes: GitLab leaves X-Total out past 10,000
   * rows), so that a page of a large list does not count all of it; unset, counts are exact.
   */
  countLimit?: number;
};

export function createContext(deps: AppDeps, viewer: Viewer, requestId: string = randomUUID()): Context {
  const ctx = {
    deps,
    db: deps.db,
    viewer,
    policy: new Policy(deps.sql, viewer),
    requestId,
  } as Omit<Context, 'loaders'> as Context;
  ctx.loaders = createLoaders(ctx, deps.loaderFactories);
  return ctx;
}
