// A project answer's `empty_repo` and `readme_url` come from its row, kept by every ref change
// (API commits, branch writes, git pushes, forks, a new default branch), so that a page of
// projects opens no repository; rows older than the columns read their repository once.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';
import { remote, scratch } from './helpers/git-client.ts';

let t: TestApp;
let client: ReturnType<typeof scratch>;
let group: { id: number; full_path: string };
let viewer: Awaited<ReturnType<TestApp['user']>>;

beforeAll(async () => {
  t = await createTestApp();
  client = scratch();
  viewer = await t.user('facts-viewer');
  group = (await t.api('post', '/groups').send({ name: 'Facts', path: 'facts' }).expect(201)).body;
});
afterAll(async () => {
  client.remove();
  await t.close();
});

type Project = { id: number; path_with_namespace: string };
const create = async (name: string, readme: boolean): Promise<Project> =>
  (await t.api('post', '/projects').send({ name, namespace_id: group.id, initialize_with_readme: readme }).expect(201)).body;
const facts = async (id: number) => {
  const { empty_repo, readme_url } = (await t.api('get', `/projects/${id}`).expect(200)).body;
  return { empty_repo, readme_url };
};
/**
 * The facts once a git push's event has been heard: the server announces a push after git's answer
 * has gone out (as GitLab's post-receive runs after the push), so the client may ask first.
 */
async function factsAfterPush(id: number, expected: Awaited<ReturnType<typeof facts>>) {
  let seen = await facts(id);
  for (let attempt = 0; attempt < 100 && JSON.stringify(seen) !== JSON.stringify(expected); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen = await facts(id);
  }
  return seen;
}
const stored = async (id: number) => t.db.project.findUniqueOrThrow({ where: { id }, select: { emptyRepo: true, readmePath: true } });
const readme = (p: Project, branch: string, file: string) => `${EXTERNAL_URL}/${p.path_with_namespace}/-/blob/${branch}/${file}`;

