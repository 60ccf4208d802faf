import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';
import { expectTwins } from './helpers/twins.ts';

let t: TestApp;
let project: { id: number };
const git = (...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...args])
    .toString()
    .trim();
const COMMITS = () => `/projects/${project.id}/repository/commits`;
const post = (body: object, token?: string) => t.api('post', COMMITS(), token).send(body);

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
});
afterAll(() => t.close());

describe('POST /projects/:id/repository/commits', () => {
  it('makes one commit of create, update, move, chmod and delete actions, applied in order', async () => {
    const before = git('rev-parse', 'main');
    const first = await post({
      branch: 'main',
      commit_message: 'Add files\n\nbody',
      actions: [
        { action: 'create', file_path: 'docs/a.txt', content: 'alpha\n' },
        { action: 'create', file_path: 'bin/run.sh', content: 'IyEvYmluL3NoCg==', encoding: 'base64' },
        { action: 'update', file_path: 'docs/a.txt', content: 'alpha\nbeta\n' },
      ],
    }).expect(201);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const sha = git('rev-parse', 'main');
    expect(first.body).toMatchObject({
      id: sha,
      short_id: sha.slice(0, 8),
      title: 'Add files',
      message: 'Add files\n\nbody',
      parent_ids: [before],
      author_name: 'Administrator',
      stats: { additions: 3, deletions: 0, total: 3 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
      trailers: {},
    });
    expect(git('show', 'main:docs/a.txt')).toBe('alpha\nbeta');
    expect(git('show', 'main:bin/run.sh')).toBe('#!/bin/sh');

    const second = await post({
      branch: 'main',
      commit_message: 'Reorganise',
      author_name: 'Scripted',
      author_email: 'script@example.com',
      actions: [
        { action: 'update', file_path: 'docs/a.txt', content: 'alpha\nbeta\ngamma\n' },
        { action: 'move', previous_path: 'docs/a.txt', file_path: 'notes/a.md' },
        { action: 'chmod', file_path: 'bin/run.sh', execute_filemode: true },
        { action: 'delete', file_path: 'README.md' },
      ],
    }).expect(201);
    expect(second.body).toMatchObject({ parent_ids: [sha], author_name: 'Scripted', author_email: 'script@example.com', committer_name: 'Administrator' });
    expect(git('rev-list', '--count', `${sha}..main`)).toBe('1');
    // The move took the content the earlier action of the same commit wrote.
    expect(git('show', 'main:notes/a.md')).toBe('alpha\nbeta\ngamma');
    expect(git('ls-tree', '-r', 'main')).toMatch(/^100755 blob \w+\tbin\/run.sh$/m);
    expect(git('ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual(['bin/run.sh', 'notes/a.md']);
  });

  it('starts new branches from start_branch or start_sha, and replaces a branch only with force', async () => {
    const main = git('rev-parse', 'main');
    const created = await post({
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'f',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }],
    }).expect(201);
    expect(created.body.parent_ids).toEqual([main]);
    const base = git('rev-parse', 'main~1');
    await post({ branch: 'feature', start_sha: base, commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] }).expect(400, {
      message: "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    });
    const forced = await post({
      branch: 'feature',
      start_sha: base,
      force: true,
      commit_message: 'x',
      actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }],
    }).expect(201);
    expect(forced.body.parent_ids).toEqual([base]);
    expect(git('rev-parse', 'feature')).toBe(forced.body.id);
    await post({
      branch: 'b2',
      start_branch: 'main',
      start_sha: base,
      commit_message: 'x',
      actions: [{ action: 'create', file_path: 'y', content: '' }],
    }).expect(400, {
      message: "You can't pass both start_branch and start_sha",
    });
    await post({ branch: 'b2', start_sha: 'abc', commit_message: 'x', actions: [{ action: 'create', file_path: 'y', content: '' }] }).expect(400, {
      message: "Invalid start_sha 'abc'",
    });
    await post({ branch: 'b2', start_sha: '1'.repeat(40), commit_message: 'x', actions: [{ action: 'create', file_path: 'y', content: '' }] }).expect(400, {
      message: `Cannot find start_sha '${'1'.repeat(40)}'`,
    });
    await post({ branch: 'b2', start_branch: 'nope', commit_message: 'x', actions: [{ action: 'create', file_path: 'y', content: '' }] }).expect(400, {
      message: 'You can only create or edit files when you are on a branch',
    });
  });

  it("answers GitLab's messages for missing and existing files, bad actions and paths, and changes nothing", async () => {
    const tip = git('rev-parse', 'main');
    const one = (action: object) => post({ branch: 'main', commit_message: 'm', actions: [action] });
    await one({ action: 'create', file_path: 'notes/a.md', content: 'again' }).expect(400, { message: 'A file with this name already exists' });
    await one({ action: 'update', file_path: 'missing.txt', content: 'x' }).expect(400, { message: "A file with this name doesn't exist" });
    await one({ action: 'delete', file_path: 'missing.txt' }).expect(400, { message: "A file with this name doesn't exist" });
    await one({ action: 'move', previous_path: 'missing.txt', file_path: 'm.txt' }).expect(400, { message: "A file with this name doesn't exist" });
    await one({ action: 'move', previous_path: 'notes/a.md', file_path: 'bin/run.sh' }).expect(400, { message: 'A file with this name already exists' });
    await one({ action: 'chmod', file_path: 'missing.txt', execute_filemode: true }).expect(400, { message: "A file with this name doesn't exist" });
    await one({ action: 'create', file_path: 'notes', content: 'x' }).expect(400, { message: 'A directory with this name already exists' });
    await one({ action: 'rename', file_path: 'a' }).expect(400, { error: 'actions[0][action] does not have a valid value' });
    await one({ action: 'create', file_path: '../../etc/passwd', content: 'x' }).expect(400, { error: 'actions[0][file_path] should be a valid file path' });
    await one({ action: 'create', content: 'x' }).expect(400, { error: 'actions[0][file_path] is missing' });
    await post({ branch: 'main', commit_message: 'm' }).expect(400, { error: 'actions is missing' });
    await post({ branch: 'main', actions: [] }).expect(400, { error: 'commit_message is missing' });
    await one({ action: 'update', file_path: 'notes/a.md', content: 'x', last_commit_id: '0'.repeat(40) }).expect(400, {
      message: 'You are attempting to update a file that has changed since you started editing it.',
    });
    await post({
      branch: 'main',
      commit_message: 'm',
      actions: [
        { action: 'create', file_path: 'ok.txt', content: 'x' },
        { action: 'update', file_path: 'notes/a.md', content: 'x', last_commit_id: '0'.repeat(40) },
      ],
    }).expect(400, { message: 'The file has changed since you started editing it: notes/a.md' });
    const lastCommit = git('log', '-1', '--format=%H', 'main', '--', 'notes/a.md');
    await one({ action: 'update', file_path: 'notes/a.md', content: 'alpha\nbeta\ngamma\n', last_commit_id: lastCommit }).expect(400, {
      message: 'No changes were made: the new content is the same as the current content',
    });
    // A failing action anywhere in the list refuses the whole commit.
    await post({
      branch: 'main',
      commit_message: 'm',
      actions: [
        { action: 'create', file_path: 'ok.txt', content: 'x' },
        { action: 'delete', file_path: 'missing' },
      ],
    }).expect(400);
    expect(git('rev-parse', 'main')).toBe(tip);
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 20 }).expect(201);
    await post({ branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'r.txt', content: 'x' }] }, guest.token).expect(403);
    const outsider = await t.user();
    await post({ branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'r.txt', content: 'x' }] }, outsider.token).expect(404, {
      message: '404 Project Not Found',
    });
  });

  it('never loses a concurrent commit: each writer lands on top of the others or gets a clean 400', async () => {
    const tip = git('rev-parse', 'main');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post({ branch: 'main', commit_message: `c${i}`, actions: [{ action: 'create', file_path: `race/${i}.txt`, content: `${i}` }] }),
      ),
    );
    for (const r of results) expect([201, 400]).toContain(r.status);
    const won = results.filter((r) => r.status === 201);
    expect(won.length).toBeGreaterThan(0);
    for (const r of results.filter((r) => r.status === 400)) expect(r.body.message).toBe('Could not update refs/heads/main. Please refresh and try again.');
    expect(Number(git('rev-list', '--count', `${tip}..main`))).toBe(won.length);
    const files = git('ls-tree', '--name-only', 'main', 'race/').split('\n');
    expect(files).toHaveLength(won.length);
  });
});

