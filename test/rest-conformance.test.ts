import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createDb } from '../src/db/client.ts';
import { SqlReader } from '../src/db/rows.ts';
import { restRoutes } from '../src/kernel.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let group: { id: number };
let member: { id: number; username: string; token: string };

const CACHE_CONTROL = 'max-age=0, private, must-revalidate';

/** GitLab's REST JSON answer headers, exactly: python-gitlab 3 compares the type verbatim. */
function expectGitLabJson(res: request.Response, what: string) {
  expect(res.headers['content-type'], what).toBe('application/json');
  expect(res.headers['cache-control'], what).toBe(CACHE_CONTROL);
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project, group } = await seedProject(t));
  member = await t.user('member');
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: member.id, access_level: 30 }).expect(201);
  await t
    .api('post', `/projects/${project.id}/releases`)
    .send({ tag_name: 'v1', ref: 'main', assets: { links: [{ name: 'a', url: 'https://x.test/a' }] } })
    .expect(201);
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1' }).expect(201);
  await t.api('post', `/groups/${group.id}/epics`).send({ title: 'E1' }).expect(201);
});
afterAll(() => t.close());

/** A REST route path with its parameters filled in from the seeded data. */
function concrete(path: string) {
  const groupRoute = path.startsWith('/groups/');
  return path
    .replace(/\{\.:format\}/, '.zip')
    .replace(/\{\/?\*suffix_path\}/, '')
    .replace(/\{\*direct_asset_path\}/, 'bin/app')
    .replace(':id', String(groupRoute ? group.id : project.id))
    .replace(/:user_id/g, String(t.root.id))
    .replace(/:tag_name/g, 'v1')
    .replace(/:file_path/g, 'README.md')
    .replace(/:sha/g, 'main')
    .replace(/:branch/g, 'main')
    .replace(/:milestone_id|:epic_iid|:link_id|:impersonation_token_id|:alert_iid|:integration_id|:award_id|:package_protection_rule_id/g, '1')
    .replace(/:slug|:name/g, 'slack');
}

describe('REST JSON answers carry exactly GitLab’s headers', () => {
  it('on every GET route, success or refusal, with and without a token', async () => {
    const statuses = new Map<number, number>();
    let json = 0;
    for (const route of restRoutes.filter((r) => r.method === 'GET')) {
      const path = concrete(route.path);
      for (const token of [t.root.token, null, member.token]) {
        const res = await t.api('get', `${path}${path.includes('/files/') ? '?ref=main' : ''}`, token);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) continue;
        json++;
        expectGitLabJson(res, `GET ${path} (${res.status})`);
      }
    }
    // The walk reached successes and the usual refusals, not one kind of answer only.
    expect(json).toBeGreaterThan(150);
    for (const status of [200, 401, 403, 404]) expect(statuses.get(status), `status ${status}`).toBeGreaterThan(0);
  });

  it('on writes and on each refusal: 201, 204, 400, 401, 403, 404, 409, 413, 422', async () => {
    const seen = new Set<number>();
    const check = async (r: request.Test, status: number) => {
      const res = await r;
      expect(res.status, res.text).toBe(status);
      seen.add(status);
      if (status !== 204) expectGitLabJson(res, `${status}`);
      return res;
    };
    await check(t.api('post', '/groups').send({ name: 'Json', path: 'json' }), 201);
    await check(t.api('put', `/projects/${project.id}`).send({ description: 'd' }), 200);
    await check(t.api('post', `/projects/${project.id}/repository/files/new.txt`).send({ branch: 'main', content: 'x', commit_message: 'add' }), 201);
    await check(t.api('delete', `/projects/${project.id}/repository/files/new.txt`).send({ branch: 'main', commit_message: 'rm' }), 204);
    await check(t.api('post', '/groups').send({}), 400);
    await check(t.api('post', '/groups').set('Content-Type', 'application/json').send('{bad'), 400);
    await check(t.api('get', '/user', 'glpat-not-a-token'), 401);
    await check(t.api('get', '/application/settings', member.token), 403);
    await check(t.api('get', '/projects/999999'), 404);
    await check(t.api('get', '/no/such/route'), 404);
    await check(t.api('post', `/projects/${project.id}/members`).send({ user_id: member.id, access_level: 30 }), 409);
    await check(
      t
        .api('post', '/groups')
        .set('Content-Type', 'application/json')
        .send(`{"name":"${'x'.repeat(11 * 1024 * 1024)}"}`),
      413,
    );
    await check(t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'no-such-tag' }), 422);
    await check(request(t.base).get('/api/v4/openapi.json'), 200);
    expect([...seen].sort()).toEqual([200, 201, 204, 400, 401, 403, 404, 409, 413, 422]);
  });

  it('on 503 when the database is gone, while GraphQL keeps its own JSON type', async () => {
    const { db, pool } = createDb('postgresql://postgres:x@127.0.0.1:1/none', {
      timeouts: { poolSize: 1, connectTimeoutMs: 500, statementTimeoutMs: 500, idleInTransactionTimeoutMs: 1_000 },
    });
    try {
      const res = await request(buildApp({ ...t.deps, db, sql: new SqlReader(pool) }))
        .get('/api/v4/projects')
        .set('PRIVATE-TOKEN', t.root.token)
        .expect(503);
      expectGitLabJson(res, '503');
      expect(res.body).toEqual({ message: '503 Service Unavailable' });
    } finally {
      await db.$disconnect();
      await pool.end();
    }
    const gql = await t.graphql('{ currentUser { username } }');
    expect(gql.headers['content-type']).toMatch(/^application\/(graphql-response\+)?json; charset=utf-8$/);
  });
});

