// The REST facade runs its operations compiled by graphql-jit; graphql-js is the reference. Every
// operation must compile, and the same routes on the same data answer byte for byte the same.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { operationDocuments, schema } from '../src/kernel.ts';
import { OperationRegistry } from '../src/rest/operations.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
/** The base URLs of the two apps over the same deps: one runs the operations compiled, one through graphql-js. */
let jit: string;
let reference: string;
const tokens: Record<string, string> = {};
const paths: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  jit = await t.serve(buildApp(t.deps, { restEngine: 'jit' }));
  reference = await t.serve(buildApp(t.deps, { restEngine: 'graphql-js' }));
  const dev = await t.user('jit-dev');
  const outsider = await t.user('jit-outsider');
  tokens.root = t.root.token;
  tokens.dev = dev.token;
  tokens.outsider = outsider.token;
  tokens.anonymous = '';
  const as = (method: 'post' | 'put', path: string, body: object) => t.api(method, path).send(body).expect(201);
  const group = (await as('post', '/groups', { name: 'Jit', path: 'jit', description: 'compiled', visibility: 'public' })).body;
  const sub = (await as('post', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'public' })).body;
  await as('post', `/groups/${group.id}/members`, { user_id: dev.id, access_level: 30 });
  const project = (
    await as('post', '/projects', { name: 'App', namespace_id: group.id, description: 'one', visibility: 'private', initialize_with_readme: true })
  ).body;
  const open = (await as('post', '/projects', { name: 'Open', namespace_id: sub.id, visibility: 'public', initialize_with_readme: true })).body;
  const p = `/projects/${project.id}`;
  const milestone = (await as('post', `${p}/milestones`, { title: 'M1', description: 'first', due_date: '2031-01-31' })).body;
  const groupMilestone = (await as('post', `/groups/${group.id}/milestones`, { title: 'G1' })).body;
  await as('post', `${p}/labels`, { name: 'bug', color: '#d9534f', description: 'broken', priority: 1 });
  await as('post', `/groups/${group.id}/labels`, { name: 'shared', color: '#428bca' });
  await as('post', `${p}/repository/branches`, { branch: 'feature', ref: 'main' });
  await as('post', `${p}/repository/files/docs%2Fguide.md`, { branch: 'main', content: '# Guide\n\nline\n', commit_message: 'Add guide' });
  await as('post', `${p}/repository/tags`, { tag_name: 'v1', ref: 'main', message: 'Version one' });
  await as('post', `${p}/repository/tags`, { tag_name: 'v2', ref: 'feature' });
  await as('post', `${p}/releases`, {
    tag_name: 'v1',
    name: 'One',
    description: 'The **first** :tada:',
    milestones: ['M1', 'G1'],
    assets: { links: [{ name: 'linux', url: 'https://cdn.test/linux', direct_asset_path: '/bin/linux', link_type: 'package' }] },
  });
  await as('post', `${p}/releases`, { tag_name: 'v2', description: 'second' });
  const link = (await t.api('get', `${p}/releases/v1/assets/links`).expect(200)).body[0];
  const epic = (await as('post', `/groups/${group.id}/epics`, { title: 'Epic', description: 'big', labels: 'shared' })).body;
  const sha = (await t.api('get', `${p}/repository/branches/main`).expect(200)).body.commit.id;
  const imp = await t.api('post', `/users/${dev.id}/impersonation_tokens`).send({ name: 'imp', scopes: ['api'], expires_at: '2027-01-01' });
  expect(imp.status, JSON.stringify(imp.body)).toBe(201);
  const token = imp.body;

  paths.push(
    '/version',
    '/user',
    '/users',
    `/users/${dev.id}`,
    '/users?search=jit',
    '/groups',
    `/groups/${group.id}`,
    `/groups/${group.id}/subgroups`,
    `/groups/${group.id}/projects`,
    `/groups/${sub.id}`,
    '/projects',
    '/projects?simple=true',
    '/projects?membership=true&order_by=name&sort=asc',
    `${p}`,
    `${p}?statistics=true`,
    `/projects/${open.id}`,
    `${p}/members`,
    `${p}/members/all`,
    `${p}/members/all/${dev.id}`,
    `/groups/${group.id}/members`,
    `/groups/${group.id}/members/${dev.id}`,
    `${p}/milestones`,
    `${p}/milestones/${milestone.id}`,
    `/groups/${group.id}/milestones`,
    `/groups/${group.id}/milestones/${groupMilestone.id}`,
    `${p}/labels`,
    `${p}/labels?with_counts=true`,
    `/groups/${group.id}/labels`,
    `${p}/repository/commits/${sha}`,
    `${p}/repository/commits/main`,
    `${p}/repository/files/docs%2Fguide.md?ref=main`,
    `${p}/repository/files/docs%2Fguide.md/raw?ref=main`,
    `${p}/repository/files/docs%2Fguide.md/blame?ref=main`,
    `${p}/repository/files/missing.md?ref=main`,
    `${p}/repository/branches`,
    `${p}/repository/branches/feature`,
    `${p}/repository/tags`,
    `${p}/repository/tags/v1`,
    `${p}/releases`,
    `${p}/releases?include_html_description=true`,
    `${p}/releases?order_by=created_at&sort=asc`,
    `/groups/${group.id}/releases`,
    `/groups/${group.id}/releases?simple=true`,
    `${p}/releases/v1`,
    `${p}/releases/v1?include_html_description=true`,
    `${p}/releases/permalink/latest`,
    `${p}/releases/nope`,
    `${p}/releases/v1/assets/links`,
    `${p}/releases/v1/assets/links/${link.id}`,
    '/application/settings',
    `/users/${dev.id}/impersonation_tokens`,
    `/users/${dev.id}/impersonation_tokens/${token.id}`,
    '/personal_access_tokens',
    '/personal_access_tokens/self',
    `${p}/access_requests`,
    `/groups/${group.id}/access_requests`,
    `${p}/packages/protection/rules`,
    `${p}/alert_management/integrations`,
    `${p}/alert_management/alerts`,
    `${p}/alert_management/settings`,
    '/features',
    '/features/definitions',
    '/experiments',
    `/groups/${group.id}/epics`,
    `/groups/${group.id}/epics/${epic.iid}`,
    `/groups/${group.id}/epics/${epic.iid}/award_emoji`,
    `/groups/${group.id}/integrations`,
    '/projects/999999',
    `${p}/milestones/abc`,
    '/projects?per_page=1&page=2',
  );
});
afterAll(() => t.close());

