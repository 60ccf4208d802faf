import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createTestApp, EXTERNAL_URL, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import request from 'supertest';
import pg from 'pg';
import { inject } from 'vitest';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { createDb } from '../src/db/client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('config', () => {
  it('rejects bad values with a message naming them', () => {
    expect(() => loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ INITIAL_ROOT_TOKEN: 'short' })).toThrow(/INITIAL_ROOT_TOKEN/);
  });
  it('derives EXTERNAL_URL from PORT', () => {
    expect(loadConfig({ PORT: '4100' }).externalUrl).toBe('http://localhost:4100');
  });
});

describe('health and readiness', () => {
  it('does not crash when idle connections drop after Prisma has let go of the pool (shutdown)', async () => {
    const [{ database }] = await t.db.$queryRaw<{ database: string }[]>`SELECT current_database() AS database`;
    const url = new URL(inject('serverUrl'));
    url.pathname = `/${database}`;
    const { db, pool } = createDb(url.toString());
    await db.$queryRaw`SELECT 1`;
    await db.$disconnect();
    const outsider = new pg.Client(pgConfigFromUrl(inject('serverUrl')));
    await outsider.connect();
    const killed = await outsider.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = ''", [database]);
    await outsider.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    // Without a listener on the pool the dropped idle client raises an unhandled error here,
    // which fails the run.
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!pool.ended) await pool.end();
  });

  it('survives the database dropping its connections (no crash, next request reconnects)', async () => {
    await Promise.all([t.api('get', '/user').expect(200), t.api('get', '/projects').expect(200)]);
    const [{ database }] = await t.db.$queryRaw<{ database: string }[]>`SELECT current_database() AS database`;
    const outsider = new pg.Client(pgConfigFromUrl(inject('serverUrl')));
    await outsider.connect();
    const killed = await outsider.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
    await outsider.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let status = 0;
    for (let attempt = 0; attempt < 3 && status !== 200; attempt++) status = (await t.api('get', '/user')).status;
    expect(status).toBe(200);
  });

  it('answers health and a full readiness check', async () => {
    expect((await request(t.base).get('/-/health').expect(200)).body).toEqual({ status: 'ok' });
    const ready = await request(t.base).get('/-/readiness').expect(200);
    expect(ready.body.checks).toEqual({ database: true, migrations: true, repository_storage: true });
  });
});

