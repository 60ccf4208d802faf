import type { RequestHandler } from 'express';
import type { AppDeps } from '../deps.ts';
import type { Subscribers } from '../core/events.ts';
import type { LoaderFactories } from '../core/loaders.ts';
import type { JobDefinitions } from '../jobs/definitions.ts';
import type { Route } from '../rest/route.ts';

/**
 * What one area brings to the kernel. The area's `index.ts` imports its `schema.ts` (which
 * registers its GraphQL types on the shared builder) and exports one of these; the manifest
 * (`index.ts` beside this file) lists them. The engines (`rest/`, `graphql/`, `core/`) receive
 * the collected pieces and never import an area.
 */
export type ModuleDef = {
  name: string;
  /** REST v4 routes, under `/api/v4`. */
  routes?: Route[];
  /** Routes under a project's web address (`/<full_path>/-/...`), for links the API hands out. */
  webRoutes?: Route[];
  /**
   * Endpoints under a project's web path that authenticate on their own instead of through the
   * API's token headers: alert intake (the endpoint's key), git over HTTP and Git LFS (HTTP Basic
   * with tokens, bodies streamed). Mounted ahead of the web routes, without user authentication
   * or body parsers.
   */
  machineEndpoints?: (deps: AppDeps) => RequestHandler;
  /** The area's `operations.graphql`: the named operations its REST routes run. */
  operations?: URL;
  /** Per-request DataLoaders the area adds to `ctx.loaders`. */
  loaders?: LoaderFactories;
  /** Listeners for domain events. */
  subscribers?: Subscribers;
  /**
   * Background job queues and their handlers: `{ 'release-evidence': { handler, retryLimit } }`.
   * Code enqueues with `deps.jobs.send(queue, data)`; the queue must be declared here.
   */
  jobs?: JobDefinitions;
};

export const defineModule = (module: ModuleDef) => module;
