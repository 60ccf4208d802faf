import type { Response } from 'express';
import type { Context } from '../graphql/context.ts';
import type { Params } from './params.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

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
  /** Shapes the response body; a paginated route returns the connection. */
  result: (data: any, p: Params) => unknown;
  paginated?: boolean;
  status?: number;
  /**
   * Writes the response itself (headers only, raw or streamed bodies) from the shaped result,
   * instead of the default JSON body.
   */
  respond?: (res: Response, body: any, ctx: Context) => void | Promise<void>;
  /** Accepts a CI job token (`JOB-TOKEN`); every other route answers such a request with 401. */
  jobToken?: boolean;
};

/** `respond` for a route whose result is a location (a path or an absolute URL): a 302 there. */
export const redirect = (res: Response, location: string) => {
  res.redirect(302, location);
};

export const defineRoutes = (routes: RouteDef[]) => routes;
