import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NativeRepository, NativeSignature } from './native.ts';
import { GitCommandError, runGit, type GitIdentity } from './run.ts';

/**
 * What `git fast-import` leaves in a repository when it dies (a crash report per process). A failed
 * commit removes its own; the ones a crash of the server left behind are removed at start.
 */
export const FAST_IMPORT_CRASH_PREFIX = 'fast_import_crash_';

export const ZERO_OID = '0000000000000000000000000000000000000000';

/** One change to the tree: write `content` at `path` with `mode`, or remove `path`. */
export type IndexChange = { path: string; content: Buffer; mode: number } | { path: string; remove: true };

/** The branch no longer points where the commit was built from: someone else pushed first. */
export class RefMovedError extends Error {}
/** The changes leave the tree as it was. */
export class EmptyCommitError extends Error {}

export type CommitRequest = {
  branch: string;
  /** Commit the change is built on; null for the first commit of an empty repository. */
  parent: string | null;
  /** Where the branch must point at update time: the parent, or null when it must not exist yet. */
  expectedTip: string | null;
  changes: IndexChange[];
  message: string;
  author: GitIdentity;
  committer: GitIdentity;
};

/**
 * The ref fast-import builds the commit on. The stream resets it before it ends, so fast-import
 * never writes it: the branch moves only through the compare-and-swap below.
 */
const SCRATCH_REF = 'refs/forgegate/scratch';

/**
 * One commit: `git fast-import` writes the blobs, trees and commit from one stream (and prints the
 * commit id and both root trees, for the empty-commit check), then the branch moves with a
 * compare-and-swap, so a concurrent writer turns into RefMovedError instead of a lost update. Paths
 * travel quoted inside the stream, never on a command line; the ids and the branch name are ones
 * the caller validated.
 *
 * The swap runs in-process through `repo` (libgit2) when the branch exists and must still point at
 * the parent: libgit2 serialises the same commit fast-import wrote (same bytes, same id) and moves
 * the branch under git's lock file only while it still points at the parent. A branch's first
 * commit is created in-process too (see `updateRef`). That saves a second git process per commit,
 * whose fork alone blocks the event loop for milliseconds in a server of a few hundred MB.
 */
export async function commitChanges(dir: string, req: CommitRequest, repo?: NativeRepository): Promise<string> {
  const output = await fastImport(dir, commitStream(req));
  const [commit, tree, parentTree] = output
    .trim()
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.split(/\s/)[2]));
  if (!commit || !tree) throw new GitCommandError(['fast-import'], 0, `unexpected output: ${output}`);
  if (req.parent && tree === parentTree) throw new EmptyCommitError();
  const swap = repo && inProcessSwap(req);
  if (!swap) {
    await updateRef(dir, `refs/heads/${req.branch}`, commit, req.expectedTip, repo);
    return commit;
  }
  return landWithLibgit2(dir, repo, tree, swap);
}

type Swap = { branch: string; parent: string; message: string; author: NativeSignature; committer: NativeSignature };

/**
 * The request as libgit2 writes it byte for byte as fast-import did, or null where it would not:
 * a branch that must not exist yet (libgit2's commit creates a missing ref without checking), a
 * message with a NUL (libgit2 stops at it), or an identity
 * libgit2 would trim or refuse (it trims whitespace and refuses an empty email).
 */
function inProcessSwap(req: CommitRequest): Swap | null {
  if (!req.parent || req.expectedTip !== req.parent || req.message.includes('\0')) return null;
  const author = signature(req.author);
  const committer = signature(req.committer);
  if (!author || !committer) return null;
  return { branch: req.branch, parent: req.parent, message: req.message, author, committer };
}

function signature(who: GitIdentity): NativeSignature | null {
  const name = withoutCrud(who.name);
  const email = withoutCrud(who.email);
  if (!name || !email || name !== name.trim() || email !== email.trim()) return null;
  return { name, email, timeOptions: { timestamp: seconds(who), offset: 0 } };
}