describe('GET /projects/:id/repository/commits', () => {
  it('lists the history with git log filters and offset pagination', async () => {
    const all = git('rev-list', 'main').split('\n');
    const page1 = await t.api('get', `${COMMITS()}?per_page=2`).expect(200);
    expect(page1.body.map((c: { id: string }) => c.id)).toEqual(all.slice(0, 2));
    expect(page1.headers).toMatchObject({ 'x-total': String(all.length), 'x-page': '1', 'x-per-page': '2', 'x-next-page': '2' });
    expect(page1.body[0]).not.toHaveProperty('stats');
    const page2 = await t.api('get', `${COMMITS()}?per_page=2&page=2&with_stats=true`).expect(200);
    expect(page2.body.map((c: { id: string }) => c.id)).toEqual(all.slice(2, 4));
    expect(page2.body[0].stats).toEqual(expect.objectContaining({ total: expect.any(Number) }));

    const byPath = await t.api('get', `${COMMITS()}?path=bin/run.sh`).expect(200);
    expect(byPath.body.map((c: { id: string }) => c.id)).toEqual(git('log', '--format=%H', 'main', '--', 'bin/run.sh').split('\n'));
    const byAuthor = await t.api('get', `${COMMITS()}?author=script@example`).expect(200);
    expect(byAuthor.body.map((c: { title: string }) => c.title)).toEqual(['Reorganise']);
    const feature = await t.api('get', `${COMMITS()}?ref_name=feature`).expect(200);
    expect(feature.body[0].id).toBe(git('rev-parse', 'feature'));
    const future = await t.api('get', `${COMMITS()}?since=2999-01-01T00:00:00Z`).expect(200);
    expect(future.body).toEqual([]);
    expect(future.headers['x-total']).toBe('0');
    const past = await t.api('get', `${COMMITS()}?until=2000-01-01T00:00:00Z`).expect(200);
    expect(past.body).toEqual([]);
    const everything = await t.api('get', `${COMMITS()}?all=true&per_page=100`).expect(200);
    expect(everything.body).toHaveLength(Number(git('rev-list', '--count', '--all')));
    const firstParent = await t.api('get', `${COMMITS()}?first_parent=true&order=topo&per_page=100`).expect(200);
    expect(firstParent.body.map((c: { id: string }) => c.id)).toEqual(git('rev-list', '--first-parent', '--topo-order', 'main').split('\n'));
    expect((await t.api('get', `${COMMITS()}?ref_name=no-such-branch`).expect(200)).body).toEqual([]);
    await t.api('get', `${COMMITS()}?since=yesterday`).expect(400, { error: 'since is invalid' });
    await t.api('get', `${COMMITS()}?order=newest`).expect(400, { error: 'order does not have a valid value' });
    await t.api('get', `${COMMITS()}?path=../x`).expect(400);
  });

  it('answers a page with a number of queries that does not grow with the page', async () => {
    await expectCounterSees(t, () => t.api('get', `${COMMITS()}?per_page=1`).expect(200));
    const small = await countQueries(t, () => t.api('get', `${COMMITS()}?per_page=1&with_stats=true`).expect(200));
    const large = await countQueries(t, () => t.api('get', `${COMMITS()}?per_page=20&with_stats=true`).expect(200));
    expect(large).toBe(small);
  });

  it('finds commit authors among the users in one batch, over GraphQL', async () => {
    const page = (first: number) =>
      t.graphql(`{ project(fullPath: "acme/app") { repository { commits(first: ${first}) { nodes { sha fullTitle author { username } authorGravatar } } } } }`);
    const nodes = (await page(20)).body.data.project.repository.commits.nodes as { author: { username: string } | null; authorGravatar: string }[];
    // Commits by root's address name root; the one written with another address names no one.
    expect(nodes.filter((n) => n.author?.username === 'root').length).toBeGreaterThan(1);
    expect(nodes.some((n) => n.author === null)).toBe(true);
    expect(nodes[0]!.authorGravatar).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?/);
    await expectCounterSees(t, () => page(1));
    expect(await countQueries(t, () => page(20))).toBe(await countQueries(t, () => page(1)));
  });
});

