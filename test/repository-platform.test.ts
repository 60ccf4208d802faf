import { execFileSync } from 'node:child_process';
import type { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// The repository routes GitLab clients call around commits (issue 39): blobs by id, the snapshot,
// refs containing a commit, cherry-pick and revert, merge base, signatures, contributors, merged
// branches, and a branch created in an empty repository.

let t: TestApp;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ? 'error' : 'silent' } });
  api = gitbeaker(t.base, t.root.token);
});
afterAll(() => t.close());

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(projectId), ...args])
    .toString()
    .trim();

type Project = { id: number; path_with_namespace: string };

async function project(name: string, body: Record<string, unknown> = {}): Promise<Project> {
  return (
    await t
      .api('post', '/projects')
      .send({ name, initialize_with_readme: true, ...body })
      .expect(201)
  ).body;
}

/** One commit on `branch` writing `files`. */
async function commit(p: Project, branch: string, files: Record<string, string>, message = 'change', extra: Record<string, unknown> = {}) {
  const actions = await Promise.all(
    Object.entries(files).map(async ([file_path, content]) => {
      const exists = await t.api('get', `/projects/${p.id}/repository/files/${encodeURIComponent(file_path)}?ref=${branch}`);
      return { action: exists.status === 200 ? 'update' : 'create', file_path, content };
    }),
  );
  return (
    await t
      .api('post', `/projects/${p.id}/repository/commits`)
      .send({ branch, commit_message: message, actions, ...extra })
      .expect(201)
  ).body;
}

/** A member of `p` with an api token. */
async function member(p: Project, level: number) {
  const u = await t.user();
  await t.api('post', `/projects/${p.id}/members`).send({ user_id: u.id, access_level: level }).expect(201);
  return u;
}

describe('blobs by id and the snapshot', () => {
  it('answers a blob as base64 JSON and raw bytes, 404 for a tree or an unknown id', async () => {
    const p = await project('Blobs');
    await commit(p, 'main', { 'a.txt': 'hello blob\n' });
    const blob = git(p.id, 'rev-parse', 'main:a.txt');
    const res = await t.api('get', `/projects/${p.id}/repository/blobs/${blob}`).expect(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ size: 11, encoding: 'base64', content: Buffer.from('hello blob\n').toString('base64'), sha: blob });
    // An abbreviated id names the same blob.
    expect((await t.api('get', `/projects/${p.id}/repository/blobs/${blob.slice(0, 10)}`).expect(200)).body.sha).toBe(blob);
    const raw = await t.api('get', `/projects/${p.id}/repository/blobs/${blob}/raw`).expect(200);
    expect(raw.text).toBe('hello blob\n');
    expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8');
    await t.api('get', `/projects/${p.id}/repository/blobs/${git(p.id, 'rev-parse', 'main^{tree}')}`).expect(404, { message: '404 Blob Not Found' });
    await t.api('get', `/projects/${p.id}/repository/blobs/${'0'.repeat(40)}/raw`).expect(404, { message: '404 Blob Not Found' });
    await t.api('get', `/projects/${p.id}/repository/blobs/not-a-sha`).expect(404, { message: '404 Blob Not Found' });
    // A guest of a private project reads no code.
    const guest = await member(p, 10);
    await t.api('get', `/projects/${p.id}/repository/blobs/${blob}`, guest.token).expect(403);
    const stranger = await t.user();
    await t.api('get', `/projects/${p.id}/repository/blobs/${blob}`, stranger.token).expect(404, { message: '404 Project Not Found' });
  });

  it('gives administrators a tar of the bare repository', async () => {
    const p = await project('Snap');
    const res = await t
      .api('get', `/projects/${p.id}/snapshot`)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toBe('application/x-tar');
    const listing = execFileSync('tar', ['-tf', '-'], { input: res.body as Buffer }).toString();
    expect(listing).toContain('./HEAD');
    expect(listing).toContain('./objects/');
    const maintainer = await member(p, 40);
    await t.api('get', `/projects/${p.id}/snapshot`, maintainer.token).expect(403);
    await t.api('get', `/projects/${p.id}/snapshot`, null).expect(401);
  });
});