/** libgit2's answer when the ref no longer points at the first parent. */
const LIBGIT2_MODIFIED = /code=Modified \(-15\)/;
/** libgit2's answers when a ref to create exists (loose or packed) or is in the way of its path. */
const LIBGIT2_TAKEN = /code=Exists \(-4\)|collides with existing one/;
/** libgit2's answer when another writer holds the ref's lock file. */
const LIBGIT2_LOCKED = /code=Locked \(-14\)/;

/** How long a ref write waits for another process's lock on the ref, polling its lock file. */
const REF_LOCK_WAIT_MS = 2_000;
const REF_LOCK_POLL_MS = 10;

/**
 * libgit2 creates ref files by the process umask, where git follows the repository's
 * `core.sharedRepository=0600`: the umask is narrowed for the call, which is synchronous, so no
 * other JavaScript runs meanwhile (a file another thread creates in that instant is only more private).
 */
function privately<T>(write: () => T): T {
  const umask = process.umask(0o077);
  try {
    return write();
  } finally {
    process.umask(umask);
  }
}

/**
 * A libgit2 write of `ref`. Another process (a second server) writing the same ref holds git's
 * lock file `<ref>.lock` from the moment it takes it until it renames it into place (or, having
 * failed, removes it), and libgit2 refuses the ref meanwhile (Locked). The write waits for that
 * writer, up to REF_LOCK_WAIT_MS, and is tried once more: it then sees what the other one wrote
 * (a branch that moved, a tag that exists). A lock held past the wait, or taken again, is a
 * conflict (RefMovedError), never a failure.
 */
async function writeRef<T>(dir: string, ref: string, write: () => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return privately(write);
    } catch (error) {
      if (!LIBGIT2_LOCKED.test((error as Error).message)) throw error;
      if (attempt > 0 || !(await lockReleased(path.join(dir, `${ref}.lock`)))) throw new RefMovedError(`${ref} is being written by another process`);
    }
  }
}

/** Whether the lock file is gone within REF_LOCK_WAIT_MS. */
async function lockReleased(lock: string): Promise<boolean> {
  for (let waited = 0; existsSync(lock); waited += REF_LOCK_POLL_MS) {
    if (waited >= REF_LOCK_WAIT_MS) return false;
    await sleep(REF_LOCK_POLL_MS);
  }
  return true;
}

/** The swap through libgit2: the commit lands only while the branch still points at the parent. */
async function landWithLibgit2(dir: string, repo: NativeRepository, tree: string, swap: Swap): Promise<string> {
  const { branch, parent, message, author, committer } = swap;
  const ref = `refs/heads/${branch}`;
  try {
    return await writeRef(dir, ref, () => repo.commit(repo.getTree(tree), message, { updateRef: ref, parents: [parent], author, committer }));
  } catch (error) {
    if (LIBGIT2_MODIFIED.test((error as Error).message)) throw new RefMovedError(`${ref} is no longer at ${parent}`);
    throw error;
  }
}

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/**
 * Creates a branch or tag that must not exist yet, through libgit2: it takes git's lock file and
 * refuses a ref that exists, loose or packed, as `git update-ref <ref> <value> 0000…` does. False
 * when git is to decide: any other kind of ref, and anything else libgit2 refuses (its name rules
 * are stricter than git's in places: it refuses a branch named `-x`, which git accepts).
 */
async function createWithLibgit2(dir: string, repo: NativeRepository, ref: string, value: string): Promise<boolean> {
  let create: (() => unknown) | null = null;
  if (ref.startsWith(HEADS)) create = () => repo.createBranch(ref.slice(HEADS.length), repo.getCommit(value), { force: false });
  else if (ref.startsWith(TAGS)) create = () => repo.createLightweightTag(ref.slice(TAGS.length), repo.getObject(value));
  if (!create) return false;
  try {
    await writeRef(dir, ref, create);
    return true;
  } catch (error) {
    if (error instanceof RefMovedError) throw error;
    if (LIBGIT2_TAKEN.test((error as Error).message)) throw new RefMovedError(`${ref} exists`);
    return false;
  }
}

