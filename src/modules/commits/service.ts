import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { CommitInfo } from '../../git/reader.ts';
import type { Context } from '../../graphql/context.ts';

/** The commit a ref names in a project's repository, for viewers who may read its code. */
export async function findCommit(ctx: Context, project: ProjectWithNamespace, ref: string): Promise<CommitInfo | null> {
  await ctx.policy.requireReadCode(project);
  const reader = await ctx.loaders.repository.load(project.id);
  const sha = reader.resolveCommit(ref);
  return sha ? reader.commit(sha) : null;
}
