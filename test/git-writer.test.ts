// The commit writer against real bare repositories: what `git fast-import` writes must read back
// the same as a commit made with git's own plumbing, and its failures must leave nothing behind.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { native } from '../src/git/native.ts';
import { GitStore } from '../src/git/store.ts';
import { commitChanges, EmptyCommitError, RefMovedError, updateRef, type CommitRequest } from '../src/git/writer.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-writer-'));
const store = new GitStore(path.join(root, 'repositories'));
let dir: string;
let nextId = 1;

const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
const date = new Date('2026-01-02T03:04:05Z');
const alice = { name: 'Alice', email: 'alice@example.com', date };

/** The libgit2 handle the server's Repository passes, through which a branch moves in-process. */
const handle = () => native.openRepository(dir, { bare: true });

/**
 * The git subcommands `run` spawns, through a `git` on PATH that notes its first argument and runs
 * the real one.
 */
async function spawnedGit(run: () => Promise<unknown>): Promise<string[]> {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = fs.mkdtempSync(path.join(root, 'bin-'));
  const log = path.join(bin, 'calls');
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$1" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const previous = process.env.PATH;
  process.env.PATH = `${bin}:${previous}`;
  try {
    await run();
  } finally {
    process.env.PATH = previous;
  }
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
}

function request(over: Partial<CommitRequest>): CommitRequest {
  return { branch: 'main', parent: null, expectedTip: null, changes: [], message: 'message\n', author: alice, committer: alice, ...over };
}

