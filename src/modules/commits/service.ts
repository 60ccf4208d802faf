import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { announceRefChange } from '../../core/events.ts';
import { BadRequestError, DomainError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';
import { checkFilePath, isStorablePath } from '../../git/paths.ts';
import { isValidBranchName } from '../../git/refs.ts';
import {
  EXECUTABLE_MODE,
  REGULAR_FILE_MODE,
  type CommitInfo,
  type DiffEntry,
  type LogQuery,
  type Repository,
  type TreeEntryInfo,
} from '../../git/repository.ts';
import { EmptyCommitError, RefMovedError, type IndexChange } from '../../git/writer.ts';

/**
 * The project's repository for a viewer who may read its code (Reporters and above in a private
 * project, everyone who sees an internal or public one): the one gate of every code read.
 */
export async function readableRepository(ctx: Context, project: ProjectWithNamespace): Promise<Repository> {
  await ctx.policy.requireReadCode(project);
  return ctx.loaders.repository.load(project.id);
}

/** The commit a ref names in a project's repository, for viewers who may read its code. */
export async function findCommit(ctx: Context, project: ProjectWithNamespace, ref: string): Promise<CommitInfo | null> {
  const repository = await readableRepository(ctx, project);
  const sha = repository.resolveCommit(ref);
  return sha ? repository.commit(sha) : null;
}

/** Decoded once by the router, validated once here, before any git call; `field` is GraphQL's name for it. */
export function requireFilePath(path: string, field = 'filePath', restName = 'file_path'): string {
  const checked = checkFilePath(path);
  if (checked === null) throw new ParamError(`${restName} should be a valid file path`, `${field} should be a valid file path`);
  return checked;
}

// ---------------------------------------------------------------------------------------------
// History

export type CommitsFilter = {
  /** Branch, tag or SHA; the default branch when not given. */
  ref?: string | null;
  since?: Date | string | null;
  until?: Date | string | null;
  path?: string | null;
  author?: string | null;
  all?: boolean | null;
  firstParent?: boolean | null;
  order?: 'default' | 'topo' | null;
};

const asDate = (value: Date | string | null | undefined) => (value == null ? undefined : new Date(value));

/**
 * The commits of a ref's history (GitLab's `GET /repository/commits`), newest first. An unknown
 * ref lists nothing in GraphQL; REST answers GitLab's 404 for it through `findCommit`.
 */
export async function listCommits(ctx: Context, project: ProjectWithNamespace, filter: CommitsFilter): Promise<Listing<CommitInfo>> {
  const repository = await readableRepository(ctx, project);
  const path = filter.path ? requireFilePath(filter.path.replace(/\/+$/, ''), 'path', 'path') : undefined;
  const tip = filter.all ? null : repository.resolveCommit(filter.ref ?? 'HEAD');
  const query: LogQuery = {
    from: tip ? [tip] : [],
    all: filter.all ?? false,
    since: asDate(filter.since),
    until: asDate(filter.until),
    path,
    author: filter.author ?? undefined,
    firstParent: filter.firstParent ?? false,
    order: filter.order ?? 'default',
  };
  const empty = !filter.all && !tip;
  return {
    count: async () => (empty ? 0 : repository.countHistory(query)),
    fetch: async ({ offset, limit }) => {
      if (empty || limit === 0) return [];
      const shas = await repository.history(query, { offset, limit });
      return shas.map((sha) => repository.commit(sha)!);
    },
  };
}

/** Lines added and removed by a commit, batched per request (see loaders.ts). */
export async function commitStatsOf(ctx: Context, project: ProjectWithNamespace, sha: string) {
  return ctx.loaders.commits.stats.load(project.id, sha);
}

/** A commit's changes against its first parent (the empty tree for a root commit). */
export async function commitDiffs(ctx: Context, project: ProjectWithNamespace, commit: CommitInfo): Promise<DiffEntry[]> {
  const repository = await readableRepository(ctx, project);
  return repository.diff(commit.parentIds[0] ?? null, commit.id);
}

/**
 * GitLab's patch limits (`Gitlab::Git::Diff`, the application's default `diff_max_patch_bytes`):
 * a patch past 200 KiB is too large to show, one past a tenth of that is shown collapsed.
 */
const MAX_PATCH_BYTES = 200 * 1024;
const COLLAPSE_PATCH_BYTES = MAX_PATCH_BYTES / 10;

export function diffLimits(diff: DiffEntry): { collapsed: boolean; tooLarge: boolean } {
  const bytes = Buffer.byteLength(diff.diff);
  return { collapsed: bytes > COLLAPSE_PATCH_BYTES, tooLarge: bytes > MAX_PATCH_BYTES };
}

export type FileDiffStats = { path: string; additions: number; deletions: number };

/** Lines each file's patch adds and removes (its hunks' `+` and `-` lines; binary files count none). */
export function diffStatsOf(diffs: DiffEntry[]): FileDiffStats[] {
  return diffs.map((d) => {
    let additions = 0;
    let deletions = 0;
    for (const line of d.diff.split('\n')) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
    }
    return { path: d.newPath, additions, deletions };
  });
}

