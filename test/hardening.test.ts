import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import request from 'supertest';
import { parse } from 'graphql';
import type { Scope } from '../src/auth/scopes.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { issueJobToken } from '../src/auth/job-tokens.ts';
import { createDb } from '../src/db/client.ts';
import { SqlReader } from '../src/db/rows.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { checkOperationScopes, MAX_COMPLEXITY, operationComplexity, QueryTimeoutError, withDeadline } from '../src/graphql/operation-checks.ts';
import { OperationRegistry } from '../src/rest/operations.ts';
import { operationDocuments, restRoutes, schema } from '../src/kernel.ts';
import { createTestApp, createTestDatabase, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let base: string;
let projectId: number;
beforeAll(async () => {
  t = await createTestApp();
  const { project } = await seedProject(t, { visibility: 'public' });
  projectId = project.id;
  base = `/projects/${project.id}`;
  await t.api('post', `${base}/milestones`).send({ title: 'v1' }).expect(201);
  await t.api('post', `${base}/labels`).send({ name: 'bug', color: '#ff0000' }).expect(201);
  await t.api('post', `${base}/releases`).send({ tag_name: 'v1.0', ref: 'main', name: 'One' }).expect(201);
});
afterAll(() => t.close());

/** A logger that keeps what it writes, one parsed JSON line per entry. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('GraphQL cost limits', () => {
  const hostile = `{ project(fullPath: "acme/app") { ${Array.from({ length: 30 }, (_, i) => `a${i}: releases(first: 100) { nodes { name assets { links(first: 100) { nodes { url name } } } } }`).join(' ')} } }`;

  it("refuses the 30 × releases(100) × links(100) query before running it, naming the limit (GitLab's numbers)", async () => {
    const anonymous = await t.graphql(hostile, {}, null);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data).toBeUndefined();
    expect(anonymous.body.errors[0].message).toMatch(/^Query has complexity of \d+, which exceeds max complexity of 200$/);
    const signedIn = await t.graphql(hostile, {}, (await t.user()).token);
    expect(signedIn.body.errors[0].message).toMatch(/exceeds max complexity of 250$/);
    const admin = await t.graphql(hostile);
    expect(admin.body.errors[0].message).toMatch(/exceeds max complexity of 300$/);
  });

  it('multiplies by connections: a page of 100 doubles, nested pages multiply, first/last above 100 count as 100', () => {
    const cost = (q: string) => operationComplexity(schema, parse(q));
    expect(cost('{ project(fullPath: "a") { name } }')).toBe(2);
    // (nodes 1 + name 1) + 1 resolver, × (1 + 10/100)
    expect(cost('{ project(fullPath: "a") { releases(first: 10) { nodes { name } } } }')).toBe(1 + Math.floor(3 * 1.1));
    expect(cost('{ project(fullPath: "a") { releases(first: 100) { nodes { name } } } }')).toBe(1 + 6);
    expect(cost('{ project(fullPath: "a") { releases(first: 5000) { nodes { name } } } }')).toBe(1 + 6);
    const nested = cost('{ project(fullPath: "a") { releases(first: 100) { nodes { assets { links(first: 100) { nodes { url } } } } } } }');
    // links: (nodes 1 + url 1 + 1) × 2 = 6; assets 1 + 6; releases: (nodes 1 + 7 + 1) × 2 = 18
    expect(nested).toBe(1 + 18);
    // Skipped selections cost nothing.
    expect(cost('query($s: Boolean = true) { project(fullPath: "a") { name @skip(if: $s) path } }')).toBe(2);
    expect(cost('query($n: Int) { project(fullPath: "a") { releases(first: $n) { nodes { name } } } }')).toBe(7);
    expect(operationComplexity(schema, parse('query($n: Int) { project(fullPath: "a") { releases(first: $n) { nodes { name } } } }'), null, { n: 0 })).toBe(4);
  });

  it('costs a list read whole once, and only where the operation reads whole lists (the REST facade)', () => {
    const whole = parse('{ project(fullPath: "a") { releases(first: 100) { nodes { assets { links { nodes { url } } } } } } }');
    // links: (nodes 1 + url 1 + 1) × 1 = 3; assets 1 + 3; releases: (nodes 1 + 4 + 1) × 2 = 12
    expect(operationComplexity(schema, whole, null, {}, { wholeLists: true })).toBe(1 + 12);
    // Over GraphQL the same connection is a page of up to 100: (1 + 1 + 1) × 2 = 6; assets 7; releases (1 + 7 + 1) × 2 = 18.
    expect(operationComplexity(schema, whole)).toBe(1 + 18);
    // A page asked for costs its size either way.
    const paged = parse('{ project(fullPath: "a") { releases(first: 100) { nodes { assets { links(first: 100) { nodes { url } } } } } } }');
    expect(operationComplexity(schema, paged, null, {}, { wholeLists: true })).toBe(1 + 18);
  });

  it('keeps every REST operation within the anonymous limit at the largest page (and reports the heaviest)', () => {
    const registry = new OperationRegistry(schema, operationDocuments);
    const costs = restRoutes.map((r) => ({
      operation: r.operation,
      cost: operationComplexity(schema, registry.document(r.operation), r.operation, r.paginated ? { first: 100 } : {}, { wholeLists: true }),
    }));
    const heaviest = costs.reduce((a, b) => (b.cost > a.cost ? b : a));
    console.log(`heaviest REST operation: ${heaviest.operation}, complexity ${heaviest.cost} (limit ${MAX_COMPLEXITY.anonymous})`);
    expect(heaviest.cost).toBeGreaterThan(10);
    expect(costs.filter((c) => c.cost > MAX_COMPLEXITY.anonymous)).toEqual([]);
  });

  it('answers a query that runs past the execution limit with an error instead of waiting', async () => {
    await expect(withDeadline(new Promise(() => {}), 20)).rejects.toBeInstanceOf(QueryTimeoutError);
    await expect(withDeadline(Promise.resolve(7), 1_000)).resolves.toBe(7);
  });
});

describe('bad input is 4xx, never 500', () => {
  it('refuses bad percent-encoding in paths', async () => {
    const res = await t.api('get', `/projects/%E0%A4%A/milestones`).expect(400);
    expect(res.body.error).toMatch(/decode/);
    await t.api('get', `${base}/repository/files/%E0%A4%A?ref=main`).expect(400);
  });

  it('refuses NUL bytes in every text, REST and GraphQL, with or without a token', async () => {
    const cases: [string, () => request.Test][] = [
      ['search', () => t.api('get', '/projects?search=a%00b', null)],
      ['username', () => t.api('get', '/users?username=ro%00ot')],
      ['group path', () => t.api('post', '/groups').send({ name: 'n', path: 'p\0q' })],
      ['milestone title', () => t.api('post', `${base}/milestones`).send({ title: 'a\0b' })],
      ['label', () => t.api('post', `${base}/labels`).type('form').send('name=x%00y&color=%23ff0000')],
      ['release name', () => t.api('post', `${base}/releases`).send({ tag_name: 'v9', ref: 'main', name: 'x\0' })],
      ['description', () => t.api('put', `${base}/releases/v1.0`).send({ description: { nested: ['a\0'] } })],
      ['commit message', () => t.api('post', `${base}/repository/files/n.txt`).send({ branch: 'main', content: 'x', commit_message: 'cut\0here' })],
      ['sudo', () => t.api('get', '/user?sudo=ro%00ot')],
      ['path', () => t.api('get', `${base}/repository/files/a%00b?ref=main`)],
    ];
    for (const [name, send] of cases) {
      const res = await send();
      expect(res.status, name).toBe(400);
      expect(JSON.stringify(res.body), name).toMatch(/null byte/);
    }
    const gql = await t.graphql('mutation($t: String!) { milestoneCreate(input: { projectId: 1, title: $t }) { errors } }', { t: 'a\u0000b' });
    expect(gql.body.errors[0].message).toBe('$t contains a null byte');
    const literal = await t.graphql('{ projects(search: "a\\u0000b") { count } }', {}, null);
    expect(literal.body.errors[0].message).toBe('the query contains a null byte');
    expect(await t.db.milestone.count({ where: { title: { contains: 'a' } } })).toBe(0);
  });

  it("answers the body parser's refusals with 400 (charset, Content-Encoding, too many or too deep form fields)", async () => {
    const post = () => t.api('post', '/groups');
    await post().set('Content-Type', 'application/json; charset=utf-7').send('{"name":"x"}').expect(400);
    await post().set('Content-Type', 'application/json').set('Content-Encoding', 'snappy').send('{"name":"x"}').expect(400);
    const many = Array.from({ length: 10_001 }, (_, i) => `f${i}=1`).join('&');
    await post().type('form').send(many).expect(400);
    await post()
      .type('form')
      .send(`a${'[b]'.repeat(40)}=1`)
      .expect(400);
    // The documented refusals keep their own answers.
    expect((await post().set('Content-Type', 'application/json').send('{bad').expect(400)).body).toEqual({ error: 'The request body is not valid JSON' });
  });

  it('refuses dates PostgreSQL cannot store, REST and GraphQL', async () => {
    const res = await t.api('post', `${base}/milestones`).send({ title: 'old', due_date: '0000-01-01' }).expect(400);
    expect(res.body).toEqual({ error: 'due_date is invalid' });
    await t.api('post', `${base}/releases`).send({ tag_name: 'v0', ref: 'main', released_at: '0000-01-01T00:00:00Z' }).expect(400);
    await t.api('get', `${base}/releases?updated_before=0000-06-01T00:00:00Z`).expect(400);
    const gql = await t.graphql(`{ project(id: ${projectId}) { releases(updatedBefore: "0000-01-01T00:00:00Z") { count } } }`);
    expect(gql.status).toBeLessThan(500);
    expect(gql.body.errors[0].message).toMatch(/between the years 1 and 9999/);
  });

  describe('nesting depth (GitLab: 32, "Parameters nested too deeply")', () => {
    const deepObject = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
    const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const tooDeep = { error: 'Parameters nested too deeply' };

    it('refuses a JSON body nested 5,000 deep with 400 before parsing it, anonymous or not, on any route', async () => {
      for (const body of [deepObject(5_000), deepArray(5_000), `{"name":"x","path":"y","d":${deepArray(5_000)}}`]) {
        for (const token of [null, t.root.token]) {
          const res = await t.api('post', '/groups', token).set('Content-Type', 'application/json').send(body);
          expect([res.status, res.body]).toEqual([400, tooDeep]);
        }
      }
      const put = await t.api('put', `${base}/milestones/1`, null).set('Content-Type', 'application/vnd.api+json').send(deepArray(5_000));
      expect([put.status, put.body]).toEqual([400, tooDeep]);
      // GitLab's limit exactly: 32 levels are read, 33 are not; brackets inside strings are text.
      const at = await t
        .api('post', '/groups')
        .set('Content-Type', 'application/json')
        .send(`{"name":"d32","path":"d32","d":${deepArray(31)}}`);
      expect(at.status).toBe(201);
      const past = await t
        .api('post', '/groups')
        .set('Content-Type', 'application/json')
        .send(`{"name":"d33","path":"d33","d":${deepArray(32)}}`);
      expect([past.status, past.body]).toEqual([400, tooDeep]);
      const text = await t
        .api('post', '/groups')
        .set('Content-Type', 'application/json')
        .send({ name: 'br', path: 'br', description: `${'[{"'.repeat(5_000)}` });
      expect(text.status).toBe(201);
      expect(await t.db.namespace.count({ where: { path: { in: ['d33', 'y'] } } })).toBe(0);
    });

    it('refuses form and multipart field names nested 5,000 deep with the same 400', async () => {
      const form = await t
        .api('post', '/groups', null)
        .type('form')
        .send(`name=x&a${'[b]'.repeat(5_000)}=1`);
      expect([form.status, form.body]).toEqual([400, tooDeep]);
      const arrays = await t
        .api('post', '/groups')
        .type('form')
        .send(`a${'[]'.repeat(5_000)}=1`);
      expect([arrays.status, arrays.body]).toEqual([400, tooDeep]);
      // Multipart field names are capped at 1 KB (413), so 300 levels is as deep as one can go.
      const multipart = await t.api('post', '/groups', null).field(`a${'[b]'.repeat(300)}`, '1');
      expect([multipart.status, multipart.body]).toEqual([400, tooDeep]);
      await t
        .api('post', '/groups')
        .type('form')
        .send(`name=f32&path=f32&a${'[b]'.repeat(32)}=1`)
        .expect(201);
      expect(
        (
          await t
            .api('post', '/groups')
            .type('form')
            .send(`name=f33&path=f33&a${'[b]'.repeat(33)}=1`)
        ).body,
      ).toEqual(tooDeep);
    });
  });

  it('refuses a multipart part without a name with 400 (busboy hands it over nameless; it threw outside the request)', async () => {
    for (const disposition of ['form-data', 'form-data; name=""', 'form-data; filename="a.txt"']) {
      const res = await t
        .api('post', '/groups', null)
        .set('Content-Type', 'multipart/form-data; boundary=XyZ')
        .send(`--XyZ\r\nContent-Disposition: ${disposition}\r\n\r\nv\r\n--XyZ--\r\n`);
      expect([res.status, res.body], disposition).toEqual([400, { error: 'The request body is not valid multipart/form-data: a part has no name' }]);
    }
    await request(t.base).get('/-/health').expect(200);
  });

  describe('unpaired surrogates (a JSON "\\ud800" escape) are refused like NUL bytes', () => {
    it('in a REST JSON body field or key, naming the parameter; a real pair is text', async () => {
      const send = (body: string) => t.api('post', `${base}/milestones`).set('Content-Type', 'application/json').send(body);
      expect((await send('{"title":"a\\ud800b"}').expect(400)).body).toEqual({ error: 'title contains an unpaired surrogate' });
      expect((await send('{"title":"x\\udc00"}').expect(400)).body).toEqual({ error: 'title contains an unpaired surrogate' });
      expect((await send('{"title":"ok","description":{"k\\ud800":"v"}}').expect(400)).body).toEqual({
        error: 'description[k\ufffd] contains an unpaired surrogate',
      });
      expect(
        (await t.api('put', `${base}/releases/v1.0`, null).set('Content-Type', 'application/json').send('{"description":["\\ud83d"]}').expect(400)).body,
      ).toEqual({
        error: 'description[0] contains an unpaired surrogate',
      });
      expect(await t.db.milestone.count({ where: { title: { in: ['a\ufffdb', 'x\ufffd', 'ok'] } } })).toBe(0);
      const pair = await send('{"title":"smile \\ud83d\\ude00"}').expect(201);
      expect(pair.body.title).toBe('smile 😀');
    });

    it('in a GraphQL variable, as for NUL bytes', async () => {
      const res = await t.graphql(`mutation($t: String!) { milestoneCreate(input: { projectId: ${projectId}, title: $t }) { errors } }`, { t: 'lone\ud800' });
      expect(res.status).toBe(200);
      expect(res.body.errors[0].message).toBe('$t contains an unpaired surrogate');
      const nested = await t.graphql('mutation($i: MilestoneCreateInput!) { milestoneCreate(input: $i) { errors } }', {
        i: { projectId, title: 'lone\udfff' },
      });
      expect(nested.body.errors[0].message).toBe('$i[title] contains an unpaired surrogate');
      expect(await t.db.milestone.count({ where: { title: { startsWith: 'lone' } } })).toBe(0);
    });

    it("in an alert payload: 400 with an empty body (the intake's answer), nothing stored; dates past PostgreSQL read as absent", async () => {
      const created = await t.graphql(
        'mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { integration { token url } errors } }',
        {
          input: { projectPath: 'acme/app', name: 'Hostile', active: true },
        },
      );
      const { token, url } = created.body.data.httpIntegrationCreate.integration;
      const notify = (body: string) =>
        request(t.base).post(new URL(url).pathname).set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(body);
      const before = await t.db.alert.count();
      for (const body of ['{"title":"disk \\ud800 full"}', '{"title":"t","hosts":["\\udc00"]}', '{"title":"t","labels":{"\\ud800":1}}']) {
        const res = await notify(body);
        expect([res.status, res.text], body).toEqual([400, '']);
      }
      const deep = await notify(`{"title":"deep","d":${'['.repeat(5_000)}${']'.repeat(5_000)}}`);
      expect([deep.status, deep.text]).toEqual([400, '']);
      expect(await t.db.alert.count()).toBe(before);
      // A title cut at 200 characters keeps surrogate pairs whole.
      const cut = await notify(JSON.stringify({ title: `${'x'.repeat(199)}😀` })).expect(200);
      expect(cut.body[0].title).toBe('x'.repeat(199));
      const started = Date.now();
      for (const start of ['"0000-01-01T00:00:00Z"', '"0001-01-01T00:00:00+01:00"', '"10000-01-01T00:00:00Z"', '-99999999999999', '1e300']) {
        const res = await notify(`{"title":"when ${start.replaceAll('"', '')}","start_time":${start}}`);
        expect(res.status, start).toBe(200);
        const alert = await t.db.alert.findFirstOrThrow({ where: { title: `when ${start.replaceAll('"', '')}` } });
        expect(alert.startedAt.getTime(), start).toBeGreaterThanOrEqual(started - 1_000);
      }
    });
  });

  it("answers ids beyond 2^31 with GitLab's 404, not GraphQL's type errors", async () => {
    const big = '99999999999999999999';
    expect((await t.api('get', `/projects/${big}`).expect(404)).body).toEqual({ message: '404 Project Not Found' });
    expect((await t.api('get', `/users/${big}`).expect(404)).body).toEqual({ message: '404 User Not Found' });
    expect((await t.api('get', `${base}/milestones/${big}`).expect(404)).body.message).toMatch(/404 .*Not Found/);
    expect((await t.api('get', `/projects/${projectId}/members/${big}`).expect(404)).body.message).toMatch(/404 .*Not Found/);
    expect((await t.api('get', `/user`).set('Sudo', big).expect(404)).body).toEqual({ message: `404 User with ID or username '${big}' Not Found` });
    // Counts past int4 read as the largest: per_page is clamped to 100, a page that far is empty.
    const perPage = await t.api('get', `/projects?per_page=${big}`).expect(200);
    expect(perPage.headers['x-per-page']).toBe('100');
    const page = await t.api('get', `/projects?page=${big}`);
    expect(page.status).toBeLessThan(500);
    expect(JSON.stringify(page.body)).not.toMatch(/GraphQL|Int cannot|Variable/);
  });

  it('refuses a malformed GraphQL cursor as a bad argument', async () => {
    for (const after of ['bogus', 'T2Zmc2V0Q29ubmVjdGlvbjp4', '%%%']) {
      const res = await t.graphql('query($a: String) { projects(after: $a) { count } }', { a: after }, null);
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors[0].message).toBe('Please provide a valid cursor');
    }
  });

  it('escapes LIKE wildcards in search', async () => {
    expect((await t.api('get', '/projects?search=%25').expect(200)).body).toEqual([]);
    expect((await t.api('get', '/projects?search=_').expect(200)).body).toEqual([]);
    expect((await t.api('get', '/projects?search=app').expect(200)).body).toHaveLength(1);
    expect((await t.api('get', '/users?search=%25').expect(200)).body).toEqual([]);
    // Exact, case-insensitive lookups are not patterns either.
    expect((await t.api('get', '/users?username=r%25').expect(200)).body).toEqual([]);
    expect((await t.api('get', '/users?username=ROOT').expect(200)).body).toHaveLength(1);
    await t.api('get', '/projects/acme%2F%25').expect(404);
    await t.api('get', '/groups/a_me').expect(404);
    await t.api('get', '/user').set('Sudo', '%').expect(404);
    expect((await t.api('get', `${base}/milestones?search=%25`).expect(200)).body).toEqual([]);
    expect((await t.api('get', `${base}/labels?search=%25`).expect(200)).body).toEqual([]);
    await t.api('post', `${base}/milestones`).send({ title: '50% done' }).expect(201);
    expect((await t.api('get', `${base}/milestones?search=50%25`).expect(200)).body.map((m: { title: string }) => m.title)).toEqual(['50% done']);
  });

  it('never echoes job_token (nor private_token) in Link or Location headers', async () => {
    const listed = await t.api('get', `/projects?per_page=1&private_token=${t.root.token}`, null).expect(200);
    expect(listed.headers.link).toMatch(/per_page=1/);
    expect(listed.headers.link).not.toContain('private_token');
    const { token: job } = await issueJobToken(t.db, t.deps.secrets.tokenDigestKey, { projectId, userId: t.root.id });
    const links = await t.api('get', `${base}/releases/v1.0/assets/links?per_page=1&job_token=${job}`, null).expect(200);
    expect(links.headers.link).toMatch(/per_page=1/);
    expect(links.headers.link).not.toMatch(/job_token|glcbt-/);
    const redirect = await t.api('get', `${base}/releases/permalink/latest?job_token=${job}&x=1`, null).expect(302);
    expect(redirect.headers.location).toMatch(/\/releases\/v1\.0\?x=1$/);
  });
});

describe('token scopes per operation', () => {
  it('lets read_repository read repository files only: not members, milestones, releases, labels, tags or archives', async () => {
    const tok = await t.token(t.root.id, ['read_repository']);
    await t.api('get', `${base}/repository/files/README.md?ref=main`, tok).expect(200);
    await t.api('get', `${base}/repository/files/README.md/raw?ref=main`, tok).expect(200);
    await t.api('get', `${base}/repository/files/README.md/blame?ref=main`, tok).expect(200);
    for (const route of [
      '/members',
      '/milestones',
      '/releases',
      '/releases/v1.0',
      '/labels',
      '/repository/tags',
      '/repository/archive',
      '/repository/branches',
      '',
    ]) {
      const res = await t.api('get', `${base}${route}`, tok);
      expect(res.status, route).toBe(403);
      expect(res.body.error, route).toBe('insufficient_scope');
    }
    const nested = await t.graphql(`{ project(id: ${projectId}) { releases { nodes { name } } } }`, {}, tok);
    expect(nested.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    const members = await t.graphql(`{ project(id: ${projectId}) { projectMembers { nodes { accessLevel { integerValue } } } } }`, {}, tok);
    expect(members.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    const blobs = await t.graphql(`{ project(id: ${projectId}) { repository { blobs(paths: ["README.md"], ref: "main") { nodes { path } } } } }`, {}, tok);
    expect(blobs.body.data.project.repository.blobs.nodes).toEqual([{ path: 'README.md' }]);
    // read_api still reads all of it.
    const readApi = await t.token(t.root.id, ['read_api']);
    await t.api('get', `${base}/members`, readApi).expect(200);
    await t.api('get', `${base}/repository/archive`, readApi).expect(200);
  });

  it('opens to read_repository exactly the repository-file operations of the REST facade', () => {
    const registry = new OperationRegistry(schema, operationDocuments);
    const passes = (name: string, scopes: Scope[]) => {
      const viewer = new Viewer(null, { scopes } as never);
      try {
        checkOperationScopes(schema, registry.document(name), name, viewer);
        return true;
      } catch {
        return false;
      }
    };
    const names = [...new Set(restRoutes.map((r) => r.operation))];
    // GitLab opens read_repository to Git over HTTP and the files API only: the commits API (whose
    // entities carry project fields) needs read_api, as there.
    expect(names.filter((n) => passes(n, ['read_repository'])).sort()).toEqual([
      'Metadata',
      'RepositoryFile',
      'RepositoryFileBlame',
      'RepositoryFileHead',
      'RepositoryFileRaw',
      'Version',
    ]);
    expect(names.filter((n) => passes(n, ['read_user'])).sort()).toEqual([
      'CurrentPersonalAccessToken',
      'CurrentUser',
      'Metadata',
      'UserById',
      'UserList',
      'Version',
    ]);
    // Positive control: read_api passes every query, api everything.
    expect(names.filter((n) => passes(n, ['api']))).toEqual(names);
  });
});

describe('failed-authentication ban and throttles', () => {
  it('bans an IP after AUTH_BAN_MAX_RETRY bad credentials, for every process on the database, and lifts on expiry', async () => {
    const env = { AUTH_BAN_MAX_RETRY: '3', AUTH_BAN_FIND_TIME_S: '60', AUTH_BAN_TIME_S: '3600' };
    const a = await createTestApp({ env });
    const key = a.config.tokenDigestKey!;
    const b = await createTestApp({ env: { ...env, TOKEN_DIGEST_KEY: key }, databaseUrl: a.url });
    try {
      const good = a.root.token;
      await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', good).expect(200);
      for (let i = 0; i < 2; i++) await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', 'glpat-wrong').expect(401);
      // A success resets the count (GitLab), so two more failures do not ban yet.
      await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', good).expect(200);
      for (let i = 0; i < 2; i++) await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', 'glpat-wrong').expect(401);
      await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', 'glpat-wrong').expect(401);
      const banned = await request(a.app).get('/api/v4/user').set('PRIVATE-TOKEN', good).expect(403);
      expect(banned.body).toEqual({ message: '403 Forbidden' });
      expect(banned.headers['retry-after']).toBeUndefined();
      // The other process sees the ban through the shared counters; anonymous requests still pass.
      await request(b.app).get('/api/v4/user').set('PRIVATE-TOKEN', good).expect(403);
      await request(b.app).post('/api/graphql').set('Authorization', `Bearer ${good}`).send({ query: '{ currentUser { username } }' }).expect(403);
      await request(b.app).get('/api/v4/projects').expect(200);
      const row = await a.db.throttleCounter.findFirst({ where: { key: { startsWith: 'ban:' } } });
      expect(row!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      await a.db.throttleCounter.deleteMany({});
      // A ban seen a moment ago is trusted for up to 2 s by the process that read it.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await request(b.app).get('/api/v4/user').set('PRIVATE-TOKEN', good).expect(200);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('bans git over HTTP the same way: bad Basic credentials count, a banned IP gets 403', async () => {
    const t = await createTestApp({ env: { AUTH_BAN_MAX_RETRY: '2', AUTH_BAN_FIND_TIME_S: '60', AUTH_BAN_TIME_S: '3600' } });
    try {
      const { project } = await seedProject(t);
      const refs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
      const basic = (password: string) => `Basic ${Buffer.from(`oauth2:${password}`).toString('base64')}`;
      await request(t.base).get(refs).set('Authorization', basic(t.root.token)).expect(200);
      // Without credentials git is asked for some: no count.
      for (let i = 0; i < 3; i++) await request(t.base).get(refs).expect(401);
      for (let i = 0; i < 2; i++) await request(t.base).get(refs).set('Authorization', basic('glpat-wrong')).expect(401);
      await request(t.base).get(refs).set('Authorization', basic(t.root.token)).expect(403);
      await request(t.base).get('/api/v4/user').set('PRIVATE-TOKEN', t.root.token).expect(403);
    } finally {
      await t.close();
    }
  });

  it('can be switched off', async () => {
    const off = await createTestApp({ env: { AUTH_BAN_ENABLED: 'false', AUTH_BAN_MAX_RETRY: '1' } });
    try {
      for (let i = 0; i < 3; i++) await request(off.app).get('/api/v4/user').set('PRIVATE-TOKEN', 'glpat-wrong').expect(401);
      await request(off.app).get('/api/v4/user').set('PRIVATE-TOKEN', off.root.token).expect(200);
      expect(await off.db.throttleCounter.count()).toBe(0);
    } finally {
      await off.close();
    }
  });

  it('throttles API requests when configured: 429 with RateLimit headers, per IP anonymously and per user signed in', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_API: '2/60', RATE_LIMIT_AUTHENTICATED_API: '3/60' } });
    try {
      for (let i = 0; i < 2; i++) await request(limited.app).get('/api/v4/projects').expect(200);
      const refused = await request(limited.app).get('/api/v4/projects').expect(429);
      expect(refused.text).toBe('Retry later\n');
      expect(refused.headers['ratelimit-name']).toBe('throttle_unauthenticated_api');
      expect(refused.headers['ratelimit-limit']).toBe('2');
      expect(refused.headers['ratelimit-observed']).toBe('3');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Signed-in requests have their own budget, per user.
      for (let i = 0; i < 3; i++) await request(limited.app).get('/api/v4/user').set('PRIVATE-TOKEN', limited.root.token).expect(200);
      expect((await request(limited.app).get('/api/v4/user').set('PRIVATE-TOKEN', limited.root.token).expect(429)).headers['ratelimit-name']).toBe(
        'throttle_authenticated_api',
      );
      await request(limited.app)
        .get('/api/v4/user')
        .set('PRIVATE-TOKEN', (await limited.user()).token)
        .expect(200);
    } finally {
      await limited.close();
    }
  });

  it('keeps the counters in Redis when REDIS_URL is set', async (ctx) => {
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = net.connect(6379, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (!reachable) return ctx.skip();
    const prefix = `t${Date.now()}`;
    const redisApp = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_UNAUTHENTICATED_API: '1/60', AUTH_BAN_MAX_RETRY: '2' } });
    try {
      await request(redisApp.app).get('/api/v4/projects').set('X-Request-Id', prefix).expect(200);
      await request(redisApp.app).get('/api/v4/projects').expect(429);
      for (let i = 0; i < 2; i++) await request(redisApp.app).get('/api/v4/user').set('PRIVATE-TOKEN', 'glpat-wrong').expect(401);
      await request(redisApp.app).get('/api/v4/user').set('PRIVATE-TOKEN', redisApp.root.token).expect(403);
      expect(await redisApp.db.throttleCounter.count()).toBe(0);
    } finally {
      const { Redis } = await import('ioredis');
      const redis = new Redis('redis://127.0.0.1:6379');
      const keys = await redis.keys('*:*');
      const ours = keys.filter((k) => /^(ban|authfail|throttle_unauthenticated_api|throttle_authenticated_api):/.test(k));
      if (ours.length) await redis.del(...ours);
      await redis.quit();
      await redisApp.close();
    }
  });
});

describe('a database that is gone or stalled', () => {
  it('answers 503 with Retry-After on REST and GraphQL, and logs errors with the request id, never a token', async () => {
    const { db, pool } = createDb('postgresql://postgres:x@127.0.0.1:1/none', {
      timeouts: { poolSize: 2, connectTimeoutMs: 500, statementTimeoutMs: 500, idleInTransactionTimeoutMs: 1_000 },
    });
    const captured = capturingLogger();
    const app = buildApp({ ...t.deps, db, sql: new SqlReader(pool), log: captured.log });
    try {
      const rest = await request(app).get('/api/v4/projects').set('PRIVATE-TOKEN', t.root.token).set('X-Request-Id', 'req-503').expect(503);
      expect(rest.body).toEqual({ message: '503 Service Unavailable' });
      expect(rest.headers['retry-after']).toBe('5');
      const anonymous = await request(app).get('/api/v4/projects').expect(503);
      expect(anonymous.headers['retry-after']).toBe('5');
      const gql = await request(app).post('/api/graphql').send({ query: '{ projects { count } }' }).expect(503);
      expect(gql.headers['retry-after']).toBe('5');
      expect(gql.body.errors[0].message).toMatch(/temporarily unavailable/);
      const ready = await request(app).get('/-/readiness').expect(503);
      expect(ready.body.checks.database).toBe(false);
      const logged = captured.lines.find((l) => l.requestId === 'req-503' && l.msg === 'database unavailable');
      expect(logged).toBeDefined();
      expect(JSON.stringify(captured.lines)).not.toContain(t.root.token);
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  });

  it('logs unexpected GraphQL errors with the request id (masked for the client), never a token', async () => {
    const captured = capturingLogger();
    const broken = Object.create(t.deps.git, { open: { value: () => Promise.reject(new Error('disk on fire')) } });
    const app = buildApp({ ...t.deps, git: broken, log: captured.log });
    const res = await request(app)
      .post('/api/graphql')
      .set('Authorization', `Bearer ${t.root.token}`)
      .set('X-Request-Id', 'req-gql-500')
      .send({ query: `{ project(id: ${projectId}) { repository { blobs(paths: ["README.md"], ref: "main") { nodes { path } } } } }` });
    expect(res.body.errors[0].message).toBe('Unexpected error.');
    const logged = captured.lines.find((l) => l.msg === 'unhandled GraphQL error');
    expect(logged).toMatchObject({ requestId: 'req-gql-500', err: { message: 'disk on fire' } });
    expect(JSON.stringify(captured.lines)).not.toContain(t.root.token);
  });

  it('answers readiness 503 within 2 s when the database accepts connections but never answers', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const { db, pool } = createDb(`postgresql://postgres:x@127.0.0.1:${port}/none`, {
      timeouts: { poolSize: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 10_000, idleInTransactionTimeoutMs: 10_000 },
    });
    try {
      const started = Date.now();
      const ready = await request(buildApp({ ...t.deps, db }))
        .get('/-/readiness')
        .expect(503);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(ready.body).toEqual({ status: 'failed', checks: { database: false, migrations: false, repository_storage: true } });
    } finally {
      pool.end().catch(() => {});
      silent.close();
    }
  });
});

describe('on disk', () => {
  it('creates repositories for the server user only and removes the crash reports fast-import leaves', async () => {
    await t.api('post', `${base}/repository/files/perm.txt`).send({ branch: 'main', content: 'x', commit_message: 'perm' }).expect(201);
    const dir = t.deps.git.pathFor(projectId);
    const modes = execFileSync('find', [dir, '-printf', '%m %p\\n'], { encoding: 'utf8' }).trim().split('\n');
    const open = modes.filter((line) => (parseInt(line.split(' ')[0], 8) & 0o077) !== 0);
    expect(open).toEqual([]);
    const leftover = path.join(dir, 'fast_import_crash_4242');
    fs.writeFileSync(leftover, 'x');
    expect(await t.deps.git.removeLeftoverTemporaryFiles()).toBe(1);
    expect(fs.existsSync(leftover)).toBe(false);
  });

  it('releases the migration lock at once: a second migrating process right after does not wait or fail', async () => {
    const url = await createTestDatabase();
    await applyMigrations(url);
    const started = Date.now();
    await expect(applyMigrations(url)).resolves.toEqual([]);
    // The engine's pool used to hold the advisory lock for its 10 s idle timeout (P1002 after 10 s).
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