describe('commit refs, merge base, signature, contributors', () => {
  it('lists the branches and tags holding a commit', async () => {
    const p = await project('Refs');
    const first = git(p.id, 'rev-parse', 'main');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'feature', ref: 'main' }).expect(201);
    await t.api('post', `/projects/${p.id}/repository/tags`).send({ tag_name: 'v1', ref: 'main' }).expect(201);
    await commit(p, 'main', { 'b.txt': 'b' });
    const base = `/projects/${p.id}/repository/commits/${first}/refs`;
    expect((await t.api('get', base).expect(200)).body).toEqual([
      { type: 'branch', name: 'feature' },
      { type: 'branch', name: 'main' },
      { type: 'tag', name: 'v1' },
    ]);
    expect((await t.api('get', `${base}?type=tag`).expect(200)).body).toEqual([{ type: 'tag', name: 'v1' }]);
    const head = git(p.id, 'rev-parse', 'main');
    expect((await t.api('get', `/projects/${p.id}/repository/commits/${head}/refs?type=branch`).expect(200)).body).toEqual([{ type: 'branch', name: 'main' }]);
    const paged = await t.api('get', `${base}?per_page=1&page=2`).expect(200);
    expect(paged.body).toEqual([{ type: 'branch', name: 'main' }]);
    await t.api('get', `${base}?type=other`).expect(400, { error: 'type does not have a valid value' });
    await t.api('get', `/projects/${p.id}/repository/commits/${'1'.repeat(40)}/refs`).expect(404, { message: '404 Commit Not Found' });
  });

  it('finds the merge base of two or more refs with GitLab errors', async () => {
    const p = await project('Bases');
    const root = git(p.id, 'rev-parse', 'main');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'side', ref: 'main' }).expect(201);
    await commit(p, 'main', { 'm.txt': 'm' });
    await commit(p, 'side', { 's.txt': 's' });
    const res = await t.api('get', `/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=side`).expect(200);
    expect(res.body).toMatchObject({ id: root, title: 'Initial commit', parent_ids: [] });
    await t.api('get', `/projects/${p.id}/repository/merge_base?refs[]=main`).expect(400, { message: 'Provide at least 2 refs' });
    await t.api('get', `/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=nope`).expect(400, { message: 'Could not find ref: nope' });
    await t.api('get', `/projects/${p.id}/repository/merge_base?refs[]=x&refs[]=y`).expect(400, { message: 'Could not find refs: x, y' });
    await t.api('get', `/projects/${p.id}/repository/merge_base`).expect(400, { error: 'refs is missing' });
  });

  it('answers 404 Signature Not Found for an unsigned commit, and the kind of a signed one', async () => {
    const p = await project('Signed');
    const head = git(p.id, 'rev-parse', 'main');
    await t.api('get', `/projects/${p.id}/repository/commits/${head}/signature`).expect(404, { message: '404 Signature Not Found' });
    await t.api('get', `/projects/${p.id}/repository/commits/nope/signature`).expect(404, { message: '404 Commit Not Found' });
    // A commit carrying an SSH signature header, written as a client would push it.
    const raw = git(p.id, 'cat-file', 'commit', head);
    const armour = ' -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----';
    const [header, ...body] = raw.split('\n\n');
    const signed = `${header}\ngpgsig${armour.replace(/^ /, ' ')}\n\n${body.join('\n\n')}\n`;
    const sha = execFileSync('git', ['-C', t.deps.git.pathFor(p.id), 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: signed })
      .toString()
      .trim();
    git(p.id, 'update-ref', 'refs/heads/signed', sha);
    expect((await t.api('get', `/projects/${p.id}/repository/commits/${sha}/signature`).expect(200)).body).toEqual({
      signature_type: 'SSH',
      verification_status: 'unknown_key',
      commit_source: 'gitaly',
    });
    const gql = await t.graphql(
      `{ project(id: ${p.id}) { repository { a: commit(ref: "${sha}") { signature { __typename verificationStatus } } b: commit(ref: "main") { signature { __typename } } } } }`,
    );
    expect(gql.body.data.project.repository).toEqual({
      a: { signature: { __typename: 'SshSignature', verificationStatus: 'UNKNOWN_KEY' } },
      b: { signature: null },
    });
  });

  it('lists contributors by commits, name or email, paginated', async () => {
    const p = await project('People');
    await commit(p, 'main', { 'x.txt': '1' }, 'one', { author_name: 'Zed', author_email: 'zed@example.com' });
    await commit(p, 'main', { 'x.txt': '2' }, 'two', { author_name: 'Zed', author_email: 'zed@example.com' });
    await commit(p, 'main', { 'y.txt': '1' }, 'three', { author_name: 'Amy', author_email: 'amy@example.com' });
    await commit(p, 'main', { 'y.txt': '2' }, 'four', { author_name: 'Amy', author_email: 'amy@example.com' });
    await commit(p, 'main', { 'y.txt': '3' }, 'five', { author_name: 'Amy', author_email: 'amy@example.com' });
    const base = `/projects/${p.id}/repository/contributors`;
    const byCommits = (await t.api('get', base).expect(200)).body;
    expect(byCommits).toEqual([
      { name: 'Administrator', email: t.root.email, commits: 1, additions: 0, deletions: 0 },
      { name: 'Zed', email: 'zed@example.com', commits: 2, additions: 0, deletions: 0 },
      { name: 'Amy', email: 'amy@example.com', commits: 3, additions: 0, deletions: 0 },
    ]);
    expect((await t.api('get', `${base}?order_by=name&sort=desc`).expect(200)).body.map((c: { name: string }) => c.name)).toEqual([
      'Zed',
      'Amy',
      'Administrator',
    ]);
    const page = await t.api('get', `${base}?order_by=email&per_page=1&page=2`).expect(200);
    expect(page.body.map((c: { email: string }) => c.email)).toEqual([[t.root.email, 'amy@example.com', 'zed@example.com'].sort()[1]]);
    expect(page.headers['x-total']).toBe('3');
    await t.api('get', `${base}?ref=nope`).expect(404, { message: '404 Not Found' });
    await t.api('get', `${base}?order_by=size`).expect(400, { error: 'order_by does not have a valid value' });
  });
});