/** A commit's signature as GitLab's GraphQL types it (`GpgSignature`, `SshSignature`, `X509Signature`). */
export type CommitSignature = {
  kind: 'GpgSignature' | 'SshSignature' | 'X509Signature';
  commitSha: string;
  project: ProjectWithNamespace;
  verificationStatus: 'UNKNOWN_KEY' | 'UNVERIFIED';
  gpgKeyPrimaryKeyid: string | null;
  keyFingerprintSha256: string | null;
};

/**
 * The signature of a commit, null when it is unsigned. forgegate keeps no GPG or SSH keys of its
 * users, so it verifies none: GitLab answers a GPG or SSH signature whose key it does not know
 * UNKNOWN_KEY, and an X.509 one without a trusted certificate UNVERIFIED.
 */
export async function commitSignature(ctx: Context, project: ProjectWithNamespace, sha: string): Promise<CommitSignature | null> {
  const info = (await readableRepository(ctx, project)).signature(sha);
  if (!info) return null;
  const base = { commitSha: sha, project, gpgKeyPrimaryKeyid: null, keyFingerprintSha256: null };
  if (info.kind === 'gpg') return { ...base, kind: 'GpgSignature', verificationStatus: 'UNKNOWN_KEY', gpgKeyPrimaryKeyid: info.keyId };
  if (info.kind === 'ssh') return { ...base, kind: 'SshSignature', verificationStatus: 'UNKNOWN_KEY', keyFingerprintSha256: info.fingerprintSha256 };
  return { ...base, kind: 'X509Signature', verificationStatus: 'UNVERIFIED' };
}

export type Comparison = {
  /** What the diff starts from: `from` itself (straight) or where `from` and `to` meet. */
  base: string;
  head: string;
  sameRef: boolean;
  commits: CommitInfo[];
  diffs: DiffEntry[];
};

/** Most commits a comparison lists, as GitLab's compare is bounded too. */
const COMPARE_COMMIT_LIMIT = 5000;

/**
 * GitLab's compare: the commits reachable from `to` but not from `from`, oldest first, and the
 * diff from the merge base (or `from` itself when `straight`) to `to`. Unknown refs are a 404.
 */
export async function compareRefs(
  ctx: Context,
  project: ProjectWithNamespace,
  opts: { from: string; to: string; straight?: boolean | null; fromProject?: ProjectWithNamespace | null },
): Promise<Comparison | null> {
  const repository = await readableRepository(ctx, project);
  const source = opts.fromProject && opts.fromProject.id !== project.id ? await readableRepository(ctx, opts.fromProject) : repository;
  const from = source.resolveCommit(opts.from);
  const head = repository.resolveCommit(opts.to);
  if (!from || !head) return null;
  // The other project's commit must exist here too (forks share objects in GitLab); without it there is nothing to compare.
  if (!repository.commit(from)) return null;
  const sameRef = from === head;
  // The commits are `from..to` either way; `straight` only changes where the diff starts.
  const base = opts.straight ? from : ((await repository.mergeBase(from, head)) ?? from);
  const shas = sameRef ? [] : await repository.history({ from: [head], exclude: [from], reverse: true }, { offset: 0, limit: COMPARE_COMMIT_LIMIT });
  return {
    base,
    head,
    sameRef,
    commits: shas.map((sha) => repository.commit(sha)!),
    diffs: sameRef || base === head ? [] : await repository.diff(base, head),
  };
}

// ---------------------------------------------------------------------------------------------
// Writes

export type ActionKind = 'create' | 'update' | 'delete' | 'move' | 'chmod';

export type FileAction = {
  action: ActionKind;
  filePath: string;
  previousPath?: string | null;
  content?: string | null;
  encoding?: 'text' | 'base64' | null;
  executeFilemode?: boolean | null;
  lastCommitId?: string | null;
};

export type CommitInput = {
  branch: string;
  startBranch?: string | null;
  startSha?: string | null;
  /** With a start branch or SHA: replace the branch by a commit on that start. */
  force?: boolean | null;
  message: string;
  actions: FileAction[];
  authorName?: string | null;
  authorEmail?: string | null;
};