describe('graphql-jit behind the operation registry', () => {
  it('compiles every registered operation', async () => {
    const registry = new OperationRegistry(schema, operationDocuments, 30_000, 'jit');
    expect(await registry.notCompiled()).toEqual([]);
    // Positive control: the graphql-js registry compiles nothing.
    expect((await new OperationRegistry(schema, operationDocuments, 30_000, 'graphql-js').notCompiled()).length).toBeGreaterThan(50);
  });

  it('answers every route byte for byte as graphql-js does, for each viewer', async () => {
    const get = (base: string, path: string, token: string) => {
      const r = request(base)
        .get(`/api/v4${path}`)
        .buffer(true)
        .parse((res, done) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => done(null, body));
        });
      return token ? r.set('PRIVATE-TOKEN', token) : r;
    };
    let compared = 0;
    let withBody = 0;
    for (const [who, token] of Object.entries(tokens)) {
      for (const path of paths) {
        // Sequential: the two engines see the same data (nothing else runs meanwhile).
        const a = await get(reference, path, token);
        const b = await get(jit, path, token);
        const what = `${who} GET ${path}`;
        expect(b.status, what).toBe(a.status);
        expect(b.body, what).toBe(a.body);
        for (const header of ['content-type', 'x-total', 'x-total-pages', 'x-next-page', 'link'])
          expect(b.headers[header], `${what} ${header}`).toBe(a.headers[header]);
        compared += 1;
        if (a.status === 200 && (a.body as string).length > 2) withBody += 1;
      }
    }
    expect(compared).toBe(paths.length * 4);
    // Positive control: most comparisons are of real content, not errors or empty lists (anonymous
    // requests to the APIs GitLab authenticates first, members, labels, milestones…, are 401s).
    expect(withBody).toBeGreaterThan(paths.length * 1.75);
    // Every GET route, four viewers, both engines: ~6 s alone, several times that beside the
    // suite's other files, which reached the default 30 s on CI's PostgreSQL-service run.
  }, 120_000);
});
