import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(projectId), ...args])
    .toString()
    .trim();

describe('branches', () => {
  it('lists, reads, creates and deletes branches over REST, with GitLab errors', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Branchy', initialize_with_readme: true }).expect(201)).body;
    const base = `/projects/${p.id}/repository/branches`;
    const sha = git(p.id, 'rev-parse', 'main');
    const created = (await t.api('post', base).send({ branch: 'feature/x', ref: 'main' }).expect(201)).body;
    expect(created).toMatchObject({
      name: 'feature/x',
      merged: false,
      protected: false,
      default: false,
      developers_can_push: true,
      can_push: true,
      web_url: `${EXTERNAL_URL}/${p.path_with_namespace}/-/tree/feature/x`,
      commit: { id: sha, short_id: sha.slice(0, 8), title: 'Initial commit', parent_ids: [] },
    });
    expect(git(p.id, 'rev-parse', 'feature/x')).toBe(sha);
    await t.api('post', base).send({ branch: 'feature/x', ref: 'main' }).expect(400, { message: 'Branch already exists' });
    await t.api('post', base).send({ branch: 'bad..name', ref: 'main' }).expect(400, { message: 'Branch name is invalid' });
    await t.api('post', base).send({ branch: 'ok', ref: 'nope' }).expect(400, { message: 'Invalid reference name' });
    await t.api('post', base).send({ branch: 'ok' }).expect(400, { error: 'ref is missing' });

    const list = await t.api('get', `${base}?per_page=1`).expect(200);
    expect(list.body.map((b: { name: string }) => b.name)).toEqual(['feature/x']);
    expect(list.headers['x-total']).toBe('2');
    expect((await t.api('get', `${base}?search=mai`).expect(200)).body.map((b: { name: string }) => b.name)).toEqual(['main']);
    const main = (await t.api('get', `${base}/main`).expect(200)).body;
    expect(main).toMatchObject({ name: 'main', default: true, protected: true, developers_can_push: false });
    expect((await t.api('get', `${base}/feature%2Fx`).expect(200)).body.name).toBe('feature/x');
    await t.api('get', `${base}/nope`).expect(404, { message: '404 Branch Not Found' });

    await t.api('delete', `${base}/main`).expect(405, { message: 'Cannot remove HEAD branch' });
    await t.api('delete', `${base}/feature%2Fx`).expect(204);
    await t.api('delete', `${base}/feature%2Fx`).expect(404, { message: '404 Branch Not Found' });
    expect(git(p.id, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/main');

    const guest = await t.user();
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('get', base, guest.token).expect(403);
    await t.api('post', base, guest.token).send({ branch: 'g', ref: 'main' }).expect(403);
  });

  it('answers branchNames and createBranch over GraphQL', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Branchy GQL', initialize_with_readme: true }).expect(201)).body;
    const made = await t.graphql(
      `mutation { createBranch(input: { projectId: ${p.id}, name: "topic", ref: "main" }) { branch { name default commit { sha } } errors } }`,
    );
    expect(made.body.data.createBranch).toEqual({ branch: { name: 'topic', default: false, commit: { sha: git(p.id, 'rev-parse', 'main') } }, errors: [] });
    const names = await t.graphql(
      `{ project(id: ${p.id}) { repository { all: branchNames(searchPattern: "*", offset: 0, limit: 10) t: branchNames(searchPattern: "to*", offset: 0, limit: 10) } } }`,
    );
    expect(names.body.data.project.repository).toEqual({ all: ['main', 'topic'], t: ['topic'] });
    const again = await t.graphql(`mutation { createBranch(input: { projectId: ${p.id}, name: "topic", ref: "main" }) { branch { name } errors } }`);
    expect(again.body.data.createBranch).toEqual({ branch: null, errors: ['Branch already exists'] });
  });
});
