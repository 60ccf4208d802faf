import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;
let project: { id: number };
const git = (...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...args])
    .toString()
    .trim();
const TREE = () => `/projects/${project.id}/repository/tree`;
type Entry = { id: string; name: string; type: string; path: string; mode: string };
const names = (body: Entry[]) => body.map((e) => e.path);

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  await t
    .api('post', `/projects/${project.id}/repository/commits`)
    .send({
      branch: 'main',
      commit_message: 'layout',
      actions: [
        { action: 'create', file_path: 'zeta.txt', content: 'z' },
        { action: 'create', file_path: 'src/main.ts', content: 'main' },
        { action: 'create', file_path: 'src/lib/util.ts', content: 'util' },
        { action: 'create', file_path: 'bin/run', content: 'run', execute_filemode: true },
        { action: 'create', file_path: 'a.txt', content: 'a' },
      ],
    })
    .expect(201);
  // A submodule entry, as a push would bring one.
  const commit = git('rev-parse', 'main');
  const tree = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'mktree'], {
    input: `${git('ls-tree', 'main')}\n160000 commit ${commit}\tvendor\n`,
  })
    .toString()
    .trim();
  const withSubmodule = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'commit-tree', tree, '-p', commit, '-m', 'submodule'], {
    env: { ...process.env, GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' },
  })
    .toString()
    .trim();
  git('update-ref', 'refs/heads/main', withSubmodule, commit);
});
afterAll(() => t.close());

describe('GET /projects/:id/repository/tree', () => {
  it('lists one level, directories first, with GitLab entries', async () => {
    const res = await t.api('get', TREE()).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(names(res.body)).toEqual(['bin', 'src', 'README.md', 'a.txt', 'vendor', 'zeta.txt']);
    expect(res.body[0]).toEqual({ id: git('rev-parse', 'main:bin'), name: 'bin', type: 'tree', path: 'bin', mode: '040000' });
    expect(res.body.find((e: Entry) => e.name === 'vendor')).toMatchObject({ type: 'commit', mode: '160000' });
    expect(res.body.find((e: Entry) => e.name === 'a.txt')).toEqual({
      id: git('rev-parse', 'main:a.txt'),
      name: 'a.txt',
      type: 'blob',
      path: 'a.txt',
      mode: '100644',
    });
    expect(res.headers).toMatchObject({ 'x-total': '6', 'x-page': '1' });
    const sub = await t.api('get', `${TREE()}?path=src&ref=main`).expect(200);
    expect(sub.body.map((e: Entry) => [e.path, e.type])).toEqual([
      ['src/lib', 'tree'],
      ['src/main.ts', 'blob'],
    ]);
    const bin = await t.api('get', `${TREE()}?path=bin/`).expect(200);
    expect(bin.body[0]).toMatchObject({ path: 'bin/run', mode: '100755' });
  });

  it('lists everything below a path with recursive, and pages by offset or keyset', async () => {
    const all = await t.api('get', `${TREE()}?recursive=true&per_page=100`).expect(200);
    expect(names(all.body)).toEqual(['bin', 'src', 'src/lib', 'README.md', 'a.txt', 'bin/run', 'src/lib/util.ts', 'src/main.ts', 'vendor', 'zeta.txt']);
    const offset = await t.api('get', `${TREE()}?recursive=true&per_page=4&page=2`).expect(200);
    expect(names(offset.body)).toEqual(names(all.body).slice(4, 8));
    expect(offset.headers).toMatchObject({ 'x-total': '10', 'x-total-pages': '3', 'x-next-page': '3', 'x-prev-page': '1' });

    const seen: string[] = [];
    let url: string | null = `${TREE()}?recursive=true&pagination=keyset&per_page=4`;
    while (url) {
      const res = await t.api('get', url).expect(200);
      seen.push(...names(res.body));
      expect(res.headers['x-total']).toBeUndefined();
      const next = /<http:\/\/gitlab\.test\/api\/v4([^>]+)>; rel="next"/.exec(res.headers.link ?? '');
      url = next ? next[1] : null;
    }
    expect(seen).toEqual(names(all.body));
    await t.api('get', `${TREE()}?pagination=keyset&page_token=${'0'.repeat(40)}`).expect(400);
  });

  it('answers 404 Tree for unknown refs and paths, 400 for traversal', async () => {
    await t.api('get', `${TREE()}?ref=nope`).expect(404, { message: '404 Tree Not Found' });
    await t.api('get', `${TREE()}?path=missing`).expect(404, { message: '404 Tree Not Found' });
    await t.api('get', `${TREE()}?path=a.txt`).expect(404, { message: '404 Tree Not Found' });
    await t.api('get', `${TREE()}?path=../../etc`).expect(400);
    await t.api('get', `${TREE()}?pagination=cursor`).expect(400, { error: 'pagination does not have a valid value' });
    const outsider = await t.user();
    await t.api('get', TREE(), outsider.token).expect(404, { message: '404 Project Not Found' });
  });

  it('costs the same queries for a page of 2 entries as for 10', async () => {
    await expectCounterSees(t, () => t.api('get', `${TREE()}?per_page=2`).expect(200));
    const small = await countQueries(t, () => t.api('get', `${TREE()}?recursive=true&per_page=2`).expect(200));
    const large = await countQueries(t, () => t.api('get', `${TREE()}?recursive=true&per_page=10`).expect(200));
    expect(large).toBe(small);
  });
});

