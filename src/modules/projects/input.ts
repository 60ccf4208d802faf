import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../graphql/context.ts';
import { ParamError } from '../../graphql/errors.ts';
import { requireProject } from './service.ts';

/** How a mutation input names its project: GitLab's `projectPath`, or the numeric id REST carries. */
export type ProjectInputRef = { projectPath?: unknown; projectId?: unknown };

export const projectInputFields = (t: { id: (o?: object) => any; int: (o?: object) => any }) => ({
  projectPath: t.id({ description: 'Full path of the project.' }),
  projectId: t.int({ description: 'Id of the project (alternative to projectPath).' }),
});

/** The visible project an input names; 404 `Project` otherwise. */
export function projectFromInput(ctx: Context, input: ProjectInputRef): Promise<ProjectWithNamespace> {
  if ((input.projectPath == null) === (input.projectId == null)) throw new ParamError('give exactly one of projectPath and projectId');
  return requireProject(ctx, { id: input.projectId as number | null, fullPath: input.projectPath == null ? null : String(input.projectPath) });
}

/** A REST `:id` as the project fields of a mutation input. */
export const projectInput = (ref: { id?: number; fullPath?: string }) => ({ projectId: ref.id, projectPath: ref.fullPath });
