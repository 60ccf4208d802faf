import { issueJobToken } from '../../auth/job-tokens.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';

export type JobTokenGrant = { token: string; expiresAt: Date; projectId: number; userId: number };

/**
 * Administrators mint job tokens while no CI runner issues them: the token acts as `userId`,
 * within `project` only, until it expires (minutes; one hour by default, at most a day).
 */
export async function createJobToken(ctx: Context, project: ProjectWithNamespace, userId: number, minutes?: number | null): Promise<JobTokenGrant> {
  ctx.policy.requireAdmin();
  checkInput(rules.values({ expiresInMinutes: minutes }, { expiresInMinutes: 'expires_in_minutes' }, (m: number) => m >= 1));
  const user = await ctx.loaders.user.load(userId);
  if (!user) throw new NotFoundError('User');
  const { token, expiresAt } = await issueJobToken(ctx.db, ctx.deps.secrets.tokenDigestKey, { projectId: project.id, userId, minutes: minutes ?? undefined });
  return { token, expiresAt, projectId: project.id, userId };
}
