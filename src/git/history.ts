import { runGit } from './run.ts';

/** A filter over the history, as `git log` reads it; every revision is a full commit id the caller resolved. */
export type LogQuery = {
  /** Commits whose history is walked; ignored with `all`. */
  from: string[];
  /** Commits whose history is left out (`^sha`): the base of a comparison. */
  exclude?: string[];
  all?: boolean;
  since?: Date;
  until?: Date;
  /** A repository path (checked by the caller); travels after `--`, never as an option. */
  path?: string;
  /** Matches author name or email, as `git log --author` does (a regular expression). */
  author?: string;
  firstParent?: boolean;
  /** `default`: reverse chronological; `topo`: children before parents, branches kept together. */
  order?: 'default' | 'topo';
  reverse?: boolean;
};

export type DiffStats = { additions: number; deletions: number; total: number };

/** One changed file between two trees, as GitLab's diff entity carries it. */
export type DiffEntry = {
  oldPath: string;
  newPath: string;
  aMode: string;
  bMode: string;
  diff: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  generatedFile: boolean;
};

const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * git's raw time (`@<seconds>`). git reads dates only up to 2099-12-31T23:59:59Z: a later one it
 * silently takes as "now", which lets the commits of the current second through a far-future
 * `since`. Later dates are clamped to that last second, which selects the same commits.
 */
const GIT_LAST_SECOND = 4_102_444_799;
const gitTime = (date: Date) => `@${Math.max(0, Math.min(Math.floor(date.getTime() / 1000), GIT_LAST_SECOND))}`;

function revisions(query: LogQuery): string[] {
  for (const sha of [...query.from, ...(query.exclude ?? [])]) if (!FULL_SHA.test(sha)) throw new Error(`not a commit id: ${sha}`);
  const args: string[] = [];
  if (query.since) args.push(`--since=${gitTime(query.since)}`);
  if (query.until) args.push(`--until=${gitTime(query.until)}`);
  // `--author=<pattern>` is one argument: the pattern can never become an option of its own.
  if (query.author) args.push(`--author=${query.author}`, '--regexp-ignore-case', '--fixed-strings');
  if (query.firstParent) args.push('--first-parent');
  if (query.order === 'topo') args.push('--topo-order');
  if (query.all) args.push('--all');
  else args.push(...query.from, ...(query.exclude ?? []).map((sha) => `^${sha}`));
  args.push('--');
  if (query.path) args.push(query.path);
  return args;
}

/** Commit ids of the history a query selects, newest first (oldest first with `reverse`), `offset`/`limit` applied by git. */
export async function logCommits(dir: string, query: LogQuery, page: { offset: number; limit: number }): Promise<string[]> {
  const args = ['log', '--format=%H', `--skip=${page.offset}`, `--max-count=${page.limit}`];
  if (query.reverse) args.push('--reverse');
  const out = await runGit(dir, [...args, ...revisions(query)]);
  return out.split('\n').filter(Boolean);
}

/** How many commits a query selects. */
export async function countCommits(dir: string, query: LogQuery): Promise<number> {
  return Number((await runGit(dir, ['rev-list', '--count', ...revisions(query)])).trim());
}

/** The common ancestor two commits meet at; null for unrelated histories. */
export async function mergeBase(dir: string, a: string, b: string): Promise<string | null> {
  if (!FULL_SHA.test(a) || !FULL_SHA.test(b)) throw new Error('not a commit id');
  try {
    return (await runGit(dir, ['merge-base', a, b])).trim() || null;
  } catch {
    return null;
  }
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * Added and removed lines of each commit against its first parent (the empty tree for a root
 * commit), for many commits in one git call. Binary files count no lines, as in GitLab.
 */
export async function commitStats(dir: string, shas: string[]): Promise<Map<string, DiffStats>> {
  const stats = new Map<string, DiffStats>();
  if (shas.length === 0) return stats;
  for (const sha of shas) if (!FULL_SHA.test(sha)) throw new Error(`not a commit id: ${sha}`);
  const out = await runGit(dir, ['show', '--no-walk=unsorted', '--numstat', '--no-renames', '--diff-merges=first-parent', '--format=%x01%H', ...shas]);
  for (const block of out.split('\x01').filter(Boolean)) {
    const [sha, ...lines] = block.split('\n');
    const s = { additions: 0, deletions: 0, total: 0 };
    for (const line of lines) {
      const [added, removed] = line.split('\t');
      if (added === undefined || removed === undefined) continue;
      s.additions += Number(added) || 0;
      s.deletions += Number(removed) || 0;
    }
    s.total = s.additions + s.deletions;
    stats.set(sha.trim(), s);
  }
  return stats;
}

const mode = (m: string) => (/^0+$/.test(m) ? '0' : m);

/**
 * The changes from `from` (a commit, or null for the empty tree) to `to`: one entry per file,
 * renames detected, each with its patch from the first hunk header on, as GitLab returns it.
 */
export async function diffCommits(dir: string, from: string | null, to: string): Promise<DiffEntry[]> {
  for (const sha of [from ?? EMPTY_TREE, to]) if (!FULL_SHA.test(sha)) throw new Error(`not a commit id: ${sha}`);
  const base = from ?? EMPTY_TREE;
  const common = ['-r', '-M', '--no-commit-id', '--full-index', base, to];
  const [raw, patch] = await Promise.all([runGit(dir, ['diff-tree', '-z', '--raw', ...common]), runGit(dir, ['diff-tree', '-p', '--no-color', ...common])]);
  const entries: Omit<DiffEntry, 'diff'>[] = [];
  const fields = raw.split('\0');
  for (let i = 0; i < fields.length - 1; ) {
    const header = fields[i++];
    if (!header.startsWith(':')) continue;
    const [aMode, bMode, , , status] = header.slice(1).split(' ');
    const kind = status.charAt(0);
    const first = fields[i++];
    const second = kind === 'R' || kind === 'C' ? fields[i++] : first;
    entries.push({
      oldPath: first,
      newPath: second,
      aMode: mode(aMode),
      bMode: mode(bMode),
      newFile: kind === 'A',
      renamedFile: kind === 'R',
      deletedFile: kind === 'D',
      generatedFile: false,
    });
  }
  // The patch lists the same files in the same order, each starting with its `diff --git` line.
  const patches = patch.split(/^diff --git .*\n/m).slice(1);
  return entries.map((entry, n) => ({ ...entry, diff: hunks(patches[n] ?? '') }));
}

/** A file's patch without git's header lines: from the first `@@` (or the binary notice) on. */
function hunks(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('@@') || line.startsWith('Binary files'));
  return start < 0 ? '' : lines.slice(start).join('\n');
}