/** GitLab answers a refused push with its own text as the whole message, not "403 Forbidden - …". */
export class PushForbiddenError extends DomainError {
  constructor() {
    const text = 'You are not allowed to push into this branch';
    super('FORBIDDEN', 403, { message: text }, text);
  }
}

const ACTIONS: readonly ActionKind[] = ['create', 'update', 'delete', 'move', 'chmod'];
const FULL_SHA = /^[0-9a-f]{40}$/;

const notOnBranch = () => new BadRequestError('You can only create or edit files when you are on a branch');

/** Where the commit starts and what the branch must still point at when it lands (Commits::CreateService). */
function commitBase(repository: Repository, input: CommitInput) {
  if (input.startBranch && input.startSha) throw new BadRequestError("You can't pass both start_branch and start_sha");
  const tip = repository.branchTip(input.branch);
  let start: string | null = null;
  if (input.startSha) {
    if (!FULL_SHA.test(input.startSha)) throw new BadRequestError(`Invalid start_sha '${input.startSha}'`);
    start = repository.resolveCommit(input.startSha);
    if (!start) throw new BadRequestError(`Cannot find start_sha '${input.startSha}'`);
  } else if (input.startBranch && input.startBranch !== input.branch) {
    start = repository.branchTip(input.startBranch);
    if (!start) throw notOnBranch();
  }
  if (start) {
    if (tip && !input.force) {
      throw new BadRequestError(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
    }
    return { parent: start, expectedTip: tip };
  }
  if (tip) return { parent: tip, expectedTip: tip };
  if (!repository.hasBranches()) return { parent: null, expectedTip: null };
  throw notOnBranch();
}

function decodeContent(action: FileAction): Buffer {
  if (action.encoding === 'base64') return Buffer.from(action.content ?? '', 'base64');
  return Buffer.from(action.content ?? '', 'utf8');
}

type Staged = { content: Buffer; mode: number } | null;

/**
 * The tree the actions build, one action after the other as Gitaly applies them: each one is
 * checked against the parent commit with the earlier actions of the same commit applied.
 */
class Worktree {
  private readonly staged = new Map<string, Staged>();

  constructor(
    private readonly repository: Repository,
    private readonly parent: string | null,
  ) {}

  private committed(path: string): TreeEntryInfo | null {
    return this.parent ? this.repository.entryAt(this.parent, path) : null;
  }

  /** The file at `path` now, with its bytes; null when there is none. */
  file(path: string): { mode: number; content: () => Buffer } | null {
    if (this.staged.has(path)) {
      const staged = this.staged.get(path)!;
      return staged && { mode: staged.mode, content: () => staged.content };
    }
    const entry = this.committed(path);
    return entry?.type === 'blob' ? { mode: entry.mode, content: () => this.repository.blobContent(entry.oid) } : null;
  }

  isDirectory(path: string): boolean {
    if ([...this.staged].some(([p, v]) => v && p.startsWith(`${path}/`))) return true;
    return this.committed(path)?.type === 'tree' || this.committed(path)?.type === 'commit';
  }

  /** A file where a parent directory of `path` would have to be. */
  fileAbove(path: string): boolean {
    const parts = path.split('/');
    return parts.slice(1).some((_, i) => this.file(parts.slice(0, i + 1).join('/')) !== null);
  }

  write(path: string, content: Buffer, mode: number) {
    this.staged.set(path, { content, mode });
  }

  remove(path: string) {
    this.staged.set(path, null);
  }

  changes(): IndexChange[] {
    return [...this.staged].flatMap(([path, value]): IndexChange[] => {
      if (value) return [{ path, content: value.content, mode: value.mode }];
      return this.committed(path) ? [{ path, remove: true }] : [];
    });
  }
}

const fileExists = () => new BadRequestError('A file with this name already exists');
const fileMissing = () => new BadRequestError("A file with this name doesn't exist");

function checkedPath(path: string | null | undefined, field: 'filePath' | 'previousPath'): string {
  // The multi-action REST route checks its `actions[n][file_path]` itself, under those names.
  const rest = field === 'filePath' ? 'file_path' : 'previous_path';
  if (!path) throw new BadRequestError('You must provide a file path');
  const checked = checkFilePath(path);
  if (checked === null) throw new ParamError(`${rest} should be a valid file path`, `${field} should be a valid file path`);
  if (!isStorablePath(checked)) throw new BadRequestError('Path cannot include directory traversal');
  return checked;
}

/** The message a stale `lastCommitId` gets: the files API's own wording for its one-file commits, else Files::MultiService's. */
function staleMessage(action: FileAction, single: boolean) {
  if (single && action.action === 'update') return 'You are attempting to update a file that has changed since you started editing it.';
  if (single && action.action === 'delete') return 'You are attempting to delete a file that has been previously updated.';
  return `The file has changed since you started editing it: ${action.filePath}`;
}

/** Applies one action to the tree after GitLab's (Gitaly's) checks. */
function apply(tree: Worktree, repository: Repository, parent: string | null, action: FileAction, single: boolean) {
  if (!ACTIONS.includes(action.action)) throw new BadRequestError(`Unknown action '${String(action.action)}'`);
  const path = checkedPath(action.filePath, 'filePath');
  const source = action.action === 'move' ? checkedPath(action.previousPath, 'previousPath') : path;
  if (action.lastCommitId && parent && repository.lastCommitFor(parent, source) !== action.lastCommitId) {
    throw new BadRequestError(staleMessage(action, single));
  }
  const modeFor = (current: number | undefined) =>
    action.executeFilemode == null ? (current ?? REGULAR_FILE_MODE) : action.executeFilemode ? EXECUTABLE_MODE : REGULAR_FILE_MODE;
  switch (action.action) {
    case 'create': {
      if (tree.isDirectory(path)) throw new BadRequestError('A directory with this name already exists');
      if (tree.file(path) || tree.fileAbove(path)) throw fileExists();
      tree.write(path, decodeContent(action), modeFor(undefined));
      return;
    }
    case 'update': {
      const file = tree.file(path);
      if (!file) throw fileMissing();
      tree.write(path, decodeContent(action), modeFor(file.mode));
      return;
    }
    case 'delete': {
      if (!tree.file(path)) throw fileMissing();
      tree.remove(path);
      return;
    }
    case 'move': {
      const file = tree.file(source);
      if (!file) throw fileMissing();
      if (source === path) return;
      if (tree.file(path) || tree.isDirectory(path) || tree.fileAbove(path)) throw fileExists();
      // Without content the file moves as it is (Gitaly's infer_content).
      const content = action.content == null ? file.content() : decodeContent(action);
      tree.remove(source);
      tree.write(path, content, modeFor(file.mode));
      return;
    }
    case 'chmod': {
      const file = tree.file(path);
      if (!file) throw fileMissing();
      tree.write(path, file.content(), action.executeFilemode ? EXECUTABLE_MODE : REGULAR_FILE_MODE);
      return;
    }
  }
}

/** The viewer may push to `branch` (Developer, Maintainer for a protected one); 401/404/403 otherwise. */
export async function requirePush(ctx: Context, project: ProjectWithNamespace, branch: string) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  await ctx.policy.requireProjectWrite(project, AccessLevel.DEVELOPER);
  if (!(await ctx.policy.canPushToBranch(project, branch))) throw new PushForbiddenError();
}

