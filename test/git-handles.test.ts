// The libgit2 handles the git store keeps from one request to the next: reused, still seeing what
// other processes write into the repository (pushes, other servers, git's own housekeeping), and
// let go in time (es-git frees what a handle read only with the handle).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_READ_BYTES } from '../src/git/repository.ts';
import { HANDLE_USES } from '../src/git/store.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function projectWithReadme(name: string): Promise<number> {
  const res = await t.api('post', '/projects').send({ name, initialize_with_readme: true }).expect(201);
  return res.body.id;
}

const readme = async (id: number) => (await t.api('get', `/projects/${id}/repository/files/README.md/raw?ref=main`).expect(200)).text;

/** `git` in the project's bare repository, as another process would run it. */
const git = (id: number, args: string[], input?: string) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(id), ...args], {
    input,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Other',
      GIT_AUTHOR_EMAIL: 'o@example.com',
      GIT_COMMITTER_NAME: 'Other',
      GIT_COMMITTER_EMAIL: 'o@example.com',
    },
  }).trim();

/** A commit on main that replaces README.md, written by git's plumbing outside the server. */
function commitOutside(id: number, text: string) {
  const blob = git(id, ['hash-object', '-w', '--stdin'], text);
  const tree = git(id, ['mktree'], `100644 blob ${blob}\tREADME.md\n`);
  const parent = git(id, ['rev-parse', 'refs/heads/main']);
  const commit = git(id, ['commit-tree', tree, '-p', parent, '-m', text]);
  git(id, ['update-ref', 'refs/heads/main', commit, parent]);
}

describe('kept repository handles', () => {
  it('open a repository once, then serve every request from the same handle', async () => {
    const before = t.deps.git.opens;
    const id = await projectWithReadme('Kept');
    // Positive control: the counter sees the open that writing the README needed.
    expect(t.deps.git.opens).toBe(before + 1);
    for (let i = 0; i < 3; i++) expect(await readme(id)).toContain('Kept');
    expect(t.deps.git.opens).toBe(before + 1);
  });

  it('see commits, ref moves and repacks made by other processes at once', async () => {
    const id = await projectWithReadme('Outside');
    expect(await readme(id)).toContain('Outside');
    const opens = t.deps.git.opens;

    // A loose object and a loose ref written after the handle was opened.
    commitOutside(id, 'second\n');
    expect(await readme(id)).toBe('second\n');

    // Everything packed, the loose objects and refs gone: the handle finds the new pack.
    git(id, ['gc', '--prune=now', '--quiet']);
    expect(await readme(id)).toBe('second\n');
    commitOutside(id, 'third\n');
    expect(await readme(id)).toBe('third\n');

    // The pack it has open replaced by another one.
    git(id, ['repack', '-a', '-d', '--quiet']);
    commitOutside(id, 'fourth\n');
    expect(await readme(id)).toBe('fourth\n');
    expect(t.deps.git.opens).toBe(opens);
  });

  it('are dropped with the repository: a repository made again in its place is opened anew', async () => {
    const id = await projectWithReadme('Dropped');
    await readme(id);
    await t.deps.git.remove(id);
    await t.deps.git.init(id, 'main');
    const opens = t.deps.git.opens;
    await t.api('get', `/projects/${id}/repository/files/README.md/raw?ref=main`).expect(404, { message: '404 Commit Not Found' });
    expect(t.deps.git.opens).toBe(opens + 1);
  });

  it('are let go after HANDLE_USES requests, and at once after a big blob', async () => {
    const id = await projectWithReadme('Recycled');
    const opens = t.deps.git.opens;
    // The project's creation used the handle once; the reads use it up.
    for (let i = 1; i < HANDLE_USES; i++) await readme(id);
    expect(t.deps.git.opens).toBe(opens);
    await readme(id);
    expect(t.deps.git.opens).toBe(opens + 1);

    const big = 'x'.repeat(LARGE_READ_BYTES);
    await t.api('post', `/projects/${id}/repository/files/big.txt`).send({ branch: 'main', content: big, commit_message: 'big' }).expect(201);
    await readme(id);
    const beforeBig = t.deps.git.opens;
    expect((await t.api('get', `/projects/${id}/repository/files/big.txt/raw?ref=main`).expect(200)).text).toBe(big);
    expect(t.deps.git.opens).toBe(beforeBig);
    await readme(id);
    expect(t.deps.git.opens).toBe(beforeBig + 1);
  });
});
