import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { ConflictError } from '../../core/errors.ts';
import { housekeep, type HousekeepingTask } from '../../git/housekeeping.ts';
import type { JobContext } from '../../jobs/index.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';

export const HOUSEKEEPING_QUEUE = 'repository-housekeeping';

type HousekeepingJob = { projectId: number; task: HousekeepingTask };

/**
 * Queues maintenance of the project's repository (maintainers, as GitLab's `admin_project`).
 * One request may wait per project: the queue is `stately` and keyed by project, so a second
 * request before the first has started is a 409, whichever server process receives it.
 */
export async function startHousekeeping(ctx: Context, input: ParentInput & { task?: HousekeepingTask | null }): Promise<ProjectWithNamespace> {
  const project = await resolveProject(ctx, input);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  const job: HousekeepingJob = { projectId: project.id, task: input.task ?? 'eager' };
  const id = await ctx.deps.jobs.send(HOUSEKEEPING_QUEUE, job, { singletonKey: String(project.id) });
  if (!id) throw new ConflictError('Housekeeping was already requested for this project and has not started yet');
  return project;
}

/** The job: the project may have been deleted since it was queued; then there is nothing to do. */
export async function runHousekeeping(data: HousekeepingJob, job: JobContext): Promise<void> {
  const project = await job.deps.db.project.findUnique({ where: { id: data.projectId }, select: { id: true } });
  if (!project) return;
  await housekeep(job.deps.git, project.id, data.task);
}