describe('GraphQL tree', () => {
  it("answers GitLab's repository browser query with Entry, TreeEntry, Blob and Submodule", async () => {
    const query = `query getFiles($projectPath: ID!, $path: String, $ref: String!, $refType: RefType) {
      project(fullPath: $projectPath) {
        repository {
          empty
          exists
          tree(path: $path, ref: $ref, refType: $refType) {
            trees(first: 10) { edges { node { ...TreeEntry webPath webUrl } } }
            submodules(first: 10) { edges { node { ...TreeEntry webUrl treeUrl } } }
            blobs(first: 10) { edges { node { ...TreeEntry mode lfsOid webPath } } }
            lastCommit { sha }
          }
        }
      }
    }
    fragment TreeEntry on Entry { __typename id sha name flatPath type }`;
    const res = await t.graphql(query, { projectPath: 'acme/app', path: '', ref: 'main', refType: 'HEADS' });
    expect(res.body.errors).toBeUndefined();
    const repo = res.body.data.project.repository;
    expect(repo).toMatchObject({ empty: false, exists: true, tree: { lastCommit: { sha: git('rev-parse', 'main') } } });
    const nodes = (c: { edges: { node: Record<string, unknown> }[] }) => c.edges.map((e) => e.node);
    expect(nodes(repo.tree.trees)[0]).toEqual({
      __typename: 'TreeEntry',
      id: `gid://gitlab/TreeEntry/${git('rev-parse', 'main:bin')}`,
      sha: git('rev-parse', 'main:bin'),
      name: 'bin',
      flatPath: 'bin',
      type: 'tree',
      webPath: '/acme/app/-/tree/main/bin',
      webUrl: 'http://gitlab.test/acme/app/-/tree/main/bin',
    });
    expect(nodes(repo.tree.blobs).map((b) => b.name)).toEqual(['README.md', 'a.txt', 'zeta.txt']);
    expect(nodes(repo.tree.blobs)[1]).toMatchObject({ __typename: 'Blob', type: 'blob', mode: '100644', lfsOid: null, webPath: '/acme/app/-/blob/main/a.txt' });
    expect(nodes(repo.tree.submodules)).toEqual([
      expect.objectContaining({ __typename: 'Submodule', name: 'vendor', type: 'commit', webUrl: null, treeUrl: null }),
    ]);

    const tags = await t.graphql(query, { projectPath: 'acme/app', path: '', ref: 'main', refType: 'TAGS' });
    expect(tags.body.data.project.repository.tree).toBeNull();
    const recursive = await t.graphql(
      `{ project(fullPath: "acme/app") { repository { tree(path: "src", recursive: true) { blobs { nodes { path } } entries(first: 2) { count nodes { path } } } } } }`,
    );
    expect(recursive.body.data.project.repository.tree).toEqual({
      blobs: { nodes: [{ path: 'src/lib/util.ts' }, { path: 'src/main.ts' }] },
      entries: { count: 3, nodes: [{ path: 'src/lib' }, { path: 'src/lib/util.ts' }] },
    });
  });

  it('has the same entries through REST and GraphQL', async () => {
    const rest = (await t.api('get', `${TREE()}?recursive=true&per_page=100`).expect(200)).body;
    const gql = await t.graphql(
      `{ project(fullPath: "acme/app") { repository { tree(recursive: true) { entries(first: 100) { nodes { sha name type path } } } } } }`,
    );
    expect(gql.body.data.project.repository.tree.entries.nodes).toEqual(rest.map((e: Entry) => ({ sha: e.id, name: e.name, type: e.type, path: e.path })));
  });

  it('says empty for a project without commits', async () => {
    const empty = (await t.api('post', '/projects').send({ name: 'Empty', path: 'empty' }).expect(201)).body;
    const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { repository { empty exists tree { blobs { nodes { name } } } } } }`, {
      p: empty.path_with_namespace,
    });
    expect(res.body.data.project.repository).toEqual({ empty: true, exists: true, tree: null });
    await t.api('get', `/projects/${empty.id}/repository/tree`).expect(404, { message: '404 Tree Not Found' });
  });
});

describe('gitbeaker', () => {
  it('drives Repositories.allRepositoryTrees', async () => {
    const api = gitbeaker(t.base, t.root.token);
    const tree = await api.Repositories.allRepositoryTrees(project.id, { recursive: true, perPage: 3 });
    expect(tree.map((e) => e.path)).toEqual(['bin', 'src', 'src/lib', 'README.md', 'a.txt', 'bin/run', 'src/lib/util.ts', 'src/main.ts', 'vendor', 'zeta.txt']);
    const src = await api.Repositories.allRepositoryTrees(project.id, { path: 'src', ref: 'main' });
    expect(src).toEqual([
      { id: git('rev-parse', 'main:src/lib'), name: 'lib', type: 'tree', path: 'src/lib', mode: '040000' },
      { id: git('rev-parse', 'main:src/main.ts'), name: 'main.ts', type: 'blob', path: 'src/main.ts', mode: '100644' },
    ]);
    await expect(api.Repositories.allRepositoryTrees(project.id, { path: 'missing' })).rejects.toThrow('404 Tree Not Found');
  });
});