describe('GET /projects/:id/repository/commits/:sha and its diff', () => {
  it('shows a commit with stats by default, by SHA, short SHA, branch or tag', async () => {
    const sha = git('rev-parse', 'main');
    const full = (await t.api('get', `${COMMITS()}/${sha}`).expect(200)).body;
    expect(full).toMatchObject({ id: sha, project_id: project.id, status: null, last_pipeline: null, stats: { additions: 1, deletions: 0, total: 1 } });
    expect(Object.keys(full)).toEqual([
      'id',
      'short_id',
      'created_at',
      'parent_ids',
      'title',
      'message',
      'author_name',
      'author_email',
      'authored_date',
      'committer_name',
      'committer_email',
      'committed_date',
      'trailers',
      'extended_trailers',
      'web_url',
      'stats',
      'status',
      'project_id',
      'last_pipeline',
    ]);
    expect((await t.api('get', `${COMMITS()}/${sha.slice(0, 10)}`).expect(200)).body.id).toBe(sha);
    expect((await t.api('get', `${COMMITS()}/main?stats=false`).expect(200)).body).not.toHaveProperty('stats');
    await t.api('get', `${COMMITS()}/${'f'.repeat(40)}`).expect(404, { message: '404 Commit Not Found' });
    await t.api('get', `${COMMITS()}/--all`).expect(404, { message: '404 Commit Not Found' });
    await t.api('get', `${COMMITS()}/${'f'.repeat(40)}/diff`).expect(404, { message: '404 Commit Not Found' });
  });

  it('lists the diff of a commit: new, renamed, deleted and mode-changed files, paginated', async () => {
    const sha = git('log', '--format=%H', '--grep=^Reorganise$', 'main');
    const diff = await t.api('get', `${COMMITS()}/${sha}/diff`).expect(200);
    expect(diff.headers['x-total']).toBe('3');
    const byPath = Object.fromEntries(diff.body.map((d: { new_path: string }) => [d.new_path, d]));
    expect(byPath['README.md']).toMatchObject({
      old_path: 'README.md',
      a_mode: '100644',
      b_mode: '0',
      deleted_file: true,
      new_file: false,
      renamed_file: false,
    });
    expect(byPath['notes/a.md']).toMatchObject({ old_path: 'docs/a.txt', renamed_file: true, new_file: false, generated_file: false });
    expect(byPath['notes/a.md'].diff).toBe('@@ -1,2 +1,3 @@\n alpha\n beta\n+gamma\n');
    expect(byPath['bin/run.sh']).toMatchObject({ a_mode: '100644', b_mode: '100755', diff: '' });
    expect(Object.keys(diff.body[0])).toEqual([
      'diff',
      'new_path',
      'old_path',
      'a_mode',
      'b_mode',
      'new_file',
      'renamed_file',
      'deleted_file',
      'generated_file',
    ]);
    const page = await t.api('get', `${COMMITS()}/${sha}/diff?per_page=1&page=3`).expect(200);
    expect(page.body).toEqual([diff.body[2]]);
    expect(page.headers).toMatchObject({ 'x-page': '3', 'x-next-page': '', 'x-prev-page': '2' });
    const unidiff = await t.api('get', `${COMMITS()}/${sha}/diff?unidiff=true`).expect(200);
    expect(unidiff.body.find((d: { new_path: string }) => d.new_path === 'notes/a.md').diff).toMatch(/^--- a\/docs\/a.txt\n\+\+\+ b\/notes\/a.md\n@@/);
  });
});

