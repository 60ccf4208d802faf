import type { Context } from '../graphql/context.ts';
import type { Params } from './params.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The connection shape a paginated operation returns at the path the route points to. */
export type ConnectionResult<T = unknown> = { totalCount: number; nodes: T[] };

/**
 * One REST v4 route: which named GraphQL operation it runs, how the request becomes the
 * operation's variables, and how the data becomes GitLab's response. No business rules here.
 */
export type RouteDef = {
  method: Method;
  /** Express path under /api/v4, e.g. `/projects/:id/milestones`. */
  path: string;
  /** Name of an operation in the module's operations.graphql. */
  operation: string;
  variables?: (p: Params) => Record<string, unknown>;
  /**
   * Shapes the response body; a paginated route returns the connection. A `Redirect` or a
   * `RawBody` is sent as such instead of JSON.
   */
  result: (data: any, p: Params, ctx: Context) => unknown;
  paginated?: boolean;
  status?: number;
  /** Accepts a CI job token (`JOB-TOKEN`); every other route answers such a request with 401. */
  jobToken?: boolean;
};

/** A 302 to `location` (a path or an absolute URL). */
export class Redirect {
  constructor(readonly location: string) {}
}

/** A body sent as it is, with its content type and, for downloads, a file name. */
export class RawBody {
  constructor(
    readonly body: Buffer | string,
    readonly contentType: string,
    readonly fileName?: string,
  ) {}
}

export const defineRoutes = (routes: RouteDef[]) => routes;
