import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Response } from 'express';
import { createYoga } from 'graphql-yoga';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { authenticate, readCredentials } from './auth/authenticate.ts';
import type { AppDeps } from './deps.ts';
import { createContext, type Context } from './graphql/context.ts';
import { DomainError, UnauthorizedError } from './graphql/errors.ts';
import { operationChecksPlugin } from './graphql/operation-checks.ts';
import { schema } from './graphql/schema.ts';
import { pendingMigrations } from './db/readiness.ts';
import { OperationRegistry } from './rest/operations.ts';
import { restErrorHandler, restRouter, type ContextRequest } from './rest/router.ts';
import { allRoutes, allWebRoutes } from './rest/routes.ts';

const BODY_LIMIT = '10mb';

function requestLogging(deps: AppDeps) {
  return (req: ContextRequest, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = req.header('x-request-id')?.slice(0, 64) || randomUUID();
    res.set('X-Request-Id', requestId);
    (req as ContextRequest & { requestId: string }).requestId = requestId;
    res.on('finish', () => {
      // req.path only: the query string may carry private_token.
      deps.log.info({
        requestId,
        method: req.method,
        path: req.baseUrl + req.path,
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        userId: req.forgegate?.viewer.userId ?? null,
      }, 'request');
    });
    next();
  };
}

/** Resolves the viewer once per request; a bad credential is answered before any route runs. */
function authentication(deps: AppDeps, graphql: boolean) {
  return async (req: ContextRequest, res: Response, next: NextFunction) => {
    try {
      const viewer = await authenticate(deps.db, deps.secrets.tokenDigestKey, readCredentials(req));
      // Job tokens are for the REST routes that declare them, not for GraphQL.
      if (graphql && viewer.job) throw new UnauthorizedError();
      req.forgegate = createContext(deps, viewer, (req as ContextRequest & { requestId: string }).requestId);
      next();
    } catch (error) {
      if (!(error instanceof DomainError)) return next(error);
      if (graphql) res.status(error.status).json({ errors: [{ message: error.message, extensions: { code: error.code } }] });
      else res.status(error.status).json(error.body);
    }
  };
}

export function buildApp(deps: AppDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', false);
  app.use(requestLogging(deps));

  app.get('/-/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/-/readiness', async (_req, res) => {
    const checks = { database: false, migrations: false, repository_storage: false };
    try {
      await deps.db.$queryRaw`SELECT 1`;
      checks.database = true;
      checks.migrations = (await pendingMigrations(deps.db)).length === 0;
    } catch (error) {
      deps.log.warn({ err: error }, 'readiness: database check failed');
    }
    checks.repository_storage = await deps.git.isWritable();
    const ok = Object.values(checks).every(Boolean);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'failed', checks });
  });

  const yoga = createYoga<{ req: ContextRequest }, Context>({
    schema,
    graphqlEndpoint: '/api/graphql',
    renderGraphiQL,
    graphiql: { title: 'forgegate GraphiQL' },
    landingPage: false,
    healthCheckEndpoint: '/api/graphql/health',
    logging: false,
    context: ({ req }) => req.forgegate!,
    // GitLab's own ceilings (depth 20 for signed-in users) against expensive or abusive queries.
    plugins: [
      maxDepthPlugin({ n: 20, flattenFragments: true }),
      maxTokensPlugin({ n: 5000 }),
      maxAliasesPlugin({ n: 30 }),
      operationChecksPlugin(schema),
    ],
  });
  app.use('/api/graphql', authentication(deps, true), yoga.requestListener);

  const registry = new OperationRegistry(schema);
  app.use(
    '/api/v4',
    express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }),
    express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: 10_000 }),
    authentication(deps, false),
    restRouter(allRoutes, registry, deps),
  );
  // Archive, download and evidence addresses accept the same tokens as the API.
  app.use(restRouter(allWebRoutes, registry, deps, { before: [authentication(deps, false)], catchAll: false }));
  app.use(restErrorHandler(deps));
  return app;
}