describe('GET /projects/:id/repository/compare', () => {
  it('lists the commits from the merge base to `to`, oldest first, and their diff', async () => {
    const base = git('merge-base', 'main', 'feature');
    const compare = (await t.api('get', `/projects/${project.id}/repository/compare?from=feature&to=main`).expect(200)).body;
    const expected = git('rev-list', '--reverse', `${base}..main`).split('\n');
    expect(compare.commits.map((c: { id: string }) => c.id)).toEqual(expected);
    expect(compare.commit.id).toBe(expected[expected.length - 1]);
    expect(compare.commit).toHaveProperty('trailers');
    expect(compare.compare_same_ref).toBe(false);
    expect(compare.compare_timeout).toBe(false);
    expect(compare.web_url).toBe(`http://gitlab.test/acme/app/-/compare/feature...main`);
    // git's ancestry suffixes name commits too, as GitLab's rev-parse reads them.
    const back = (await t.api('get', `/projects/${project.id}/repository/compare?from=main~2&to=main`).expect(200)).body;
    expect(back.commits.map((c: { id: string }) => c.id)).toEqual(git('rev-list', '--reverse', 'main~2..main').split('\n'));
    expect((await t.api('get', `${COMMITS()}/main%5E`).expect(200)).body.id).toBe(git('rev-parse', 'main^'));
    expect((await t.api('get', `${COMMITS()}/main%5E2`).expect(404)).body).toEqual({ message: '404 Commit Not Found' });
    expect(compare.diffs.map((d: { new_path: string }) => d.new_path).sort()).toEqual(git('diff', '--name-only', '-M', base, 'main').split('\n').sort());
    const straight = (await t.api('get', `/projects/${project.id}/repository/compare?from=feature&to=main&straight=true`).expect(200)).body;
    expect(straight.diffs.map((d: { new_path: string }) => d.new_path)).toContain('x.txt');
    const same = (await t.api('get', `/projects/${project.id}/repository/compare?from=main&to=main`).expect(200)).body;
    expect(same).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
    await t.api('get', `/projects/${project.id}/repository/compare?from=nope&to=main`).expect(404, { message: '404 Ref Not Found' });
    await t.api('get', `/projects/${project.id}/repository/compare?from=main`).expect(400, { error: 'to is missing' });
    await t.api('get', `/projects/${project.id}/repository/compare?from=main&to=main&from_project_id=999999`).expect(404);
  });
});

