import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gitEnv, GitCommandError, runGit, type GitIdentity } from './run.ts';

/** Temporary index files live inside the repository (under DATA_DIR), removed at start if a crash left them. */
export const TEMPORARY_INDEX_PREFIX = 'forgegate-index-';

export const ZERO_OID = '0000000000000000000000000000000000000000';

/** One change to the index: write `content` at `path` with `mode`, or remove `path`. */
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
 * One commit through plumbing: blobs with hash-object, the tree in a private temporary index,
 * commit-tree, then `update-ref <ref> <new> <old>` — a compare-and-swap, so a concurrent writer
 * turns into RefMovedError instead of a lost update. Every argument is a hex id or a name the
 * caller validated; paths travel on stdin only.
 */
export async function commitChanges(dir: string, req: CommitRequest): Promise<string> {
  const index = path.join(dir, `${TEMPORARY_INDEX_PREFIX}${randomBytes(8).toString('hex')}`);
  const env = gitEnv({ extra: { GIT_INDEX_FILE: index } });
  try {
    await runGit(dir, req.parent ? ['read-tree', req.parent] : ['read-tree', '--empty'], { env });
    const lines: string[] = [];
    for (const change of req.changes) {
      if ('remove' in change) {
        lines.push(`0 ${ZERO_OID}\t${change.path}`);
        continue;
      }
      const blob = (await runGit(dir, ['hash-object', '-w', '--stdin'], { input: change.content })).trim();
      lines.push(`${change.mode.toString(8)} ${blob}\t${change.path}`);
    }
    await runGit(dir, ['update-index', '--index-info'], { env, input: lines.join('\n') + '\n' });
    const tree = (await runGit(dir, ['write-tree'], { env })).trim();
    if (req.parent && tree === (await runGit(dir, ['rev-parse', `${req.parent}^{tree}`])).trim()) throw new EmptyCommitError();
    const commit = (
      await runGit(dir, ['commit-tree', tree, ...(req.parent ? ['-p', req.parent] : [])], {
        input: req.message,
        env: gitEnv({ author: req.author, committer: req.committer }),
      })
    ).trim();
    await updateRef(dir, `refs/heads/${req.branch}`, commit, req.expectedTip);
    return commit;
  } finally {
    await fs.rm(index, { force: true });
  }
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