function commitStream(req: CommitRequest): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  const data = (bytes: Buffer) => {
    text(`data ${bytes.length}\n`);
    parts.push(bytes);
    text('\n');
  };
  text(`commit ${SCRATCH_REF}\nmark :1\n`);
  text(`author ${identityLine(req.author)}\ncommitter ${identityLine(req.committer)}\n`);
  data(Buffer.from(req.message, 'utf8'));
  if (req.parent) text(`from ${req.parent}\n`);
  for (const change of req.changes) {
    if ('remove' in change) {
      text(`D ${quotePath(change.path)}\n`);
      continue;
    }
    text(`M ${change.mode.toString(8)} inline ${quotePath(change.path)}\n`);
    data(change.content);
  }
  text(`get-mark :1\nls :1 ""\n`);
  if (req.parent) text(`ls ${req.parent} ""\n`);
  text(`reset ${SCRATCH_REF}\ndone\n`);
  return Buffer.concat(parts);
}

async function fastImport(dir: string, stream: Buffer): Promise<string> {
  try {
    return await runGit(dir, ['fast-import', '--quiet', '--done'], { input: stream });
  } catch (error) {
    await removeCrashReports(dir);
    throw error;
  }
}

/** Removes fast-import crash reports from a repository; returns how many there were. */
export async function removeCrashReports(dir: string): Promise<number> {
  const reports = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(FAST_IMPORT_CRASH_PREFIX));
  await Promise.all(reports.map((n) => fs.rm(path.join(dir, n), { force: true })));
  return reports.length;
}

/**
 * `Name <email> seconds +0000`, cleaned the way git cleans GIT_AUTHOR_NAME and friends: leading and
 * trailing "crud" (spaces, control characters, `,:;<>"\'`) trimmed, `<`, `>` and newlines dropped,
 * so a commit reads the same as one made by `git commit-tree`.
 */
function identityLine(who: GitIdentity): string {
  const name = withoutCrud(who.name);
  if (!name) throw new GitCommandError(['fast-import'], 128, `empty ident name (for <${who.email}>) not allowed`);
  return `${name} <${withoutCrud(who.email)}> ${seconds(who)} +0000`;
}

const seconds = (who: GitIdentity) => Math.floor((who.date ?? new Date()).getTime() / 1000);

const isCrud = (c: string) => c.charCodeAt(0) <= 32 || ',:;<>"\\\''.includes(c);

function withoutCrud(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isCrud(value[start]!)) start++;
  while (end > start && isCrud(value[end - 1]!)) end--;
  return value.slice(start, end).replace(/[\n<>]/g, '');
}

/** A path as a C-style quoted string, the one form fast-import reads for any byte a path may hold. */
function quotePath(p: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are what must be escaped for fast-import
  const escaped = p.replace(/[\\"\x00-\x1f\x7f]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    return `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;
  });
  return `"${escaped}"`;
}

/**
 * Compare-and-swap of one ref; `expected` null means the ref must not exist yet. Given `repo`, a
 * branch or tag to create is created in-process, without a git process.
 */
export async function updateRef(dir: string, ref: string, value: string, expected: string | null, repo?: NativeRepository): Promise<void> {
  if (expected === null && repo && (await createWithLibgit2(dir, repo, ref, value))) return;
  try {
    await runGit(dir, ['update-ref', ref, value, expected ?? ZERO_OID]);
  } catch (error) {
    if (error instanceof GitCommandError) throw new RefMovedError(error.stderr.trim());
    throw error;
  }
}

/** Deletes a ref only while it still points at `expected`. */
export async function deleteRef(dir: string, ref: string, expected: string): Promise<void> {
  try {
    await runGit(dir, ['update-ref', '-d', ref, expected]);
  } catch (error) {
    if (error instanceof GitCommandError) throw new RefMovedError(error.stderr.trim());
    throw error;
  }
}