beforeEach(async () => {
  const id = nextId++;
  await store.init(id, 'main');
  dir = store.pathFor(id);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('commitChanges', () => {
  it('writes any path git can store, with its mode, and reads back byte for byte', async () => {
    const paths = ['plain.txt', 'with space/and "quotes".txt', 'back\\slash', 'tab\there', 'ünïcødé/文件.md', '"leading-quote'];
    const changes = paths.map((p, i) => ({ path: p, content: Buffer.from(`${i}\n`), mode: 0o100644 }));
    changes.push({ path: 'run.sh', content: Buffer.from([0, 1, 2, 255]), mode: 0o100755 });
    const sha = await commitChanges(dir, request({ changes }));
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(sha);
    // `<mode> <type> <id>\t<path>`, unquoted with -z.
    const listed = git('ls-tree', '-r', '-z', sha)
      .split('\0')
      .filter(Boolean)
      .map((line) => `${line.split(' ')[0]} ${line.slice(line.indexOf('\t') + 1)}`);
    expect(listed.sort()).toEqual([...paths.map((p) => `100644 ${p}`), '100755 run.sh'].sort());
    expect(execFileSync('git', ['-C', dir, 'cat-file', 'blob', `${sha}:run.sh`])).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(git('cat-file', 'blob', `${sha}:with space/and "quotes".txt`)).toBe('1\n');
    expect(git('fsck', '--strict', '--no-dangling')).toBe('');
  });

  it('builds on the parent: modifies, removes, and keeps the rest; the scratch ref is never written', async () => {
    const first = await commitChanges(
      dir,
      request({
        changes: [
          { path: 'a/b.txt', content: Buffer.from('b'), mode: 0o100644 },
          { path: 'c.txt', content: Buffer.from('c'), mode: 0o100644 },
        ],
      }),
    );
    const second = await commitChanges(
      dir,
      request({
        parent: first,
        expectedTip: first,
        changes: [
          { path: 'a/b.txt', remove: true },
          { path: 'd.txt', content: Buffer.from('d'), mode: 0o100644 },
        ],
      }),
      await handle(),
    );
    expect(git('rev-parse', `${second}^`).trim()).toBe(first);
    expect(git('ls-tree', '-r', '--name-only', second).trim().split('\n')).toEqual(['c.txt', 'd.txt']);
    expect(git('for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');
  });

  it('cleans identities the way git does, so the commit reads as commit-tree would write it', async () => {
    const author = { name: ' <Bob> "the builder";\n', email: '<bob@example.com>', date };
    const sha = await commitChanges(dir, request({ author, message: 'subject\n\nbody' }));
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: '1767323045 +0000',
      GIT_COMMITTER_NAME: alice.name,
      GIT_COMMITTER_EMAIL: alice.email,
      GIT_COMMITTER_DATE: '1767323045 +0000',
    };
    const tree = git('rev-parse', `${sha}^{tree}`).trim();
    const reference = execFileSync('git', ['-C', dir, 'commit-tree', tree], { input: 'subject\n\nbody', env, encoding: 'utf8' }).trim();
    expect(sha).toBe(reference);
    await expect(commitChanges(dir, request({ author: { name: ' <> ', email: 'x@y', date } }))).rejects.toThrow(/empty ident name/);
  });

  it('moves an existing branch in-process (one git process), writing the commit git would write', async () => {
    const first = await commitChanges(dir, request({ changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] }));
    const author = { name: ' <Bob> "the builder";\n', email: '<bob@example.com>', date };
    const repo = await handle();
    let second = '';
    const spawned = await spawnedGit(async () => {
      second = await commitChanges(
        dir,
        request({
          parent: first,
          expectedTip: first,
          author,
          message: 'subject\n\nbody',
          changes: [{ path: 'b.txt', content: Buffer.from('b'), mode: 0o100644 }],
        }),
        repo,
      );
    });
    expect(spawned).toEqual(['fast-import']);
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(second);
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: '1767323045 +0000',
      GIT_COMMITTER_NAME: alice.name,
      GIT_COMMITTER_EMAIL: alice.email,
      GIT_COMMITTER_DATE: '1767323045 +0000',
    };
    const tree = git('rev-parse', `${second}^{tree}`).trim();
    const reference = execFileSync('git', ['-C', dir, 'commit-tree', tree, '-p', first], { input: 'subject\n\nbody', env, encoding: 'utf8' }).trim();
    expect(second).toBe(reference);
    // A stale parent is refused by libgit2 as by git, and the branch stays where it is.
    await expect(
      commitChanges(dir, request({ parent: first, expectedTip: first, changes: [{ path: 'c.txt', content: Buffer.from('c'), mode: 0o100644 }] }), repo),
    ).rejects.toBeInstanceOf(RefMovedError);
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(second);
    // A branch that must not exist yet is created in-process too; a message libgit2 would cut at a NUL takes `git update-ref`.
    let topic = '';
    const created = await spawnedGit(async () => {
      topic = await commitChanges(
        dir,
        request({ branch: 'topic', parent: second, expectedTip: null, changes: [{ path: 'd.txt', content: Buffer.from('d'), mode: 0o100644 }] }),
        repo,
      );
    });
    expect(created).toEqual(['fast-import']);
    expect(git('rev-parse', 'refs/heads/topic').trim()).toBe(topic);
    expect(git('fsck', '--strict', '--no-dangling')).toBe('');
    const nul = await spawnedGit(() =>
      commitChanges(
        dir,
        request({
          branch: 'topic',
          parent: topic,
          expectedTip: topic,
          message: 'a\0b',
          changes: [{ path: 'e.txt', content: Buffer.from('e'), mode: 0o100644 }],
        }),
        repo,
      ),
    );
    expect(nul).toEqual(['fast-import', 'update-ref']);
    expect(git('cat-file', 'commit', 'refs/heads/topic')).toContain('a\0b');
  });

  it('refuses a commit that changes nothing, and a branch that moved, without touching the branch', async () => {
    const first = await commitChanges(dir, request({ changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] }));
    await expect(
      commitChanges(dir, request({ parent: first, expectedTip: first, changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] })),
    ).rejects.toBeInstanceOf(EmptyCommitError);
    const second = await commitChanges(
      dir,
      request({ parent: first, expectedTip: first, changes: [{ path: 'b.txt', content: Buffer.from('b'), mode: 0o100644 }] }),
    );
    // Through git (no handle) and through libgit2 alike.
    await expect(
      commitChanges(
        dir,
        request({ parent: first, expectedTip: first, changes: [{ path: 'c.txt', content: Buffer.from('c'), mode: 0o100644 }] }),
        await handle(),
      ),
    ).rejects.toBeInstanceOf(RefMovedError);
    const stale = commitChanges(dir, request({ parent: first, expectedTip: first, changes: [{ path: 'c.txt', content: Buffer.from('c'), mode: 0o100644 }] }));
    await expect(stale).rejects.toBeInstanceOf(RefMovedError);
    await expect(
      commitChanges(
        dir,
        request({ branch: 'main', parent: first, expectedTip: null, changes: [{ path: 'd.txt', content: Buffer.from('d'), mode: 0o100644 }] }),
      ),
    ).rejects.toBeInstanceOf(RefMovedError);
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(second);
  });

  it('waits for another process holding a ref lock: lands or creates when it let go, refuses cleanly when it wrote the ref', async () => {
    const first = await commitChanges(dir, request({ changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] }));
    const lock = path.join(dir, 'refs', 'heads', 'main.lock');
    const change = (name: string) => request({ parent: first, expectedTip: first, changes: [{ path: name, content: Buffer.from(name), mode: 0o100644 }] });
    // A lock nobody lets go of is a conflict once the wait is over, not a failure (waited out
    // while the cases below run, on a branch of its own).
    git('update-ref', 'refs/heads/held', first);
    const heldLock = path.join(dir, 'refs', 'heads', 'held.lock');
    fs.writeFileSync(heldLock, `${first}\n`);
    const held = commitChanges(
      dir,
      request({ branch: 'held', parent: first, expectedTip: first, changes: [{ path: 'h.txt', content: Buffer.from('h'), mode: 0o100644 }] }),
      await handle(),
    );
    const heldOutcome = held.then(
      () => 'landed',
      (error: unknown) => error,
    );
    // A second server updating the branch holds git's lock file until it renames it into place
    // (or removes it, having failed). libgit2 refuses the ref meanwhile (Locked): that was a 500.
    fs.writeFileSync(lock, `${first}\n`);
    const landing = commitChanges(dir, change('b.txt'), await handle());
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.rmSync(lock);
    const second = await landing;
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(second);
    // The holder moves the branch: the commit built on the old tip is a clean conflict.
    const identity = { GIT_AUTHOR_NAME: 'Other', GIT_AUTHOR_EMAIL: 'other@example.com', GIT_COMMITTER_NAME: 'Other', GIT_COMMITTER_EMAIL: 'other@example.com' };
    const other = execFileSync('git', ['-C', dir, 'commit-tree', `${second}^{tree}`, '-p', second, '-m', 'other'], {
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', ...identity },
    }).trim();
    fs.writeFileSync(lock, `${other}\n`);
    const refused = commitChanges(
      dir,
      request({ parent: second, expectedTip: second, changes: [{ path: 'c.txt', content: Buffer.from('c'), mode: 0o100644 }] }),
      await handle(),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.renameSync(lock, path.join(dir, 'refs', 'heads', 'main'));
    await expect(refused).rejects.toBeInstanceOf(RefMovedError);
    expect(git('rev-parse', 'refs/heads/main').trim()).toBe(other);
    // Creating a ref meets the same lock: created once the other writer let go, refused (it
    // exists) once the other writer renamed its lock into place.
    const created = path.join(dir, 'refs', 'heads', 'created.lock');
    fs.writeFileSync(created, `${first}\n`);
    const creating = updateRef(dir, 'refs/heads/created', first, null, await handle());
    const taken = path.join(dir, 'refs', 'heads', 'taken.lock');
    fs.writeFileSync(taken, `${first}\n`);
    const taking = updateRef(dir, 'refs/heads/taken', second, null, await handle()).then(
      () => 'created',
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.rmSync(created);
    fs.renameSync(taken, path.join(dir, 'refs', 'heads', 'taken'));
    await creating;
    expect(git('rev-parse', 'refs/heads/created').trim()).toBe(first);
    expect(await taking).toBeInstanceOf(RefMovedError);
    expect(git('rev-parse', 'refs/heads/taken').trim()).toBe(first);
    expect(await heldOutcome).toBeInstanceOf(RefMovedError);
    fs.rmSync(heldLock);
    expect(git('rev-parse', 'refs/heads/held').trim()).toBe(first);
  });

  it('creates a branch or tag in-process only while it does not exist, loose or packed, and privately', async () => {
    const first = await commitChanges(dir, request({ changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] }));
    const repo = await handle();
    const again = (branch: string) =>
      commitChanges(
        dir,
        request({ branch, parent: first, expectedTip: null, changes: [{ path: `${branch}.txt`, content: Buffer.from(branch), mode: 0o100644 }] }),
        repo,
      );
    // main is a loose ref; after pack-refs, only packed-refs has it.
    await expect(again('main')).rejects.toBeInstanceOf(RefMovedError);
    git('pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, 'refs/heads/main'))).toBe(false);
    await expect(again('main')).rejects.toBeInstanceOf(RefMovedError);
    // A branch whose name would need `main` to be a folder is in the way of it, as git says.
    await expect(again('main/sub')).rejects.toBeInstanceOf(RefMovedError);
    expect(git('for-each-ref', '--format=%(refname) %(objectname)').trim()).toBe(`refs/heads/main ${first}`);
    // Positive control: a new name is created, mode 0600 whatever the umask.
    const umask = process.umask(0o022);
    try {
      const topic = await again('topic');
      expect(git('rev-parse', 'refs/heads/topic').trim()).toBe(topic);
      expect(fs.statSync(path.join(dir, 'refs/heads/topic')).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(umask);
    }
    const tags = await spawnedGit(() => updateRef(dir, 'refs/tags/v1', first, null, repo));
    expect(tags).toEqual([]);
    expect(git('rev-parse', 'refs/tags/v1').trim()).toBe(first);
    await expect(updateRef(dir, 'refs/tags/v1', first, null, repo)).rejects.toBeInstanceOf(RefMovedError);
    // A name libgit2 refuses and git accepts is git's to decide: it creates it, and refuses it twice.
    expect(await spawnedGit(() => updateRef(dir, 'refs/heads/-dash', first, null, repo))).toEqual(['update-ref']);
    expect(git('rev-parse', 'refs/heads/-dash').trim()).toBe(first);
    await expect(updateRef(dir, 'refs/heads/-dash', first, null, repo)).rejects.toBeInstanceOf(RefMovedError);
    expect(git('fsck', '--strict', '--no-dangling')).toBe('');
  });

  it('removes the crash report of a failed import, and the server removes any a crash left', async () => {
    await expect(commitChanges(dir, request({ parent: '1'.repeat(40), expectedTip: '1'.repeat(40) }))).rejects.toThrow(/Not a valid commit/);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('fast_import_crash_'))).toEqual([]);
    fs.writeFileSync(path.join(dir, 'fast_import_crash_4242'), 'x');
    expect(await store.removeLeftoverTemporaryFiles()).toBe(1);
    expect(fs.existsSync(path.join(dir, 'fast_import_crash_4242'))).toBe(false);
  });

  it('creates repositories that accept force pushes (branch protection refuses them, not git)', () => {
    expect(git('config', 'receive.denyNonFastForwards').trim()).toBe('false');
    expect(git('config', 'core.sharedRepository').trim()).toBe('0600');
  });

  it('creates bare repositories that only the server user can read, on the default branch, and keeps an existing one', async () => {
    const id = nextId++;
    // Under a permissive umask, and with no git to run: the layout is written, not made by `git init`.
    const previous = { umask: process.umask(0o022), path: process.env.PATH };
    process.env.PATH = '/nonexistent';
    try {
      await store.init(id, 'trunk');
    } finally {
      process.umask(previous.umask);
      process.env.PATH = previous.path;
    }
    dir = store.pathFor(id);
    expect(git('rev-parse', '--is-bare-repository').trim()).toBe('true');
    expect(git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/trunk');
    const modes = (folder: string): string[] =>
      fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(folder, entry.name);
        const mode = `${path.relative(dir, full)} ${(fs.statSync(full).mode & 0o777).toString(8)}`;
        return entry.isDirectory() ? [mode, ...modes(full)] : [mode];
      });
    expect(modes(dir).filter((m) => !/ (700|600)$/.test(m))).toEqual([]);
    expect(modes(dir)).toContain('objects/pack 700');
    // git itself accepts it: a commit, a ref update and a consistency check.
    const sha = await commitChanges(dir, request({ branch: 'trunk', changes: [{ path: 'a.txt', content: Buffer.from('a'), mode: 0o100644 }] }));
    expect(git('fsck', '--strict').trim()).toBe('');
    await store.init(id, 'main');
    expect(git('rev-parse', 'HEAD').trim()).toBe(sha);
    expect(fs.readdirSync(path.dirname(dir)).filter((n) => n.includes('.init-'))).toEqual([]);
  });
});
