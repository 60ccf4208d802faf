import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AppDeps } from '../deps.ts';
import { ROUTE_LOCAL } from '../metrics.ts';
import type { Context } from '../core/context.ts';
import { DomainError, ServiceUnavailableError, UnauthorizedError } from '../core/errors.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { OperationRegistry } from './operations.ts';
import { COUNT_BOUND, keysetUnavailable, pageVariables, readPage, setKeysetHeaders, setPaginationHeaders } from './pagination.ts';
import { readAll } from './declare.ts';
import { nestedTooDeeply, TOO_DEEP_TYPE } from './edge.ts';
import { writeJson } from './json.ts';
import { Params } from './params.ts';
import type { ConnectionResult, Route } from './route.ts';

export type ContextRequest = Request & { forgegate?: Context; requestId?: string };

function handler(route: Route, registry: OperationRegistry, deps: AppDeps) {
  return async (req: ContextRequest, res: Response) => {
    // Recorded now: when the route throws, the router unwinds req.baseUrl before the response.
    res.locals[ROUTE_LOCAL] = `${req.baseUrl}${route.path}`;
    const ctx = req.forgegate!;
    if (ctx.viewer.job && !route.jobToken) throw new UnauthorizedError();
    // GitLab authenticates before it validates parameters: a revoked token gets 401, not a 400.
    registry.checkCredential(route.operation, ctx);
    if (route.authenticate && !ctx.viewer.user) throw new UnauthorizedError();
    const p = new Params({ ...(req.query as object), ...(req.body as object | undefined), ...req.params });
    const values = readAll(route.params, p) as never;
    for (const rule of route.rules) rule.check(p);
    const page = route.paginated ? readPage(p) : undefined;
    const keyset = page && p.value('pagination') === 'keyset' ? route.keyset : undefined;
    if (page && p.value('pagination') === 'keyset' && !keyset?.seeks(p)) throw keysetUnavailable();
    const position = keyset?.position(p);
    p.check();
    // Headers leave the total out past 10,000 rows: the lists need not count further; keyset
    // pages answer no total at all.
    if (page) ctx.countLimit = keyset ? 0 : COUNT_BOUND;
    const variables = (route.variables?.(values, p) ?? {}) as Record<string, unknown>;
    const paging = page && (keyset ? { first: page.perPage, after: position } : pageVariables(page));
    const data = await registry.run(route.operation, { ...variables, ...paging }, ctx);
    const body = route.result?.(data as never, values, p);
    const status = route.status ?? (route.result ? 200 : 204);
    if (route.respond) {
      await route.respond(res.status(status), body as never, ctx);
      return;
    }
    if (page && keyset) {
      const { nodes } = body as ConnectionResult;
      setKeysetHeaders(req, res, deps.config.externalUrl, page.perPage, nodes, keyset, p);
      writeJson(res, status, nodes);
      return;
    }
    if (page) {
      const connection = body as ConnectionResult;
      setPaginationHeaders(req, res, deps.config.externalUrl, page, connection.totalCount, connection.nodes.length);
      writeJson(res, status, connection.nodes);
      return;
    }
    if (body === undefined) {
      res.status(status).end();
      return;
    }
    writeJson(res, status, body);
  };
}

/**
 * Mounts a route table; each route runs its named GraphQL operation in-process. `before` runs
 * ahead of each route only (web paths authenticate per route, not for everything under `/`);
 * `catchAll` answers GitLab's 404 for every other path under the mount point.
 */
export function restRouter(routes: Route[], registry: OperationRegistry, deps: AppDeps, opts: { before?: RequestHandler[]; catchAll?: boolean } = {}) {
  const router = express.Router();
  // Express answers HEAD with the GET route of the same path; explicit HEAD routes go first.
  const ordered = [...routes.filter((r) => r.method === 'HEAD'), ...routes.filter((r) => r.method !== 'HEAD')];
  for (const route of ordered) {
    if (!registry.has(route.operation)) throw new Error(`route ${route.method} ${route.path}: no operation ${route.operation}`);
    const method = route.method.toLowerCase() as 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
    router[method](route.path, ...(opts.before ?? []), handler(route, registry, deps));
  }
  if (opts.catchAll === false) return router;
  router.all('/{*rest}', (_req, res) => {
    writeJson(res, 404, { error: '404 Not Found' });
  });
  return router;
}

type ClientError = Error & { type?: string; status?: number; expose?: boolean };

/**
 * Errors that are the request's fault or the database's absence, as domain errors: a stalled or
 * lost database is a 503 with Retry-After; the body parser's and router's own refusals (bad
 * percent-encoding, unsupported charset or Content-Encoding, too many or too deeply nested form
 * parameters) are 400s. Null when the error is a bug.
 */
export function knownError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  const e = error as ClientError;
  if (!e || typeof e.status !== 'number' || e.status < 400 || e.status >= 500 || e.expose === false) return null;
  if (e.type === 'entity.too.large') return new DomainError('PAYLOAD_TOO_LARGE', 413, { message: '413 Request Entity Too Large' }, e.message);
  // Too deep a JSON body (refused before parsing) or form (qs's depth): GitLab's one answer for both.
  if (e.type === TOO_DEEP_TYPE || e.type === 'querystring.parse.rangeError') return nestedTooDeeply();
  if (e.type === 'entity.parse.failed') return new DomainError('BAD_REQUEST', 400, { error: 'The request body is not valid JSON' }, e.message);
  return new DomainError('BAD_REQUEST', 400, { error: e.message || '400 Bad Request' }, e.message || 'Bad Request');
}

/** One table from domain errors to GitLab status and body; anything else is a logged 500. */
export function restErrorHandler(deps: AppDeps) {
  return (error: unknown, req: ContextRequest, res: Response, _next: NextFunction) => {
    const known = knownError(error);
    if (known) {
      if (known.status === 503)
        deps.log.warn({ err: error, requestId: req.requestId }, known instanceof ServiceUnavailableError ? 'database unavailable' : known.message);
      writeJson(res.set(known.headers), known.status, known.body);
      return;
    }
    deps.log.error({ err: error, requestId: req.requestId }, 'unhandled error');
    writeJson(res, 500, { message: '500 Internal Server Error' });
  };
}