describe('cherry-pick and revert', () => {
  it('picks a commit onto a branch, refuses an empty pick with error_code, supports dry runs', async () => {
    const p = await project('Picks');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'stable', ref: 'main' }).expect(201);
    const fix = await commit(p, 'main', { 'fix.txt': 'fixed\n' }, 'Fix the thing');
    const dry = await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({ branch: 'stable', dry_run: true }).expect(200);
    expect(dry.body).toEqual({ dry_run: 'success' });
    expect(git(p.id, 'rev-parse', 'stable')).toBe(git(p.id, 'rev-parse', 'main~1'));
    const picked = (await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({ branch: 'stable' }).expect(201)).body;
    expect(picked).toMatchObject({
      title: 'Fix the thing',
      message: `Fix the thing\n\n(cherry picked from commit ${fix.id})`,
      parent_ids: [git(p.id, 'rev-parse', 'main~1')],
      author_email: fix.author_email,
    });
    expect(git(p.id, 'rev-parse', 'stable')).toBe(picked.id);
    expect(git(p.id, 'show', 'stable:fix.txt')).toBe('fixed');
    const again = await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({ branch: 'stable' }).expect(400);
    expect(again.body).toEqual({
      message:
        "Commit cherry-pick failed: Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.",
      error_code: 'empty',
    });
    const dryAgain = await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({ branch: 'stable', dry_run: true }).expect(400);
    expect(dryAgain.body).toMatchObject({ error_code: 'empty', dry_run: 'error' });
    const custom = await commit(p, 'main', { 'other.txt': 'o' }, 'Other');
    const named = await t
      .api('post', `/projects/${p.id}/repository/commits/${custom.id}/cherry_pick`)
      .send({ branch: 'stable', message: 'Backport other' })
      .expect(201);
    expect(named.body.message).toBe('Backport other');
    await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({ branch: 'nope' }).expect(404, { message: '404 Branch Not Found' });
    await t
      .api('post', `/projects/${p.id}/repository/commits/${'2'.repeat(40)}/cherry_pick`)
      .send({ branch: 'stable' })
      .expect(404, { message: '404 Commit Not Found' });
    await t.api('post', `/projects/${p.id}/repository/commits/${fix.id}/cherry_pick`).send({}).expect(400, { error: 'branch is missing' });
  });

  it('reports a conflicting pick as error_code conflict', async () => {
    const p = await project('Conflicts');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'other', ref: 'main' }).expect(201);
    const mine = await commit(p, 'main', { 'same.txt': 'main version\n' });
    await commit(p, 'other', { 'same.txt': 'other version\n' });
    const res = await t.api('post', `/projects/${p.id}/repository/commits/${mine.id}/cherry_pick`).send({ branch: 'other' }).expect(400);
    expect(res.body.error_code).toBe('conflict');
  });

  it('reverts a commit, then refuses to revert it again; guests and reporters may not', async () => {
    const p = await project('Reverts');
    const change = await commit(p, 'main', { 'r.txt': 'revert me\n' }, 'Add r');
    const reverted = (await t.api('post', `/projects/${p.id}/repository/commits/${change.id}/revert`).send({ branch: 'main' }).expect(201)).body;
    expect(reverted).toMatchObject({ title: 'Revert "Add r"', message: `Revert "Add r"\n\nThis reverts commit ${change.id}.`, parent_ids: [change.id] });
    expect(git(p.id, 'ls-tree', '--name-only', 'main')).toBe('README.md');
    const again = await t.api('post', `/projects/${p.id}/repository/commits/${change.id}/revert`).send({ branch: 'main' }).expect(400);
    expect(again.body).toMatchObject({ message: expect.stringMatching(/^Commit revert failed: /), error_code: 'empty' });
    const reporter = await member(p, 20);
    await t.api('post', `/projects/${p.id}/repository/commits/${change.id}/revert`, reporter.token).send({ branch: 'main' }).expect(403);
    const developer = await member(p, 30);
    // main is protected: a Developer may pick onto other branches only.
    await t.api('post', `/projects/${p.id}/repository/commits/${change.id}/revert`, developer.token).send({ branch: 'main' }).expect(403);
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'dev', ref: change.id }).expect(201);
    await t.api('post', `/projects/${p.id}/repository/commits/${change.id}/revert`, developer.token).send({ branch: 'dev' }).expect(201);
  });

  it('runs the same change over GraphQL', async () => {
    const p = await project('Picks GQL');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'stable', ref: 'main' }).expect(201);
    const fix = await commit(p, 'main', { 'g.txt': 'g' }, 'G');
    const run = () =>
      t.graphql(
        `mutation { commitCherryPick(input: { projectId: ${p.id}, sha: "${fix.id}", branch: "stable" }) { commit { title parentIds } dryRun errors } }`,
      );
    expect((await run()).body.data.commitCherryPick).toEqual({
      commit: { title: 'G', parentIds: [git(p.id, 'rev-parse', 'main~1')] },
      dryRun: false,
      errors: [],
    });
    expect((await run()).body.data.commitCherryPick).toMatchObject({ commit: null, errors: [expect.stringMatching(/^Commit cherry-pick failed/)] });
  });
});

