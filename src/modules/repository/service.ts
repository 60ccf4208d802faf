import type { Readable } from 'node:stream';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { announceRefChange } from '../../core/events.ts';
import { BadRequestError, NotFoundError } from '../../core/errors.ts';
import type { Contributor, NamedRef, RefKind } from '../../git/inspect.ts';
import { TreeChangeError } from '../../git/inspect.ts';
import type { CommitInfo, Repository } from '../../git/repository.ts';
import { RefMovedError } from '../../git/writer.ts';
import { isDefaultBranch, PUSH_CODE_LEVEL } from '../branches/service.ts';
import { readableRepository, requirePush } from '../commits/service.ts';
import { requireCodeOfProject } from '../projects/service.ts';

// ---------------------------------------------------------------------------------------------
// Reads

export type BlobObject = { sha: string; size: number; projectId: number };

/** A blob named by its object id (GitLab's `repository/blobs/:sha`); null when there is no such blob. */
export async function findBlobObject(ctx: Context, project: ProjectWithNamespace, sha: string): Promise<BlobObject | null> {
  const repository = await readableRepository(ctx, project);
  const oid = repository.blobId(sha);
  return oid ? { sha: oid, size: await repository.blobSize(oid), projectId: project.id } : null;
}

/** The whole content of a blob found by `findBlobObject`, the viewer checked again (it is read after the operation). */
export async function blobObjectContent(ctx: Context, blob: BlobObject): Promise<Buffer> {
  const project = await requireCodeOfProject(ctx, blob.projectId);
  return (await ctx.loaders.repository.load(project.id)).blobContent(blob.sha);
}

export type RefScope = 'branch' | 'tag' | 'all';

const KINDS: Record<RefScope, RefKind[]> = { branch: ['branch'], tag: ['tag'], all: ['branch', 'tag'] };

/** The branches and tags a commit is in (GitLab's `commits/:sha/refs`), branches first. */
export async function refsContaining(ctx: Context, project: ProjectWithNamespace, sha: string, scope: RefScope): Promise<NamedRef[]> {
  return (await readableRepository(ctx, project)).refsContaining(sha, KINDS[scope]);
}

/**
 * The best common ancestor of two or more refs (GitLab's `repository/merge_base`): fewer refs or
 * an unknown one is a 400 with GitLab's message; unrelated histories are null (404 Merge Base).
 */