/**
 * One commit with every action of `input`, on `branch` (Commits::CreateService + Gitaly's
 * UserCommitFiles): the branch moves with a compare-and-swap from where the commit was built,
 * so a concurrent push is never overwritten; the loser gets GitLab's 400.
 */
export async function createCommit(ctx: Context, project: ProjectWithNamespace, input: CommitInput): Promise<CommitInfo> {
  await requirePush(ctx, project, input.branch);
  if (input.actions.length === 0) throw new BadRequestError('You must provide at least one action');
  if (!isValidBranchName(input.branch)) {
    throw new BadRequestError(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
  }
  const repository = await ctx.loaders.repository.load(project.id);
  const base = commitBase(repository, input);
  const tree = new Worktree(repository, base.parent);
  for (const action of input.actions) apply(tree, repository, base.parent, action, input.actions.length === 1);
  const user = ctx.viewer.user!;
  const date = new Date();
  const committer = { name: user.name, email: user.email, date };
  const author = { name: input.authorName || user.name, email: input.authorEmail || user.email, date };
  let sha: string;
  try {
    sha = await repository.writeCommit({ branch: input.branch, ...base, changes: tree.changes(), message: input.message, author, committer });
    // Refs this request resolved before the write may have moved.
    ctx.loaders.repositoryFiles.commitOfRef.clear();
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError(`Could not update refs/heads/${input.branch}. Please refresh and try again.`);
    if (error instanceof EmptyCommitError) throw new BadRequestError('No changes were made: the new content is the same as the current content');
    throw error;
  }
  // An API commit is a push of one branch, announced like a git push.
  await announceRefChange(ctx.deps, { projectId: project.id, userId: user.id, ref: `refs/heads/${input.branch}`, before: base.expectedTip, after: sha });
  return repository.commit(sha)!;
}