describe('GraphQL twins', () => {
  it('reads the same commit, list and stats through REST and GraphQL', async () => {
    const sha = git('rev-parse', 'main');
    await expectTwins(
      t,
      t.root.token,
      {
        rest: `${COMMITS()}/${sha}`,
        graphql: `query($p: ID!, $ref: String!) { project(fullPath: $p) { repository { commit(ref: $ref) { sha shortId title parentIds authorEmail stats { additions deletions total } } } } }`,
        variables: { p: 'acme/app', ref: sha },
        at: 'project.repository.commit',
        fields: { id: 'sha', short_id: 'shortId', title: 'title', parent_ids: 'parentIds', author_email: 'authorEmail', stats: 'stats' },
      },
      'visible',
    );
    const outsider = await t.user();
    await expectTwins(
      t,
      outsider.token,
      {
        rest: `${COMMITS()}/${sha}`,
        graphql: `{ project(fullPath: "acme/app") { repository { commit(ref: "main") { sha } } } }`,
        at: 'project.repository.commit',
        fields: {},
      },
      'not-found',
    );
    const list = await t.graphql(`{ project(fullPath: "acme/app") { repository { commits(path: "bin/run.sh", first: 5) { count nodes { sha } } } } }`);
    const rest = (await t.api('get', `${COMMITS()}?path=bin/run.sh`).expect(200)).body;
    expect(list.body.data.project.repository.commits).toEqual({ count: rest.length, nodes: rest.map((c: { id: string }) => ({ sha: c.id })) });
    const compare = await t.graphql(
      `{ project(fullPath: "acme/app") { repository { compare(from: "feature", to: "main") { compareSameRef commit { sha } commits { sha } diffs { newPath } } } } }`,
    );
    const restCompare = (await t.api('get', `/projects/${project.id}/repository/compare?from=feature&to=main`).expect(200)).body;
    expect(compare.body.data.project.repository.compare).toEqual({
      compareSameRef: false,
      commit: { sha: restCompare.commit.id },
      commits: restCompare.commits.map((c: { id: string }) => ({ sha: c.id })),
      diffs: restCompare.diffs.map((d: { new_path: string }) => ({ newPath: d.new_path })),
    });
  });

  it("runs GitLab's commitCreate document with typed variables, MOVE and CHMOD", async () => {
    const document = `mutation commitChanges($input: CommitCreateInput!) {
      commitCreate(input: $input) { commit { sha title } content commitPipelinePath clientMutationId errors }
    }`;
    const input = {
      projectPath: 'acme/app',
      branch: 'gql-branch',
      startBranch: 'main',
      message: 'From the web IDE',
      clientMutationId: 'abc',
      actions: [
        { action: 'CREATE', filePath: 'web/new.txt', content: 'bmV3', encoding: 'BASE64' },
        { action: 'MOVE', previousPath: 'notes/a.md', filePath: 'notes/b.md' },
        { action: 'CHMOD', filePath: 'bin/run.sh', executeFilemode: false },
      ],
    };
    const created = await t.graphql(document, { input });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.commitCreate).toEqual({
      commit: { sha: git('rev-parse', 'gql-branch'), title: 'From the web IDE' },
      content: ['bmV3'],
      commitPipelinePath: null,
      clientMutationId: 'abc',
      errors: [],
    });
    expect(git('show', 'gql-branch:web/new.txt')).toBe('new');
    expect(git('ls-tree', 'gql-branch', 'bin/run.sh')).toMatch(/^100644 /);
    expect(git('ls-tree', '--name-only', 'gql-branch', 'notes/')).toBe('notes/b.md');
    const refused = await t.graphql(document, {
      input: { ...input, branch: 'gql-branch', startBranch: undefined, actions: [{ action: 'DELETE', filePath: 'nope' }] },
    });
    expect(refused.body.data.commitCreate).toMatchObject({ commit: null, errors: ["A file with this name doesn't exist"], clientMutationId: 'abc' });
    const badEnum = await t.graphql(document, { input: { ...input, actions: [{ action: 'RENAME', filePath: 'x' }] } });
    expect(badEnum.body.errors[0].message).toMatch(/RENAME/);
  });
});

