import fs from 'node:fs/promises';
import path from 'node:path';
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
 * One commit in two git processes: `fast-import` writes the blobs, trees and commit from one stream
 * (and prints the commit id and both root trees, for the empty-commit check), then
 * `update-ref <ref> <new> <old>` moves the branch with a compare-and-swap, so a concurrent writer
 * turns into RefMovedError instead of a lost update. Paths travel quoted inside the stream, never on
 * a command line; the ids and the branch name are ones the caller validated.
 */
export async function commitChanges(dir: string, req: CommitRequest): Promise<string> {
  const output = await fastImport(dir, commitStream(req));
  const [commit, tree, parentTree] = output.trim().split('\n').map((line, i) => (i === 0 ? line : line.split(/\s/)[2]));
  if (!commit || !tree) throw new GitCommandError(['fast-import'], 0, `unexpected output: ${output}`);
  if (req.parent && tree === parentTree) throw new EmptyCommitError();
  await updateRef(dir, `refs/heads/${req.branch}`, commit, req.expectedTip);
  return commit;
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
  const seconds = Math.floor((who.date ?? new Date()).getTime() / 1000);
  return `${name} <${withoutCrud(who.email)}> ${seconds} +0000`;
}

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
  const escaped = p.replace(/[\\"\x00-\x1f\x7f]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    return `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;
  });
  return `"${escaped}"`;
}

/** Compare-and-swap of one ref; `expected` null means the ref must not exist yet. */
export async function updateRef(dir: string, ref: string, value: string, expected: string | null): Promise<void> {
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
