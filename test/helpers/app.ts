import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { expect, inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { loadConfig } from '../../src/config.ts';
import { pgConfigFromUrl } from '../../src/db/adapter-fixes.ts';
import { QueryCounter } from '../../src/db/client.ts';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../src/server.ts';
import { createAppServer, type AppListener } from '../../src/http-server.ts';
import { createUserRecord } from '../../src/modules/users/service.ts';

export const EXTERNAL_URL = 'http://gitlab.test';

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/**
 * A new database cloned from the migrated template (milliseconds); returns its URL. `empty`: no
 * tables at all, as a first start against DATABASE_URL finds it.
 */
export async function createTestDatabase({ empty = false } = {}): Promise<string> {
  const serverUrl = inject('serverUrl');
  const database = `fg_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client(pgConfigFromUrl(serverUrl));
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"${empty ? '' : ` TEMPLATE "${inject('templateDatabase')}" STRATEGY ${inject('cloneStrategy')}`}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A fresh database (or `databaseUrl`, to share one as a second server process would), a temp
 * DATA_DIR, and the real app; `env` adds configuration. No worker runs unless a test starts one
 * (`t.startWorker()`) or runs queued jobs itself (`t.deps.jobs.drain()`).
 */
export async function createTestApp({
  env = {},
  databaseUrl,
  ...opts
}: Pick<RuntimeOptions, 'jobs' | 'flagDefinitionDirs'> & { env?: Record<string, string>; databaseUrl?: string } = {}) {
  const url = databaseUrl ?? (await createTestDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-test-'));
  // Token lookups are not cached unless a test asks (AUTH_CACHE_MS): statement counts stay exact.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    EXTERNAL_URL,
    TOKEN_DIGEST_KEY: randomBytes(32).toString('hex'),
    AUTH_CACHE_MS: '0',
    ...env,
  });
  const queryCounter = new QueryCounter();
  const runtime: Runtime = await startRuntime(config, { databaseUrl: url, queryCounter, jobMaintenance: false, ...opts });
  const { deps } = runtime;
  const app = buildApp(deps);
  const server = await listen(app);
  const served: Array<() => Promise<void>> = [];
  const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });

  async function token(userId: number, scopes: Scope[] = ['api'], extra: { expiresAt?: Date } = {}) {
    return (await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId, name: 'test', scopes, ...extra })).token;
  }

  let users = 0;
  /** A regular user with an `api` token. */
  async function user(name = `user${++users}`) {
    const created = await createUserRecord(deps.db, { username: name, name: name.toUpperCase(), email: `${name}@example.com` });
    return { ...created, token: await token(created.id) };
  }

  const rootToken = await token(root.id, ['api', 'sudo']);

  const api = (method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head', p: string, tok: string | null = rootToken) => {
    const r = request(server.url)[method](`/api/v4${p}`);
    return tok ? r.set('PRIVATE-TOKEN', tok) : r;
  };

  async function graphql(query: string, variables: Record<string, unknown> = {}, tok: string | null = rootToken) {
    const r = request(server.url).post('/api/graphql').send({ query, variables });
    const res = await (tok ? r.set('Authorization', `Bearer ${tok}`) : r);
    return res;
  }

  return {
    app,
    /** The app's own base URL (`http://127.0.0.1:port`), for supertest: `request(t.base)`. */
    base: server.url,
    url,
    deps,
    db: deps.db,
    config,
    queryCounter,
    root: { ...root, token: rootToken },
    token,
    user,
    api,
    graphql,
    databaseUrl: url,
    startWorker: runtime.startWorker,
    /**
     * Another app over the same deps (another engine, other options) on a port of its own, closed
     * with this one; returns its base URL, for supertest: `request(url)`.
     */
    async serve(other: AppListener): Promise<string> {
      const { url: base, close } = await listen(other);
      served.push(close);
      return base;
    },
    async close() {
      await Promise.all(served.map((close) => close()));
      await server.close();
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app on an ephemeral 127.0.0.1 port, for clients that need a real URL. Each test app has one
 * for its whole life (`t.base`): supertest given the app itself starts and stops a server for every
 * request, and one server with keep-alive connections costs a quarter less CPU per request, which
 * the suite's thousands of requests add up to.
 */
export async function listen(app: AppListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createAppServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Builds a group → subgroup → project tree through the REST API as root. */
export async function seedProject(t: TestApp, opts: { visibility?: string; readme?: boolean } = {}) {
  const group = (
    await t
      .api('post', '/groups')
      .send({ name: 'Acme', path: 'acme', visibility: opts.visibility ?? 'private' })
      .expect(201)
  ).body;
  const project = (
    await t
      .api('post', '/projects')
      .send({ name: 'App', namespace_id: group.id, visibility: opts.visibility ?? 'private', initialize_with_readme: opts.readme ?? true })
      .expect(201)
  ).body;
  return { group, project };
}

/** SQL statements the app's pool sent while `run` ran. */
export async function countQueries(t: TestApp, run: () => Promise<unknown>): Promise<number> {
  t.queryCounter.reset();
  await run();
  return t.queryCounter.count;
}

/**
 * Positive control for a query-count assertion: the counter sees statements one by one, both sent
 * straight through the app's pool and made by requests, so an equal or small count measured next
 * cannot come from a counter that sees nothing.
 */
export async function expectCounterSees(t: TestApp, request: () => Promise<unknown>) {
  expect(
    await countQueries(t, async () => {
      for (let i = 0; i < 7; i++) await t.db.$queryRaw`SELECT 1`;
    }),
  ).toBe(7);
  await request(); // settles once-per-token bookkeeping, as the measured requests do
  const once = await countQueries(t, request);
  expect(once).toBeGreaterThan(0);
  expect(
    await countQueries(t, async () => {
      for (let i = 0; i < 3; i++) await request();
    }),
  ).toBe(3 * once);
}
