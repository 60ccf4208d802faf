import { randomUUID } from 'node:crypto';
import { Policy } from '../auth/policy.ts';
import type { Viewer } from '../auth/viewer.ts';
import type { AppDeps } from '../deps.ts';
import type { DomainError } from './errors.ts';
import { createLoaders, type Loaders } from './loaders.ts';

export type Context = {
  deps: AppDeps;
  db: AppDeps['db'];
  viewer: Viewer;
  policy: Policy;
  loaders: Loaders;
  /** Failures that mutations report in their payload `errors`, kept with their codes for REST. */
  payloadErrors: DomainError[];
  requestId: string;
};

export function createContext(deps: AppDeps, viewer: Viewer, requestId: string = randomUUID()): Context {
  return {
    deps,
    db: deps.db,
    viewer,
    policy: new Policy(deps.db, viewer),
    loaders: createLoaders(deps.db, deps.git),
    payloadErrors: [],
    requestId,
  };
}
