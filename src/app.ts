import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type RequestHandler, type Response } from 'express';
import type { YogaServerOptions } from 'graphql-yoga';
import { authenticate, readCredentials } from './auth/authenticate.ts';
import type { AppDeps } from './deps.ts';
import { AppMetrics } from './metrics.ts';
import { createContext, type Context } from './core/context.ts';
import { TooManyRequestsError, UnauthorizedError } from './core/errors.ts';
import { jitExecutionPlugin, loadJit, type ExecutionEngine } from './graphql/jit.ts';
import { operationChecksPlugin } from './graphql/operation-checks.ts';
import { jsonBytesPlugin } from './graphql/answers.ts';
import { batchLimit, GRAPHQL_BODY_LIMIT, graphqlJsonBody, MAX_BATCH_OPERATIONS } from './graphql/request-body.ts';
import { databaseAnswers, describeMissing, pendingMigrations, sampleRepositoryStorage } from './db/readiness.ts';
import { OPENAPI_PATH, openApiDocument } from './rest/openapi.ts';
import { OperationRegistry } from './rest/operations.ts';
import { mergeSlashes, refuseDeepJson, rejectUnstorableText } from './rest/edge.ts';
import { apiCors } from './rest/cors.ts';
import { apiJsonAnswers } from './rest/json.ts';
import { multipartBody } from './rest/multipart.ts';
import { knownError, restErrorHandler, restRouter, type ContextRequest } from './rest/router.ts';
import { machineEndpoints, operationDocuments, restAreas, restRoutes, schema, webRoutes } from './kernel.ts';

const BODY_LIMIT = '10mb';
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const PARAMETER_LIMIT = 10_000;

function requestLogging(deps: AppDeps) {
  return (req: ContextRequest, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = req.header('x-request-id')?.slice(0, 64) || randomUUID();
    res.set('X-Request-Id', requestId);
    req.requestId = requestId;
    res.on('finish', () => {
      // req.path only: the query string may carry private_token.
      deps.log.info(
        {
          requestId,
          method: req.method,
          path: req.baseUrl + req.path,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          userId: req.forgegate?.viewer.userId ?? null,
        },
        'request',
      );
    });
    next();
  };
}

/** The throttles' plain-text 429, as GitLab's Rack::Attack answers it. */
function sendThrottled(res: Response, error: TooManyRequestsError) {
  res.status(429).set(error.headers).type('text/plain').send('Retry later\n');
}

/**
 * The viewer behind the request's credentials, behind GitLab's failed-authentication ban: a banned
 * IP's credentialed requests are refused (403) before any lookup, every bad credential counts
 * towards a ban, a good one resets the count.
 */
async function viewerBehindBan(deps: AppDeps, req: ContextRequest, ip: string) {
  const credentials = readCredentials(req);
  const credentialed = Boolean(credentials.token || credentials.jobToken);
  return deps.throttle.authenticateBehindBan(ip, credentialed, () => authenticate(deps, deps.secrets.tokenDigestKey, credentials, deps.viewers));
}

/**
 * Resolves the viewer once per request; a bad credential is answered before any route runs, and
 * so are the API throttles. A database that is down is a 503 here too. Errors are logged with the
 * request id even though no viewer exists yet.
 */
function authentication(deps: AppDeps, graphql: boolean) {
  return async (req: ContextRequest, res: Response, next: NextFunction) => {
    const ip = req.socket.remoteAddress ?? 'unknown';
    try {
      const viewer = await viewerBehindBan(deps, req, ip);
      await deps.throttle.throttle({ userId: viewer.userId, ip });
      // Job tokens are for the REST routes that declare them, not for GraphQL.
      if (graphql && viewer.job) throw new UnauthorizedError();
      req.forgegate = createContext(deps, viewer, req.requestId);
      next();
    } catch (error) {
      const known = knownError(error);
      if (!known) return next(error);
      if (known.status === 503) deps.log.warn({ err: error, requestId: req.requestId }, 'database unavailable');
      if (known instanceof TooManyRequestsError) return sendThrottled(res, known);
      res.set(known.headers).status(known.status);
      if (graphql) res.json({ errors: [{ message: known.message, extensions: { code: known.code } }] });
      else res.json(known.body);
    }
  };
}

/** Readiness answers within this, whatever the database does (a probe must never hang). */
const READINESS_TIMEOUT_MS = 1_500;

const within = <T>(work: Promise<T>, ms: number): Promise<T> =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

export type AppOptions = {
  /** How the REST facade executes its operations (tests compare graphql-jit with graphql-js). */
  restEngine?: ExecutionEngine;
  /** How /api/graphql executes (the same comparison; the reference there is Yoga's own executor). */
  graphqlEngine?: ExecutionEngine;
};

/**
 * /api/graphql through graphql-yoga, which is loaded (with its armor plugins) and built on the
 * endpoint's first request: importing them cost ~0.4-0.6 s of every start on two cores, and the
 * memory they hold for good, in processes that may never be asked a GraphQL question (workers, the
 * CLI, REST-only clients, most test servers). Concurrent first requests wait for the same build.
 */
