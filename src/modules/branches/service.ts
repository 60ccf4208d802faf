import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isValidBranchName } from '../../git/refs.ts';
import { REGULAR_FILE_MODE, type BranchTip, type Repository } from '../../git/repository.ts';
import { RefMovedError } from '../../git/writer.ts';
import type { Listing } from '../../core/listing.ts';
import type { Context } from '../../core/context.ts';
import { announceRefChange } from '../../core/events.ts';
import { BadRequestError, DomainError, NotFoundError } from '../../core/errors.ts';
import { readableRepository } from '../commits/service.ts';

export type Branch = BranchTip & { project: ProjectWithNamespace };

/** GitLab's DeleteBranchService answers 405 for the default branch. */
class NotAllowedError extends DomainError {
  constructor(message: string) {
    super('NOT_ALLOWED', 405, { message }, message);
  }
}

export const isDefaultBranch = (project: ProjectWithNamespace, name: string) => name === (project.defaultBranch ?? 'main');

/** Branches whose name contains `search` (GitLab's `search`), sorted by name. */
export async function branchListing(ctx: Context, project: ProjectWithNamespace, search?: string | null): Promise<Listing<Branch>> {
  const repository = await readableRepository(ctx, project);
  const all = repository.branches().filter((b) => !search || b.name.toLowerCase().includes(search.toLowerCase()));
  return {
    count: async () => all.length,
    fetch: async ({ offset, limit }) => all.slice(offset, offset + limit).map((b) => ({ ...b, project })),
  };
}

/** Names matching a glob, a page at a time (GitLab's `branchNames(searchPattern, offset, limit)`). */
export async function branchNames(ctx: Context, project: ProjectWithNamespace, pattern: string, offset: number, limit: number) {
  const repository = await readableRepository(ctx, project);
  return repository
    .branches(pattern)
    .slice(offset, offset + limit)
    .map((b) => b.name);
}

export async function findBranch(ctx: Context, project: ProjectWithNamespace, name: string): Promise<Branch | null> {
  const sha = (await readableRepository(ctx, project)).branchTip(name);
  return sha ? { name, sha, project } : null;
}

/** Who creates and deletes branches (GitLab's push_code). */
export const PUSH_CODE_LEVEL = AccessLevel.DEVELOPER;

/**
 * GitLab's Branches::CreateService on an empty repository: the default branch is created first,
 * with an empty README.md committed by the viewer, so the new branch has somewhere to start.
 * A concurrent first push wins: its branch is kept.
 */
async function createDefaultBranch(ctx: Context, project: ProjectWithNamespace, repository: Repository) {
  const branch = project.defaultBranch ?? 'main';
  const user = ctx.viewer.user!;
  const who = { name: user.name, email: user.email, date: new Date() };
  const change = { path: 'README.md', content: Buffer.alloc(0), mode: REGULAR_FILE_MODE };
  let sha: string;
  try {
    sha = await repository.writeCommit({ branch, parent: null, expectedTip: null, changes: [change], message: 'Add README.md', author: who, committer: who });
  } catch (error) {
    if (error instanceof RefMovedError) return;
    throw error;
  }
  await announceRefChange(ctx.deps, { projectId: project.id, userId: user.id, ref: `refs/heads/${branch}`, after: sha });
}

export async function createBranch(ctx: Context, project: ProjectWithNamespace, name: string, ref: string): Promise<Branch> {
  await ctx.policy.requireProjectWrite(project, PUSH_CODE_LEVEL);
  if (!isValidBranchName(name)) throw new BadRequestError('Branch name is invalid');
  const repository = await ctx.loaders.repository.load(project.id);
  if (!repository.hasBranches()) await createDefaultBranch(ctx, project, repository);
  const sha = repository.resolveCommit(ref);
  if (!sha) throw new BadRequestError('Invalid reference name');
  try {
    await repository.updateRef(`refs/heads/${name}`, sha, null);
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError('Branch already exists');
    throw error;
  }
  await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/heads/${name}`, after: sha });
  return { name, sha, project };
}

export async function deleteBranch(ctx: Context, project: ProjectWithNamespace, name: string): Promise<Branch> {
  await ctx.policy.requireProjectWrite(project, PUSH_CODE_LEVEL);
  const branch = await findBranch(ctx, project, name);
  if (!branch) throw new NotFoundError('Branch');
  if (isDefaultBranch(project, name)) throw new NotAllowedError('Cannot remove HEAD branch');
  const repository = await ctx.loaders.repository.load(project.id);
  try {
    await repository.deleteRef(`refs/heads/${name}`, branch.sha);
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError('Failed to remove branch');
    throw error;
  }
  await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/heads/${name}`, before: branch.sha });
  return branch;
}

/** The viewer may push: Developers to other branches, Maintainers to the protected default one. */
export async function canPush(ctx: Context, branch: Branch) {
  return ctx.policy.canPushToBranch(branch.project, branch.name);
}