describe('the repository facts on the project row', () => {
  it('follow API commits, branches and the default branch, and answer the same over GraphQL', async () => {
    const p = await create('Api', false);
    expect(await facts(p.id)).toEqual({ empty_repo: true, readme_url: null });
    await t.api('post', `/projects/${p.id}/repository/files/notes.txt`).send({ branch: 'main', content: 'x', commit_message: 'notes' }).expect(201);
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: null });
    await t.api('post', `/projects/${p.id}/repository/files/README.md`).send({ branch: 'main', content: '# hi', commit_message: 'readme' }).expect(201);
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: readme(p, 'main', 'README.md') });

    // Another branch whose README has another name, made the default: the README follows it.
    await t.api('post', `/projects/${p.id}/repository/branches`).query({ branch: 'docs', ref: 'main' }).expect(201);
    await t.api('delete', `/projects/${p.id}/repository/files/README.md`).send({ branch: 'docs', commit_message: 'drop' }).expect(204);
    await t.api('post', `/projects/${p.id}/repository/files/readme.rst`).send({ branch: 'docs', content: 'hi', commit_message: 'rst' }).expect(201);
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: readme(p, 'main', 'README.md') });
    const updated = (await t.api('put', `/projects/${p.id}`).send({ default_branch: 'docs' }).expect(200)).body;
    expect(updated).toMatchObject({ empty_repo: false, readme_url: readme(p, 'docs', 'readme.rst') });
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: readme(p, 'docs', 'readme.rst') });

    // Removing the README of the default branch, then the other branch: the row follows each.
    await t.api('delete', `/projects/${p.id}/repository/files/readme.rst`).send({ branch: 'docs', commit_message: 'drop' }).expect(204);
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: null });
    await t.api('delete', `/projects/${p.id}/repository/branches/main`).expect(204);
    expect(await stored(p.id)).toEqual({ emptyRepo: false, readmePath: null });

    const graphql = await t
      .graphql(`query($p: ID!) { project(fullPath: $p) { emptyRepo readmeUrl } }`, { p: p.path_with_namespace })
      .then((r) => r.body.data.project);
    expect(graphql).toEqual({ emptyRepo: false, readmeUrl: null });
  });

  it('are right in the answer of a project created with a README, and of its fork', async () => {
    const p = await create('Seeded', true);
    expect(await stored(p.id)).toEqual({ emptyRepo: false, readmePath: 'README.md' });
    const fork = (await t.api('post', `/projects/${p.id}/fork`).send({ namespace_id: group.id, path: 'seeded-fork', name: 'Seeded fork' }).expect(201)).body;
    expect(fork).toMatchObject({ empty_repo: false, readme_url: readme(fork, 'main', 'README.md') });
    expect(await stored(fork.id)).toEqual({ emptyRepo: false, readmePath: 'README.md' });
  });

  it('follow git pushes: the first branch, and a README pushed to the default branch', async () => {
    const p = await create('Pushed', false);
    const dir = path.join(client.dir, 'pushed');
    const url = remote(t.base, p.path_with_namespace, 'oauth2', t.root.token);
    await client.ok(['init', '-q', '-b', 'main', dir]);
    const commit = async (file: string) => {
      fs.writeFileSync(path.join(dir, file), `${file}\n`);
      await client.ok(['add', file], { cwd: dir });
      await client.ok(['commit', '-q', '-m', file], { cwd: dir });
    };
    await commit('code.txt');
    await client.ok(['push', '-q', url, 'main'], { cwd: dir });
    expect(await factsAfterPush(p.id, { empty_repo: false, readme_url: null })).toEqual({ empty_repo: false, readme_url: null });
    await commit('README');
    await client.ok(['push', '-q', url, 'main'], { cwd: dir });
    const withReadme = { empty_repo: false, readme_url: readme(p, 'main', 'README') };
    expect(await factsAfterPush(p.id, withReadme)).toEqual(withReadme);
  });

  it('of a row older than the columns are read from its repository once, and kept', async () => {
    const p = await create('Legacy', true);
    await t.db.$executeRaw`UPDATE projects SET empty_repo = NULL, readme_path = NULL WHERE id = ${p.id}`;
    const before = t.deps.git.handedOut;
    expect(await facts(p.id)).toEqual({ empty_repo: false, readme_url: readme(p, 'main', 'README.md') });
    expect(t.deps.git.handedOut).toBe(before + 1);
    expect(await stored(p.id)).toEqual({ emptyRepo: false, readmePath: 'README.md' });
    await facts(p.id);
    expect(t.deps.git.handedOut).toBe(before + 1);
  });
});

describe('GET /projects', () => {
  it('opens no repository and sends the same statements whatever the page size (positive controls)', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await create(`Listed ${i}`, i % 2 === 0);
      ids.push(p.id);
      await t.api('post', `/projects/${p.id}/members`).send({ user_id: viewer.id, access_level: 30 }).expect(201);
    }
    const list = (perPage: number) => async () => {
      const body = (await t.api('get', `/projects?membership=true&per_page=${perPage}`, viewer.token).expect(200)).body;
      expect(body).toHaveLength(perPage);
      return body as { id: number; empty_repo: boolean; readme_url: string | null }[];
    };
    const opened = async (run: () => Promise<unknown>) => {
      const before = t.deps.git.handedOut;
      await run();
      return t.deps.git.handedOut - before;
    };
    await expectCounterSees(t, list(1));
    expect(await countQueries(t, list(1))).toBe(3);
    expect(await countQueries(t, list(4))).toBe(3);
    expect(await opened(list(1))).toBe(0);
    expect(await opened(list(4))).toBe(0);
    const page = await list(4)();
    expect(page.map((p) => [p.empty_repo, p.readme_url !== null])).toEqual(ids.map((_, i) => [i % 2 === 0, i % 2 === 1]));
    // Positive control: the same page over rows without their facts reads each repository once.
    await t.db.$executeRaw`UPDATE projects SET empty_repo = NULL WHERE id = ANY(${ids})`;
    expect(await opened(list(4))).toBe(4);
    expect(await opened(list(4))).toBe(0);
  });
});