function lazyGraphqlEndpoint(deps: AppDeps, opts: AppOptions) {
  let listener: Promise<RequestHandler> | undefined;
  const build = async (): Promise<RequestHandler> => {
    const { createYoga } = await import('graphql-yoga');
    const yoga = createYoga<{ req: ContextRequest }, Context>(await yogaOptions(deps, opts));
    return yoga.requestListener as unknown as RequestHandler;
  };
  return async (req: ContextRequest, res: Response, next: NextFunction) => {
    listener ??= build();
    // A failed import is retried by the next request rather than kept.
    const handle = await listener.catch((error: unknown) => {
      listener = undefined;
      throw error;
    });
    return handle(req, res, next);
  };
}

async function yogaOptions(deps: AppDeps, opts: AppOptions): Promise<YogaServerOptions<{ req: ContextRequest }, Context>> {
  const [{ queryLimits }] = await Promise.all([import('./graphql/armor.ts'), loadJit()]);
  return {
    schema,
    graphqlEndpoint: '/api/graphql',
    // The self-contained GraphiQL bundle is large once loaded: only when the page is asked for.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    graphiql: { title: 'forgegate GraphiQL' },
    landingPage: false,
    healthCheckEndpoint: '/api/graphql/health',
    maxRequestBodySize: GRAPHQL_BODY_LIMIT,
    batching: { limit: MAX_BATCH_OPERATIONS },
    cors: false,
    logging: false,
    context: ({ req }) => req.forgegate!,
    plugins: [
      batchLimit(),
      ...queryLimits(),
      // Before the checks: their deadline wraps whichever executor runs.
      jitExecutionPlugin(opts.graphqlEngine),
      operationChecksPlugin(schema, deps.config.graphqlTimeoutMs),
      jsonBytesPlugin(),
    ],
  };
}

export function buildApp(deps: AppDeps, opts: AppOptions = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', false);
  app.use(mergeSlashes);
  app.use(requestLogging(deps));
  const metrics = new AppMetrics(deps);
  app.use(metrics.track());
  app.get('/-/metrics', metrics.handler());

  app.get('/-/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/-/readiness', async (_req, res) => {
    const checks = { database: false, migrations: false, repository_storage: false };
    const database = async () => {
      await databaseAnswers(deps.db);
      checks.database = true;
      checks.migrations = (await pendingMigrations(deps.db)).length === 0;
    };
    const [db, writable, sample] = await Promise.allSettled([
      within(database(), READINESS_TIMEOUT_MS),
      within(deps.git.isWritable(), READINESS_TIMEOUT_MS),
      within(sampleRepositoryStorage(deps.db, deps.git), READINESS_TIMEOUT_MS),
    ]);
    if (db.status === 'rejected') deps.log.warn({ err: db.reason }, 'readiness: database check failed');
    // Without the database there is no list to compare the storage with: that is the database check's failure.
    const missing = sample.status === 'fulfilled' && sample.value.missing.length ? sample.value : null;
    const storable = writable.status === 'fulfilled' && writable.value;
    checks.repository_storage = storable && !missing;
    const ok = Object.values(checks).every(Boolean);
    const problem = !storable ? 'the repository storage is not writable' : missing && describeMissing(missing);
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'failed', checks, ...(problem && { repository_storage_check: [{ status: 'failed', message: problem }] }) });
  });

  const graphql = lazyGraphqlEndpoint(deps, opts);
  // CORS for the whole API (REST and GraphQL) is answered here, Yoga's own (which reflects any Origin with credentials) is off.
  app.use('/api', apiCors(deps.config.externalUrl));
  app.use('/api/graphql', rejectUnstorableText, authentication(deps, true), graphqlJsonBody(), graphql);

  const registry = new OperationRegistry(schema, operationDocuments, deps.config.graphqlTimeoutMs, opts.restEngine);
  // Public like GitLab's API documentation: answered before authentication, so no credential (or a bad one) matters.
  // Built by the first request for it (not on every start), then kept.
  let openApi: ReturnType<typeof openApiDocument> | undefined;
  app.use('/api/v4', apiJsonAnswers);
  app.get(`/api/v4${OPENAPI_PATH}`, (_req, res) => {
    openApi ??= openApiDocument(restAreas, deps.config.externalUrl);
    res.json(openApi);
  });
  app.use(
    '/api/v4',
    express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }),
    // Form field names nest at most 32 brackets deep: body-parser's default depth, and Rack's, as GitLab.
    express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: PARAMETER_LIMIT }),
    multipartBody(deps.config.dataDir, { fieldBytes: BODY_LIMIT_BYTES, parts: PARAMETER_LIMIT, fileBytes: deps.config.maxUploadBytes, files: 4 }),
    rejectUnstorableText,
    authentication(deps, false),
    restRouter(restRoutes, registry, deps),
  );
  // Alert intake (the endpoint's key) and git over HTTP / Git LFS (HTTP Basic with tokens) authenticate on their own.
  for (const endpoints of machineEndpoints) app.use(endpoints(deps));
  // Archive, download and evidence addresses accept the same tokens as the API.
  app.use(restRouter(webRoutes, registry, deps, { before: [rejectUnstorableText, authentication(deps, false)], catchAll: false }));
  app.use(restErrorHandler(deps));
  return app;
}