describe('gitbeaker', () => {
  it('drives Commits.all/show/create/showDiff and Repositories.compare', async () => {
    const api = gitbeaker(t.base, t.root.token);
    const created = await api.Commits.create(project.id, 'main', 'Via gitbeaker', [
      { action: 'create', filePath: 'gb/one.txt', content: 'one\n' },
      { action: 'create', filePath: 'gb/two.txt', content: 'two\n' },
    ]);
    expect(created).toMatchObject({ id: git('rev-parse', 'main'), title: 'Via gitbeaker', stats: { additions: 2, deletions: 0, total: 2 } });
    const all = await api.Commits.all(project.id, { refName: 'main', perPage: 2, maxPages: 2 });
    expect(all.map((c) => c.id)).toEqual(git('rev-list', '-4', 'main').split('\n'));
    const expanded = await api.Commits.all(project.id, { path: 'gb', perPage: 1, showExpanded: true, maxPages: 1 });
    expect(expanded.paginationInfo).toMatchObject({ total: 1, totalPages: 1, current: 1 });
    expect(expanded.data[0].id).toBe(created.id);
    const shown = await api.Commits.show(project.id, created.id as string);
    expect(shown).toMatchObject({ id: created.id, project_id: project.id, stats: { total: 2 } });
    const diff = await api.Commits.showDiff(project.id, created.id as string);
    expect(diff.map((d) => [d.new_path, d.new_file, d.diff])).toEqual([
      ['gb/one.txt', true, '@@ -0,0 +1 @@\n+one\n'],
      ['gb/two.txt', true, '@@ -0,0 +1 @@\n+two\n'],
    ]);
    const compare = await api.Repositories.compare(project.id, (created.parent_ids as string[])[0], created.id as string);
    expect(compare.commits?.map((c) => c.id)).toEqual([created.id]);
    await expect(api.Commits.create(project.id, 'main', 'dup', [{ action: 'create', filePath: 'gb/one.txt', content: 'x' }])).rejects.toThrow(
      'A file with this name already exists',
    );
    await expect(api.Commits.show(project.id, 'f'.repeat(40))).rejects.toThrow('404 Commit Not Found');
  });
});
