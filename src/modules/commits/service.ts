import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import type { CommitInfo, Repository } from '../../git/repository.ts';

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