export async function mergeBaseOf(ctx: Context, project: ProjectWithNamespace, refs: string[]): Promise<CommitInfo | null> {
  if (refs.length < 2) throw new BadRequestError('Provide at least 2 refs');
  const repository = await readableRepository(ctx, project);
  const shas = refs.map((ref) => repository.resolveCommit(ref));
  const unknown = refs.filter((_, i) => !shas[i]);
  if (unknown.length > 0) throw new BadRequestError(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
  const base = await repository.mergeBaseOfAll(shas as string[]);
  return base ? repository.commit(base) : null;
}

export type ContributorOrder = { ref?: string | null; orderBy?: 'name' | 'email' | 'commits' | null; sort?: 'asc' | 'desc' | null };

/** Per-line counts are not computed (Gitaly does not either): GitLab answers 0 for both. */
export type ContributorRow = Contributor & { additions: number; deletions: number };

/** Authors of a ref's history (the default branch by default), GitLab's order: by commits ascending unless told. */
export async function listContributors(ctx: Context, project: ProjectWithNamespace, order: ContributorOrder): Promise<ContributorRow[] | null> {
  const repository = await readableRepository(ctx, project);
  const tip = repository.resolveCommit(order.ref || 'HEAD');
  if (!tip) return null;
  const key = order.orderBy ?? 'commits';
  const direction = order.sort === 'desc' ? -1 : 1;
  const rows = (await repository.contributors(tip)).map((c) => ({ ...c, additions: 0, deletions: 0 }));
  return rows.sort((a, b) => direction * (key === 'commits' ? a.commits - b.commits : a[key].localeCompare(b[key])));
}

/** The bare repository as a tar stream, for administrators only (GitLab's project snapshot). */
export async function repositorySnapshot(ctx: Context, projectId: number): Promise<Readable> {
  ctx.policy.requireAdmin();
  const project = await requireCodeOfProject(ctx, projectId);
  return (await ctx.loaders.repository.load(project.id)).snapshot();
}

// ---------------------------------------------------------------------------------------------
// Writes

/**
 * Deletes every branch merged into the default branch, but the default branch and protected
 * ones (GitLab's DeleteMergedService); each deletion a compare-and-swap, so a branch that moved
 * meanwhile stays. Answers how many went.
 */
export async function deleteMergedBranches(ctx: Context, project: ProjectWithNamespace): Promise<number> {
  await ctx.policy.requireProjectAccess(project, PUSH_CODE_LEVEL);
  const repository = await ctx.loaders.repository.load(project.id);
  const head = repository.resolveCommit('HEAD');
  if (!head) return 0;
  // The default branch is the one protected branch here.
  const merged = (await repository.branchesMergedInto(head)).filter((b) => !isDefaultBranch(project, b.name));
  let deleted = 0;
  for (const branch of merged) {
    try {
      await repository.deleteRef(`refs/heads/${branch.name}`, branch.sha);
    } catch (error) {
      if (error instanceof RefMovedError) continue;
      throw error;
    }
    deleted++;
    await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/heads/${branch.name}`, before: branch.sha });
  }
  return deleted;
}

export type ChangeKind = 'cherry-pick' | 'revert';

export type ChangeInput = { sha: string; branch: string; message?: string | null; dryRun?: boolean | null };

/** What a change answers: the new commit, or, for a dry run, nothing written. */
export type ChangeResult = { commit: CommitInfo | null; dryRun: boolean };

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** GitLab's ChangeService failure: its sentence and why (`conflict` or `empty`), and `dry_run` when asked. */
function changeFailed(kind: ChangeKind, code: string, dryRun: boolean) {
  const status = kind === 'cherry-pick' ? 'Commit cherry-pick failed' : 'Commit revert failed';
  const message = `${status}: Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.`;
  return new BadRequestError(message, 'BAD_REQUEST', dryRun ? { message, error_code: code, dry_run: 'error' } : { message, error_code: code });
}

/** GitLab's default messages: the picked message with where it came from, or `Revert "<title>"`. */
function changeMessage(kind: ChangeKind, commit: CommitInfo): string {
  if (kind === 'cherry-pick') return `${commit.message.replace(/\n+$/, '')}\n\n(cherry picked from commit ${commit.id})`;
  return `Revert "${commit.title.trim()}"\n\nThis reverts commit ${commit.id}.`;
}

/** Where the change starts and ends: a pick applies parent → commit, a revert commit → parent. */
function changeEnds(kind: ChangeKind, commit: CommitInfo) {
  const parent = commit.parentIds[0] ?? EMPTY_TREE;
  return kind === 'cherry-pick' ? { base: parent, theirs: commit.id } : { base: commit.id, theirs: parent };
}

async function landChange(ctx: Context, project: ProjectWithNamespace, repository: Repository, branch: string, tip: string, sha: string) {
  try {
    await repository.updateRef(`refs/heads/${branch}`, sha, tip);
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError(`Could not update refs/heads/${branch}. Please refresh and try again.`);
    throw error;
  }
  await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/heads/${branch}`, before: tip, after: sha });
}

/**
 * Cherry-picks or reverts a commit onto a branch as one new commit by the viewer (GitLab's
 * CherryPickService / RevertService): 404 for an unknown commit or branch, a 400 with
 * `error_code` when the change conflicts or changes nothing; a dry run writes nothing.
 */
export async function changeCommit(ctx: Context, project: ProjectWithNamespace, kind: ChangeKind, input: ChangeInput): Promise<ChangeResult> {
  await requirePush(ctx, project, input.branch);
  const repository = await ctx.loaders.repository.load(project.id);
  const sha = repository.resolveCommit(input.sha);
  const commit = sha && repository.commit(sha);
  if (!commit) throw new NotFoundError('Commit');
  const tip = repository.branchTip(input.branch);
  if (!tip) throw new NotFoundError('Branch');
  const user = ctx.viewer.user!;
  const committer = { name: user.name, email: user.email, date: new Date() };
  // A pick keeps the author of the picked commit, as git does; a revert is the viewer's own.
  const author = kind === 'cherry-pick' ? { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate } : committer;
  let created: string;
  try {
    const message = input.message || changeMessage(kind, commit);
    created = await repository.commitChange({ parent: tip, ...changeEnds(kind, commit), message, author, committer });
  } catch (error) {
    if (error instanceof TreeChangeError) throw changeFailed(kind, error.code, input.dryRun ?? false);
    throw error;
  }
  if (input.dryRun) return { commit: null, dryRun: true };
  await landChange(ctx, project, repository, input.branch, tip, created);
  ctx.loaders.repositoryFiles.commitOfRef.clear();
  return { commit: repository.commit(created), dryRun: false };
}