describe('merged branches and branches of an empty repository', () => {
  it('deletes the branches merged into the default branch, keeping protected and unmerged ones', async () => {
    const p = await project('Merged');
    for (const branch of ['done-1', 'done-2', 'open']) await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch, ref: 'main' }).expect(201);
    await commit(p, 'open', { 'wip.txt': 'wip' });
    const reporter = await member(p, 20);
    await t.api('delete', `/projects/${p.id}/repository/merged_branches`, reporter.token).expect(403);
    await t.api('delete', `/projects/${p.id}/repository/merged_branches`).expect(202, { message: '202 Accepted' });
    expect(git(p.id, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n')).toEqual(['main', 'open']);
  });

  it('creates the default branch with an empty README.md before the first branch of an empty repository', async () => {
    const p = await project('Empty', { initialize_with_readme: false });
    const created = (await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'feature', ref: 'main' }).expect(201)).body;
    expect(created).toMatchObject({ name: 'feature', commit: { title: 'Add README.md', parent_ids: [] } });
    expect(git(p.id, 'rev-parse', 'main')).toBe(created.commit.id);
    expect(git(p.id, 'ls-tree', '--name-only', 'main')).toBe('README.md');
    expect(git(p.id, 'cat-file', '-s', 'main:README.md')).toBe('0');
  });
});

describe('@gitbeaker/rest drives the repository routes', () => {
  it('calls each route through its own method', async () => {
    const p = await project('Beaker Repo');
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'stable', ref: 'main' }).expect(201);
    const fix = await commit(p, 'main', { 'beaker.txt': 'b\n' }, 'Beaker fix');
    const blob = git(p.id, 'rev-parse', 'main:beaker.txt');
    expect(await api.Repositories.showBlob(p.id, blob)).toMatchObject({ sha: blob, size: 2, encoding: 'base64', content: 'Ygo=' });
    expect(await api.Repositories.showBlobRaw(p.id, blob)).toBe('b\n');
    expect(await api.Commits.allReferences(p.id, fix.id)).toEqual([{ type: 'branch', name: 'main' }]);
    expect(await api.Repositories.mergeBase(p.id, ['main', 'stable'])).toMatchObject({ id: git(p.id, 'rev-parse', 'main~1') });
    const picked = await api.Commits.cherryPick(p.id, fix.id, 'stable');
    expect(picked).toMatchObject({ title: 'Beaker fix' });
    const reverted = await api.Commits.revert(p.id, picked.id, 'stable');
    expect(reverted).toMatchObject({ title: 'Revert "Beaker fix"' });
    expect((await api.Repositories.allContributors(p.id)).map((c) => c.commits)).toEqual([2]);
    await expect(api.Commits.showGPGSignature(p.id, fix.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'merged', ref: 'main' }).expect(201);
    expect(await api.Branches.removeMerged(p.id)).toEqual({ message: '202 Accepted' });
    expect((await api.Branches.all(p.id)).map((b) => b.name).sort()).toEqual(['main', 'stable']);
    // gitbeaker reads the tar as a Blob.
    const snapshot = (await api.Projects.downloadSnapshot(p.id)) as unknown as Blob;
    expect(execFileSync('tar', ['-tf', '-'], { input: Buffer.from(await snapshot.arrayBuffer()) }).toString()).toContain('./HEAD');
  });
});
