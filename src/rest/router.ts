import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AppDeps } from '../deps.ts';
import type { Context } from '../graphql/context.ts';
import { DomainError, UnauthorizedError } from '../graphql/errors.ts';
import type { OperationRegistry } from './operations.ts';
import { pageVariables, readPage, setPaginationHeaders } from './pagination.ts';
import { Params } from './params.ts';
import type { ConnectionResult, RouteDef } from './route.ts';

export type ContextRequest = Request & { forgegate?: Context };

function handler(route: RouteDef, registry: OperationRegistry, deps: AppDeps) {
  return async (req: ContextRequest, res: Response) => {
    const ctx = req.forgegate!;
    if (ctx.viewer.job && !route.jobToken) throw new UnauthorizedError();
    const p = new Params({ ...(req.query as object), ...(req.body as object | undefined), ...req.params });
    const variables = route.variables?.(p) ?? {};
    const page = route.paginated ? readPage(p) : undefined;
    p.check();
    const data = await registry.run(route.operation, { ...variables, ...(page && pageVariables(page)) }, ctx);
    const body = route.result(data, p);
    if (route.respond) {
      await route.respond(res.status(route.status ?? 200), body, ctx);
      return;
    }
    if (page) {
      const connection = body as ConnectionResult;
      setPaginationHeaders(req, res, deps.config.externalUrl, page, connection.totalCount);
      res.status(route.status ?? 200).json(connection.nodes);
      return;
    }
    if (body === undefined) {
      res.status(route.status ?? 204).end();
      return;
    }
    res.status(route.status ?? 200).json(body);
  };
}

/**
 * Mounts a route table; each route runs its named GraphQL operation in-process. `before` runs
 * ahead of each route only (web paths authenticate per route, not for everything under `/`);
 * `catchAll` answers GitLab's 404 for every other path under the mount point.
 */
export function restRouter(
  routes: RouteDef[],
  registry: OperationRegistry,
  deps: AppDeps,
  opts: { before?: RequestHandler[]; catchAll?: boolean } = {},
) {
  const router = express.Router();
  // Express answers HEAD with the GET route of the same path; explicit HEAD routes go first.
  const ordered = [...routes.filter((r) => r.method === 'HEAD'), ...routes.filter((r) => r.method !== 'HEAD')];
  for (const route of ordered) {
    if (!registry.has(route.operation)) throw new Error(`route ${route.method} ${route.path}: no operation ${route.operation}`);
    const method = route.method.toLowerCase() as 'get' | 'head' | 'post' | 'put' | 'delete';
    router[method](route.path, ...(opts.before ?? []), handler(route, registry, deps));
  }
  if (opts.catchAll === false) return router;
  router.all('/{*rest}', (_req, res) => {
    res.status(404).json({ error: '404 Not Found' });
  });
  return router;
}

type BodyParserError = Error & { type?: string; status?: number };

/** One table from domain errors to GitLab status and body; anything else is a logged 500. */
export function restErrorHandler(deps: AppDeps) {
  return (error: unknown, req: ContextRequest, res: Response, _next: NextFunction) => {
    if (error instanceof DomainError) {
      res.set(error.headers).status(error.status).json(error.body);
      return;
    }
    const parserError = error as BodyParserError;
    if (parserError?.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'The request body is not valid JSON' });
      return;
    }
    if (parserError?.type === 'entity.too.large') {
      res.status(413).json({ message: '413 Request Entity Too Large' });
      return;
    }
    deps.log.error({ err: error, requestId: req.forgegate?.requestId }, 'unhandled error');
    res.status(500).json({ message: '500 Internal Server Error' });
  };
}
