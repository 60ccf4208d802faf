import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let other: { id: number };
let developer: { id: number; token: string };

const withJob = (method: 'get' | 'head' | 'post' | 'put' | 'delete', path: string, token: string) =>
  request(t.base)[method](`/api/v4${path}`).set('JOB-TOKEN', token);

async function mint(userId: number, projectId = project.id, minutes?: number) {
  const res = await t.api('post', '/admin/job_tokens').send({ project_id: projectId, user_id: userId, expires_in_minutes: minutes }).expect(201);
  return res.body as { token: string; project_id: number; user_id: number; expires_at: string };
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  other = (await t.api('post', '/projects').send({ name: 'Other', initialize_with_readme: true }).expect(201)).body;
  developer = await t.user();
  for (const id of [project.id, other.id]) {
    await t.api('post', `/projects/${id}/members`).send({ user_id: developer.id, access_level: 30 }).expect(201);
    await t.api('post', `/projects/${id}/releases`).send({ tag_name: 'v1', ref: 'main' }).expect(201);
  }
});
afterAll(() => t.close());

describe('job tokens', () => {
  it('are minted by administrators only, bound to a project and a user, expiring soon', async () => {
    const grant = await mint(developer.id);
    expect(grant).toMatchObject({ token: expect.stringMatching(/^glcbt-/), project_id: project.id, user_id: developer.id });
    const minutes = (new Date(grant.expires_at).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(55);
    expect(minutes).toBeLessThanOrEqual(60);
    await t.api('post', '/admin/job_tokens', developer.token).send({ project_id: project.id, user_id: developer.id }).expect(403);
    const row = await t.db.jobToken.findFirstOrThrow({ where: { userId: developer.id } });
    expect(row.digest).not.toContain(grant.token.slice(6));
  });

  it('update releases and manage links of their project, as their user', async () => {
    const { token } = await mint(developer.id);
    const updated = (await withJob('put', `/projects/${project.id}/releases/v1`, token).send({ name: 'From CI' }).expect(200)).body;
    expect(updated.name).toBe('From CI');
    const link = (await withJob('post', `/projects/${project.id}/releases/v1/assets/links`, token).send({ name: 'ci', url: 'https://ci.test/a' }).expect(201))
      .body;
    await withJob('get', `/projects/${project.id}/releases/v1/assets/links`, token).expect(200);
    await withJob('get', `/projects/${project.id}/releases/v1/assets/links/${link.id}`, token).expect(200);
    await withJob('put', `/projects/${project.id}/releases/v1/assets/links/${link.id}`, token).send({ name: 'ci2' }).expect(200);
    await withJob('delete', `/projects/${project.id}/releases/v1/assets/links/${link.id}`, token).expect(200);
    expect((await withJob('get', `/projects/${project.id}/releases/permalink/latest`, token).expect(302)).headers.location).toContain('/releases/v1');
  });

  it('are refused elsewhere: other routes, other projects, GraphQL, expired or unknown tokens', async () => {
    const { token } = await mint(developer.id);
    // Routes GitLab does not open to job tokens: members, project settings, tag and file writes.
    await withJob('get', `/projects/${project.id}/members`, token).expect(401, { message: '401 Unauthorized' });
    await withJob('put', `/projects/${project.id}`, token).send({ description: 'x' }).expect(401);
    await withJob('post', `/projects/${project.id}/repository/tags`, token).send({ tag_name: 'ci', ref: 'main' }).expect(401);
    await withJob('post', `/projects/${project.id}/repository/files/ci.txt`, token).send({ branch: 'main', content: 'x', commit_message: 'ci' }).expect(401);
    await withJob('get', `/projects/${other.id}/releases/v1`, token).expect(404, { message: '404 Project Not Found' });
    await withJob('get', `/projects/${other.id}/repository/files/README.md?ref=main`, token).expect(404, { message: '404 Project Not Found' });
    await withJob('put', `/projects/${other.id}/releases/v1`, token).send({ name: 'x' }).expect(404, { message: '404 Project Not Found' });
    const gql = await request(t.base).post('/api/graphql').set('JOB-TOKEN', token).send({ query: '{ currentUser { username } }' });
    expect(gql.status).toBe(401);
    await withJob('put', `/projects/${project.id}/releases/v1`, 'glcbt-nope').send({ name: 'x' }).expect(401);
    const { token: old } = await mint(developer.id, project.id, 1);
    await t.db.jobToken.updateMany({ where: { expiresAt: { lt: new Date(Date.now() + 2 * 60_000) } }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await withJob('put', `/projects/${project.id}/releases/v1`, old).send({ name: 'x' }).expect(401);
    expect(expired.body.error).toBe('invalid_token');
  });

  it('drive releases end to end from CI: create, list, get, latest, downloads, update, delete', async () => {
    const { token } = await mint(developer.id);
    const base = `/projects/${project.id}/releases`;
    const created = await withJob('post', base, token)
      .send({
        tag_name: 'ci-1',
        ref: 'main',
        name: 'CI one',
        released_at: '2030-01-01T00:00:00Z',
        assets: { links: [{ name: 'app', url: 'https://dl.test/app', direct_asset_path: '/bin/app' }] },
      })
      .expect(201);
    expect(created.body).toMatchObject({ tag_name: 'ci-1', name: 'CI one', author: { id: developer.id } });
    expect((await withJob('get', base, token).expect(200)).body.map((r: { tag_name: string }) => r.tag_name)).toContain('ci-1');
    expect((await withJob('get', `${base}/ci-1`, token).expect(200)).body.name).toBe('CI one');
    // The permalink redirects to a route the same token may follow.
    const latest = await withJob('get', `${base}/permalink/latest`, token).expect(302);
    expect(latest.headers.location).toBe(`/api/v4${base}/ci-1`);
    await withJob('get', latest.headers.location.replace('/api/v4', ''), token).expect(200);
    // Downloads, with the nested asset path plain or sent as one encoded segment; via the permalink too.
    for (const asset of ['bin/app', 'bin%2Fapp']) {
      expect((await withJob('get', `${base}/ci-1/downloads/${asset}`, token).expect(302)).headers.location).toBe('https://dl.test/app');
    }
    const viaLatest = await withJob('get', `${base}/permalink/latest/downloads/bin%2Fapp`, token).expect(302);
    expect(viaLatest.headers.location).toBe(`/api/v4${base}/ci-1/downloads/bin/app`);
    // The `job_token` parameter works like the header.
    await request(t.base).get(`/api/v4${base}/ci-1?job_token=${token}`).expect(200);
    await withJob('delete', `${base}/ci-1`, token).expect(200);
    await withJob('get', `${base}/ci-1`, token).expect(404);
  });

  it('read tags, files (JSON, raw, HEAD, blame) and archives of their project', async () => {
    const { token } = await mint(developer.id);
    const repo = `/projects/${project.id}/repository`;
    expect((await withJob('get', `${repo}/tags`, token).expect(200)).body.map((tag: { name: string }) => tag.name)).toContain('v1');
    expect((await withJob('get', `${repo}/tags/v1`, token).expect(200)).body.name).toBe('v1');
    const file = (await withJob('get', `${repo}/files/README.md?ref=main`, token).expect(200)).body;
    expect(file).toMatchObject({ file_path: 'README.md', encoding: 'base64' });
    const raw = await withJob('get', `${repo}/files/README.md/raw`, token).expect(200);
    expect(raw.text).toBe(Buffer.from(file.content, 'base64').toString());
    expect((await withJob('head', `${repo}/files/README.md?ref=main`, token).expect(200)).headers['x-gitlab-blob-id']).toBe(file.blob_id);
    await withJob('get', `${repo}/files/README.md/blame?ref=main`, token).expect(200);
    const archive = await withJob('get', `${repo}/archive.zip`, token).expect(200);
    expect(archive.headers['content-type']).toBe('application/zip');
    const web = await request(t.base).get(`/${project.path_with_namespace}/-/archive/main/app-main.tar.gz`).set('JOB-TOKEN', token).expect(200);
    expect(web.headers['content-disposition']).toBe('attachment; filename="app-main.tar.gz"');
  });

  it('carry the role of their user: a reporter job cannot write', async () => {
    const reporter = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
    const { token } = await mint(reporter.id);
    await withJob('put', `/projects/${project.id}/releases/v1`, token).send({ name: 'x' }).expect(403);
    await withJob('post', `/projects/${project.id}/releases`, token).send({ tag_name: 'rep', ref: 'main' }).expect(403);
    await withJob('delete', `/projects/${project.id}/releases/v1`, token).expect(403);
    await withJob('get', `/projects/${project.id}/releases/v1/assets/links`, token).expect(200);
    await withJob('get', `/projects/${project.id}/releases`, token).expect(200);
  });

  it('can be minted through GraphQL', async () => {
    const res = await t.graphql(
      `mutation { jobTokenCreate(input: {projectPath: "${project.path_with_namespace}", userId: ${developer.id}, expiresInMinutes: 5}) { jobToken { token projectId } errors } }`,
    );
    expect(res.body.data.jobTokenCreate).toMatchObject({ jobToken: { token: expect.stringMatching(/^glcbt-/), projectId: project.id }, errors: [] });
  });
});
