import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { GitCommandError, gitEnv, runGit, type GitIdentity } from './run.ts';

const FULL_SHA = /^[0-9a-f]{40}$/;

function requireShas(...shas: string[]) {
  for (const sha of shas) if (!FULL_SHA.test(sha)) throw new Error(`not a commit id: ${sha}`);
}

export type RefKind = 'branch' | 'tag';
export type NamedRef = { type: RefKind; name: string };

const PREFIXES: Record<RefKind, string> = { branch: 'refs/heads/', tag: 'refs/tags/' };

/** Branches and/or tags whose history holds `sha` (`git for-each-ref --contains`), branches first, each by name. */
export async function refsContaining(dir: string, sha: string, kinds: RefKind[]): Promise<NamedRef[]> {
  requireShas(sha);
  const lists = await Promise.all(
    kinds.map(async (type) => {
      const out = await runGit(dir, ['for-each-ref', `--contains=${sha}`, '--format=%(refname)', '--sort=refname', PREFIXES[type]]);
      return out
        .split('\n')
        .filter(Boolean)
        .map((ref) => ({ type, name: ref.slice(PREFIXES[type].length) }));
    }),
  );
  return lists.flat();
}

/** Branches whose tip is reachable from `sha` (`git for-each-ref --merged`), by name. */
export async function branchesMergedInto(dir: string, sha: string): Promise<{ name: string; sha: string }[]> {
  requireShas(sha);
  const out = await runGit(dir, ['for-each-ref', `--merged=${sha}`, '--format=%(objectname) %(refname)', '--sort=refname', PREFIXES.branch]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ sha: line.slice(0, 40), name: line.slice(41 + PREFIXES.branch.length) }));
}

/** The best common ancestor of every commit given (`git merge-base`, as Gitaly's FindMergeBase); null when there is none. */
export async function mergeBaseOfAll(dir: string, shas: string[]): Promise<string | null> {
  requireShas(...shas);
  try {
    return (await runGit(dir, ['merge-base', ...shas])).trim() || null;
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === 1) return null;
    throw error;
  }
}

export type Contributor = { name: string; email: string; commits: number };

/**
 * Authors of the history of `sha`, one per email (the name of their newest commit), with their
 * commit count: Gitaly's contributors, which GitLab orders afterwards.
 */
export async function contributorsOf(dir: string, sha: string): Promise<Contributor[]> {
  requireShas(sha);
  const out = await runGit(dir, ['log', '--format=%aN%x00%aE', sha, '--']);
  const byEmail = new Map<string, Contributor>();
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [name = '', email = ''] = line.split('\0');
    const key = email.toLowerCase();
    const known = byEmail.get(key);
    if (known) known.commits += 1;
    else byEmail.set(key, { name, email, commits: 1 });
  }
  return [...byEmail.values()];
}

/** The tree a commit points to. */
export async function treeOf(dir: string, sha: string): Promise<string> {
  requireShas(sha);
  return (await runGit(dir, ['rev-parse', `${sha}^{tree}`])).trim();
}

/** A commit object over `tree` with `parents`, written with the given identities (no ref moves). */
export async function commitTree(dir: string, opts: { tree: string; parents: string[]; message: string; author: GitIdentity; committer: GitIdentity }) {
  requireShas(opts.tree, ...opts.parents);
  const args = ['commit-tree', opts.tree, ...opts.parents.flatMap((p) => ['-p', p])];
  return (await runGit(dir, args, { input: opts.message, env: gitEnv({ author: opts.author, committer: opts.committer }) })).trim();
}

/** Why a three-way change could not be made: it conflicts, or it changes nothing. */
export class TreeChangeError extends Error {
  constructor(readonly code: 'conflict' | 'empty') {
    super(code);
  }
}

/** The identity of the throwaway commits: a fixed date (git reads small timestamps as other dates), so they are the same objects every time. */
const NOBODY: GitIdentity = { name: 'forgegate', email: 'noreply@forgegate.invalid', date: new Date('2005-04-07T22:13:13Z') };

/**
 * The tree `ours` becomes when the change from `base` to `theirs` is applied to it, as
 * cherry-pick and revert compute it. git 2.39's `merge-tree --write-tree` takes its merge base
 * from history only, so the three trees go into throwaway commits whose one common ancestor is
 * `base`'s tree; nothing refers to them, and gc removes them.
 */
export async function applyChange(dir: string, trees: { base: string; ours: string; theirs: string }): Promise<string> {
  const root = await commitTree(dir, { tree: trees.base, parents: [], message: 'base', author: NOBODY, committer: NOBODY });
  const [ours, theirs] = await Promise.all(
    [trees.ours, trees.theirs].map((tree) => commitTree(dir, { tree, parents: [root], message: 'side', author: NOBODY, committer: NOBODY })),
  );
  let out: string;
  try {
    out = await runGit(dir, ['merge-tree', '--write-tree', '--no-messages', ours!, theirs!]);
  } catch (error) {
    // Exit status 1 is a conflicted merge; anything else is a failure of git itself.
    if (error instanceof GitCommandError && error.exitCode === 1) throw new TreeChangeError('conflict');
    throw error;
  }
  const tree = out.split('\n')[0]!.trim();
  if (tree === trees.ours) throw new TreeChangeError('empty');
  return tree;
}

/** The bare repository's directory as an uncompressed tar stream (GitLab's project snapshot). */
export function tarOfDirectory(dir: string): Readable {
  const child = spawn('tar', ['-C', dir, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
  child.on('error', (error) => child.stdout.destroy(error));
  return child.stdout;
}
