import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
const base = () => `/projects/${project.id}/releases`;

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  await t.api('post', base()).send({ tag_name: 'v1', ref: 'main', released_at: '2020-01-01T00:00:00Z' }).expect(201);
  await t
    .api('post', base())
    .send({
      tag_name: 'v2/rc',
      ref: 'main',
      released_at: '2021-01-01T00:00:00Z',
      assets: { links: [{ name: 'exe', url: 'https://cdn.test/example.exe', direct_asset_path: '/bin/example.exe' }] },
    })
    .expect(201);
  // Created last but released earliest: "latest" goes by released_at.
  await t.api('post', base()).send({ tag_name: 'v0', ref: 'main', released_at: '2019-01-01T00:00:00Z' }).expect(201);
});
afterAll(() => t.close());

describe('permalink/latest', () => {
  it('redirects to the release with the greatest released_at, by numeric id, tag encoded', async () => {
    const res = await t.api('get', `/projects/${encodeURIComponent(project.path_with_namespace)}/releases/permalink/latest`).expect(302);
    expect(res.headers.location).toBe(`/api/v4/projects/${project.id}/releases/v2%2Frc`);
  });

  it('keeps every suffix and the query except order_by', async () => {
    const suffixes = ['/evidence', '/downloads/bin/example.exe', '/assets/links', '/assets/links/5'];
    for (const suffix of suffixes) {
      const res = await t.api('get', `${base()}/permalink/latest${suffix}?order_by=created_at&include_html_description=true&other=aaa`).expect(302);
      expect(res.headers.location).toBe(`/api/v4/projects/${project.id}/releases/v2%2Frc${suffix}?include_html_description=true&other=aaa`);
    }
  });

  it('refuses traversal and answers 404 without releases', async () => {
    await t.api('get', `${base()}/permalink/latest/downloads/%2E%2E/x`).expect(400, { error: 'suffix_path should be a valid file path' });
    const empty = (await t.api('post', '/projects').send({ name: 'Empty', initialize_with_readme: true }).expect(201)).body;
    await t.api('get', `/projects/${empty.id}/releases/permalink/latest`).expect(404);
  });
});

describe('downloads', () => {
  it('redirects to the link URL on exact path match, over the API and the web path', async () => {
    const api = await t.api('get', `${base()}/v2%2Frc/downloads/bin/example.exe`).expect(302);
    expect(api.headers.location).toBe('https://cdn.test/example.exe');
    const web = await request(t.base)
      .get(`/${project.path_with_namespace}/-/releases/v2%2Frc/downloads/bin/example.exe`)
      .set('PRIVATE-TOKEN', t.root.token)
      .expect(302);
    expect(web.headers.location).toBe('https://cdn.test/example.exe');
    await t.api('get', `${base()}/v2%2Frc/downloads/bin/example`).expect(404, { message: '404 Not found' });
    await t.api('get', `${base()}/nope/downloads/bin/example.exe`).expect(404, { message: '404 Not Found' });
    await request(t.base).get(`/${project.path_with_namespace}/-/releases/v2%2Frc/downloads/bin/example.exe`).expect(404, { message: '404 Project Not Found' });
  });

  it('follows the permalink to the asset', async () => {
    const hop = await t.api('get', `${base()}/permalink/latest/downloads/bin/example.exe`).expect(302);
    const res = await request(t.base).get(hop.headers.location).set('PRIVATE-TOKEN', t.root.token).expect(302);
    expect(res.headers.location).toBe('https://cdn.test/example.exe');
  });

  it('forbids a guest of a private project', async () => {
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('get', `${base()}/v2%2Frc/downloads/bin/example.exe`, guest.token).expect(403);
    // The same rule over GraphQL: the service refuses, it is not a REST-only check.
    const query = `{ project(id: ${project.id}) { release(tagName: "v2/rc") { assetDownloadUrl(directAssetPath: "/bin/example.exe") } } }`;
    const denied = await t.graphql(query, {}, guest.token);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const allowed = await t.graphql(query);
    expect(allowed.body.data.project.release.assetDownloadUrl).toBe('https://cdn.test/example.exe');
  });
});

describe('evidence', () => {
  it('collects evidence and serves each JSON at its filepath with the same tokens', async () => {
    const before = (await t.api('get', `${base()}/v1`).expect(200)).body.evidences;
    await t.api('post', `${base()}/v1/evidence`).expect(200);
    const after = (await t.api('get', `${base()}/v1`).expect(200)).body.evidences;
    expect(after).toHaveLength(before.length + 1);
    const path = new URL(after[0].filepath).pathname;
    const file = await request(t.base).get(path).set('PRIVATE-TOKEN', t.root.token).expect(200);
    expect(file.headers['content-type']).toMatch(/application\/json/);
    expect(file.body.release).toMatchObject({ tag_name: 'v1', project: { id: project.id } });
    await request(t.base).get(path).expect(404);
    await t.api('post', `${base()}/nope/evidence`).expect(404);
    const reporter = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
    await t.api('post', `${base()}/v1/evidence`, reporter.token).expect(403);
    const gql = await t.graphql(
      `mutation { collectReleaseEvidence(input: {projectPath: "${project.path_with_namespace}", tagName: "v1"}) { evidence { sha filepath } errors } }`,
    );
    expect(gql.body.data.collectReleaseEvidence.evidence.sha).toMatch(/^[0-9a-f]{64}$/);
  });
});