describe('CORS on the API, as GitLab answers it', () => {
  it('answers preflights before authentication, for any origin, without credentials', async () => {
    const res = await request(t.base)
      .options(`/api/v4/projects/${project.id}/releases`)
      .set('Origin', 'https://elsewhere.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'private-token, content-type, x-custom')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    const allowed = res.headers['access-control-allow-headers'].split(', ').map((h: string) => h.toLowerCase());
    for (const h of ['private-token', 'job-token', 'authorization', 'content-type', 'x-custom']) expect(allowed).toContain(h);
    // The preflight of a path that needs a token answers without one; so does GraphQL's.
    await request(t.base).options('/api/v4/user').set('Origin', 'https://a.example').set('Access-Control-Request-Method', 'GET').expect(204);
    const gql = await request(t.base).options('/api/graphql').set('Origin', 'https://a.example').set('Access-Control-Request-Method', 'POST').expect(204);
    expect(gql.headers['access-control-allow-origin']).toBe('*');
  });

  it('lets a foreign page read answers and their pagination headers with a token, never with credentials', async () => {
    const res = await t.api('get', `/projects/${project.id}/releases`).set('Origin', 'https://elsewhere.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toContain('X-Total');
    const refused = await t.api('get', '/user', 'glpat-nope').set('Origin', 'https://elsewhere.example').expect(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    // Without an Origin, no CORS headers at all.
    expect((await t.api('get', '/version')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('never reflects an arbitrary Origin with credentials on /api/graphql; the instance’s own origin gets them', async () => {
    const evil = await request(t.base).post('/api/graphql').set('Origin', 'https://evil.example').send({ query: '{ __typename }' }).expect(200);
    expect(evil.headers['access-control-allow-origin']).toBe('*');
    expect(evil.headers['access-control-allow-credentials']).toBeUndefined();
    const own = await request(t.base).post('/api/graphql').set('Origin', 'http://gitlab.test').send({ query: '{ __typename }' }).expect(200);
    expect(own.headers['access-control-allow-origin']).toBe('http://gitlab.test');
    expect(own.headers['access-control-allow-credentials']).toBe('true');
  });
});

describe('multipart/form-data bodies', () => {
  const form = (method: 'post' | 'put', path: string, fields: Record<string, string>, token = t.root.token) => {
    let r = request(t.base)[method](`/api/v4${path}`).set('PRIVATE-TOKEN', token);
    for (const [name, value] of Object.entries(fields)) r = r.field(name, value);
    return r;
  };

  it('are read like forms: user and project edits, creations with nested fields, files ignored', async () => {
    const edited = await form('put', `/users/${member.id}`, { name: 'Edited By Form' }).expect(200);
    expect(edited.body.name).toBe('Edited By Form');
    expect((await t.api('get', `/users/${member.id}`).expect(200)).body.name).toBe('Edited By Form');
    const updated = await form('put', `/projects/${project.id}`, { description: 'from multipart', 'topics[]': 'ci' })
      .attach('avatar', Buffer.from('png'), 'a.png')
      .expect(200);
    expect(updated.body).toMatchObject({ description: 'from multipart', topics: ['ci'] });
    const release = await form('post', `/projects/${project.id}/releases`, {
      tag_name: 'form-1',
      ref: 'main',
      'assets[links][][name]': 'bin',
      'assets[links][][url]': 'https://x.test/bin',
    }).expect(201);
    expect(release.body.assets.links).toMatchObject([{ name: 'bin', url: 'https://x.test/bin' }]);
    // Params are checked the same way: a missing field is Grape's 400.
    expect((await form('post', '/groups', { path: 'nameless' }).expect(400)).body).toEqual({ error: 'name is missing' });
  });

  it('spools file parts up to MAX_UPLOAD_SIZE_MB and refuses a bigger one with 413', async () => {
    const small = await createTestApp({ env: { MAX_UPLOAD_SIZE_MB: '1' } });
    try {
      const res = await request(small.app)
        .put(`/api/v4/user`)
        .set('PRIVATE-TOKEN', small.root.token)
        .field('bio', 'x')
        .attach('avatar', Buffer.alloc(2 * 1024 * 1024, 'a'), 'big.png');
      expect(res.status).toBe(413);
      expectGitLabJson(res, 'multipart 413');
    } finally {
      await small.close();
    }
  });

  it('refuses malformed bodies with 400 and bodies past the caps with 413', async () => {
    const raw = (body: string, type = 'multipart/form-data; boundary=XyZ') =>
      request(t.base).put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', t.root.token).set('Content-Type', type).send(body);
    const truncated = await raw('--XyZ\r\nContent-Disposition: form-data; name="description"\r\n\r\nunfinished');
    expect(truncated.status).toBe(400);
    expect(truncated.body.error).toMatch(/not valid multipart\/form-data/);
    expectGitLabJson(truncated, 'multipart 400');
    await raw('whatever', 'multipart/form-data').expect(400);
    // Text fields share the form cap (10 MB); a file part has its own (MAX_UPLOAD_SIZE_MB, tested where files are uploaded).
    await form('put', `/projects/${project.id}`, { description: 'x'.repeat(11 * 1024 * 1024) }).expect(413);
    // Nothing of the refused bodies was applied.
    expect((await t.api('get', `/projects/${project.id}`).expect(200)).body.description).toBe('from multipart');
  });
});