describe('REST conventions', () => {
  it('answers unknown routes with GitLab 404 error body', async () => {
    const res = await t.api('get', '/no/such/route').expect(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
  });

  it('reports the version to signed-in users only', async () => {
    expect((await t.api('get', '/version').expect(200)).body.version).toMatch(/^\d+\.\d+\.\d+/);
    await t.api('get', '/version', null).expect(401);
  });

  it('answers missing parameters with Grape-style errors', async () => {
    const res = await t.api('post', '/groups').send({}).expect(400);
    expect(res.body).toEqual({ error: 'name is missing, path is missing' });
    const bad = await t.api('post', '/groups').send({ name: 'x', path: 'x', visibility: 'secret' }).expect(400);
    expect(bad.body).toEqual({ error: 'visibility does not have a valid value' });
  });

  it('accepts form-encoded bodies and nested arrays', async () => {
    const res = await t.api('post', '/groups').type('form').send('name=Form&path=form-group').expect(201);
    expect(res.body.full_path).toBe('form-group');
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await t.api('post', '/groups').set('content-type', 'application/json').send('{"name":').expect(400);
    expect(res.body).toEqual({ error: 'The request body is not valid JSON' });
  });
});

describe('authentication', () => {
  it('accepts PRIVATE-TOKEN, Bearer and private_token', async () => {
    const u = await t.user('authy');
    expect((await request(t.base).get('/api/v4/user').set('PRIVATE-TOKEN', u.token).expect(200)).body.username).toBe('authy');
    expect((await request(t.base).get('/api/v4/user').set('Authorization', `Bearer ${u.token}`).expect(200)).body.username).toBe('authy');
    expect((await request(t.base).get(`/api/v4/user?private_token=${u.token}`).expect(200)).body.username).toBe('authy');
  });

  it('answers 401 for no, unknown, revoked and expired tokens', async () => {
    await t.api('get', '/user', null).expect(401, { message: '401 Unauthorized' });
    await t.api('get', '/user', 'glpat-not-a-real-token-at-all').expect(401, { message: '401 Unauthorized' });
    const u = await t.user('revokee');
    await t.db.personalAccessToken.updateMany({ where: { userId: u.id }, data: { revoked: true } });
    const revoked = await t.api('get', '/user', u.token).expect(401);
    expect(revoked.body.error).toBe('invalid_token');
    const expired = await t.token(u.id, ['api'], { expiresAt: new Date('2020-01-01') });
    const res = await t.api('get', '/user', expired).expect(401);
    expect(res.body.error_description).toMatch(/expired/);
  });

  it('lets read_api read but not write, and read_user only read users', async () => {
    const u = await t.user('reader');
    const readApi = await t.token(u.id, ['read_api']);
    await t.api('get', '/projects', readApi).expect(200);
    const write = await t.api('post', '/groups', readApi).send({ name: 'g', path: 'g-read' }).expect(403);
    expect(write.body.error).toBe('insufficient_scope');
    const readUser = await t.token(u.id, ['read_user']);
    await t.api('get', '/user', readUser).expect(200);
    expect((await t.api('get', '/projects', readUser).expect(403)).body.error).toBe('insufficient_scope');
  });

  it('never stores tokens in clear', async () => {
    const u = await t.user('digesty');
    const rows = await t.db.personalAccessToken.findMany({ where: { userId: u.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].digest).not.toContain(u.token);
    expect(rows[0].digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('supports Sudo for admin tokens with the sudo scope only', async () => {
    const u = await t.user('sudoed');
    const res = await t.api('get', '/user').set('Sudo', 'sudoed').expect(200);
    expect(res.body.username).toBe('sudoed');
    expect((await t.api('get', '/user').set('Sudo', String(u.id)).expect(200)).body.id).toBe(u.id);
    await t.api('get', '/user', u.token).set('Sudo', 'root').expect(403, { message: '403 Forbidden - Must be admin to use sudo' });
    const plainAdmin = await t.token(t.root.id, ['api']);
    expect((await t.api('get', '/user', plainAdmin).set('Sudo', 'sudoed').expect(403)).body.error).toBe('insufficient_scope');
    await t.api('get', '/user').set('Sudo', 'nobody').expect(404);
  });

  it('answers GraphQL with 401 for a bad token and null currentUser when anonymous', async () => {
    const bad = await t.graphql('{ currentUser { username } }', {}, 'glpat-bogus-bogus-bogus-bogus');
    expect(bad.status).toBe(401);
    const anon = await t.graphql('{ currentUser { username } }', {}, null);
    expect(anon.body.data.currentUser).toBeNull();
  });

  it('refuses GraphQL mutations for read_api tokens', async () => {
    const u = await t.user('gqlreader');
    const readApi = await t.token(u.id, ['read_api']);
    const res = await t.graphql('mutation { groupCreate(input: { name: "x", path: "gql-x" }) { errors } }', {}, readApi);
    expect(res.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect(await t.db.namespace.count({ where: { path: 'gql-x' } })).toBe(0);
  });
});

describe('pagination', () => {
  it('writes GitLab headers and Link on EXTERNAL_URL', async () => {
    for (let i = 0; i < 5; i++)
      await t
        .api('post', '/groups')
        .send({ name: `Page ${i}`, path: `page-${i}` })
        .expect(201);
    const res = await t.api('get', '/groups?search=page&per_page=2&page=2').expect(200);
    expect(res.body).toHaveLength(2);
    expect(res.headers['x-page']).toBe('2');
    expect(res.headers['x-per-page']).toBe('2');
    expect(res.headers['x-next-page']).toBe('3');
    expect(res.headers['x-prev-page']).toBe('1');
    expect(res.headers['x-total']).toBe('5');
    expect(res.headers['x-total-pages']).toBe('3');
    expect(res.headers.link).toBe(
      [
        `<${EXTERNAL_URL}/api/v4/groups?page=1&per_page=2&search=page>; rel="prev"`,
        `<${EXTERNAL_URL}/api/v4/groups?page=3&per_page=2&search=page>; rel="next"`,
        `<${EXTERNAL_URL}/api/v4/groups?page=1&per_page=2&search=page>; rel="first"`,
        `<${EXTERNAL_URL}/api/v4/groups?page=3&per_page=2&search=page>; rel="last"`,
      ].join(', '),
    );
    const last = await t.api('get', '/groups?search=page&per_page=2&page=3').expect(200);
    expect(last.body).toHaveLength(1);
    expect(last.headers['x-next-page']).toBe('');
  });

  it('clamps per_page to 100 and keeps tokens out of Link', async () => {
    const res = await request(t.base).get(`/api/v4/groups?per_page=500&private_token=${t.root.token}`).expect(200);
    expect(res.headers['x-per-page']).toBe('100');
    expect(res.headers.link).not.toContain('private_token');
  });

  it('exposes Relay connections with totalCount over GraphQL', async () => {
    const res = await t.graphql('{ groups(search: "page", first: 2) { totalCount count pageInfo { hasNextPage } nodes { fullPath } } }');
    expect(res.body.data.groups.totalCount).toBe(5);
    expect(res.body.data.groups.nodes).toHaveLength(2);
    expect(res.body.data.groups.pageInfo.hasNextPage).toBe(true);
  });
});

describe('GraphQL limits', () => {
  it('refuses queries nested deeper than 20 levels', async () => {
    const deep = `{ project(fullPath: "a/b") { group { ${'parent { '.repeat(19)}id${' }'.repeat(19)} } } }`;
    const res = await t.graphql(deep);
    expect(res.body.errors[0].message).toBe('Query has depth of 22, which exceeds max depth of 20');
  });
});

describe('GraphiQL', () => {
  it('serves GraphiQL to a browser without any CDN', async () => {
    const res = await request(t.base).get('/api/graphql').set('Accept', 'text/html').expect(200);
    expect(res.text).toContain('forgegate GraphiQL');
    expect(res.text).not.toMatch(/unpkg\.com|jsdelivr|cdnjs/);
  });

  it('answers queries over GET', async () => {
    const res = await request(t.base)
      .get('/api/graphql')
      .query({ query: '{ currentUser { username } }' })
      .set('PRIVATE-TOKEN', t.root.token)
      .set('Accept', 'application/json')
      .expect(200);
    expect(res.body.data.currentUser.username).toBe('root');
  });
});

describe('query counts', () => {
  it('lists projects with a fixed number of SQL statements, whatever the page size', async () => {
    const { group } = await seedProject(t, { readme: false });
    for (let i = 0; i < 12; i++) {
      await t
        .api('post', '/projects')
        .send({ name: `Count ${i}`, namespace_id: group.id })
        .expect(201);
    }
    const measure = async (perPage: number) => {
      t.queryCounter.reset();
      const res = await t.api('get', `/groups/${group.id}/projects?per_page=${perPage}`).expect(200);
      expect(res.body).toHaveLength(perPage);
      return t.queryCounter.count;
    };
    await expectCounterSees(t, () => t.api('get', `/groups/${group.id}/projects?per_page=2`).expect(200));
    const small = await measure(2);
    const large = await measure(12);
    expect(large).toBe(small);
    expect(small).toBeGreaterThan(0);
    expect(small).toBeLessThanOrEqual(8);
  });
});
