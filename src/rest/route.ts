import type { Response } from 'express';
import type { Context } from '../core/context.ts';
import type { Operations } from '../generated/operations.ts';
import type { ParamShape, Rule, Values } from './declare.ts';
import type { KeysetRoute } from './pagination.ts';
import type { Params } from './params.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A named operation of some area's operations.graphql. */
export type OperationName = keyof Operations;

/** The data an operation returns, as `npm run codegen` generates it from the operation's selection. */
export type OperationData<O extends OperationName> = Operations[O]['data'];

export type OperationVariables<O extends OperationName> = Operations[O]['variables'];

/** The connection shape a paginated operation returns at the path the route points to. */
export type ConnectionResult<T = unknown> = { totalCount: number; nodes: T[] };

/**
 * One REST v4 route, GitLab's Grape endpoint as data: its declared parameters, the named GraphQL
 * operation it runs, how the checked parameters become the operation's variables, and how the
 * operation's data becomes GitLab's response. No business rules here.
 *
 * Types follow the operation: `variables` must return its variables, `result` receives its
 * generated data type, `respond` receives what `result` returned.
 */
export type RouteDef<O extends OperationName, P extends ParamShape, R> = {
  method: Method;
  /** Express path under /api/v4 (or the web root), e.g. `/projects/:id/milestones`. */
  path: string;
  /** Name of an operation in the module's operations.graphql. */
  operation: O;
  /** Path, query and body parameters, read and checked before anything runs. */
  params?: P;
  /** Checks across parameters, after each one was read. */
  rules?: Rule[];
  variables?: (v: Values<P>, p: Params) => OperationVariables<O>;
  /** Shapes the response body; a paginated route returns the connection; none answers 204 without a body. */
  result?: (data: OperationData<O>, v: Values<P>, p: Params) => R;
  paginated?: boolean;
  /** How the list pages with `pagination=keyset`, where GitLab offers it (others answer GitLab's 405). */
  keyset?: KeysetRoute;
  /** The success status: 200 with a body, 204 without (201 for creations, 202 for deletions in the background). */
  status?: number;
  /**
   * Writes the response itself (headers only, raw or streamed bodies) from the shaped result,
   * instead of the default JSON body.
   */
  respond?: (res: Response, body: R, ctx: Context) => void | Promise<void>;
  /** Accepts a CI job token (`JOB-TOKEN`); every other route answers such a request with 401. */
  jobToken?: boolean;
  /**
   * Anonymous requests answer 401 before anything is read or looked up (GitLab's `authenticate!`
   * ahead of `find_group!` / `user_project`), so a private group or project is never a 404 there.
   * Usually declared for a whole table (`defineRoutes`); a route's own value wins.
   */
  authenticate?: boolean;
};

/** A route as the engine holds it: the same fields, their operation-specific types erased. */
export type Route = {
  method: Method;
  path: string;
  operation: OperationName;
  params: ParamShape;
  rules: Rule[];
  variables?: (v: never, p: Params) => unknown;
  result?: (data: never, v: never, p: Params) => unknown;
  paginated?: boolean;
  keyset?: KeysetRoute;
  status?: number;
  respond?: (res: Response, body: never, ctx: Context) => void | Promise<void>;
  jobToken?: boolean;
  authenticate?: boolean;
};

/** Declares one route; the operation's name and the params give every callback its types. */
export function route<O extends OperationName, const P extends ParamShape = Record<never, never>, R = undefined>(def: RouteDef<O, P, R>): Route {
  return { ...def, params: def.params ?? {}, rules: def.rules ?? [] };
}

/** `respond` for a route whose result is a location (a path or an absolute URL): a 302 there. */
export const redirect = (res: Response, location: string) => {
  res.redirect(302, location);
};

/**
 * Which routes of a table authenticate first, as the GitLab API they answer for does in a `before`
 * block: `'always'` (`authenticate!`, `authenticated_as_admin!`) or `'writes'`
 * (`authenticate_non_get!`: every method but GET and HEAD).
 */
export type Authenticate = 'always' | 'writes';

const READS: readonly Method[] = ['GET', 'HEAD'];

export function defineRoutes(routes: Route[], opts: { authenticate?: Authenticate } = {}): Route[] {
  if (!opts.authenticate) return routes;
  const first = (route: Route) => opts.authenticate === 'always' || !READS.includes(route.method);
  return routes.map((route) => ({ ...route, authenticate: route.authenticate ?? first(route) }));
}
