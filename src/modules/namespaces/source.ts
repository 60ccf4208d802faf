import type { Namespace } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { builder } from '../../graphql/builder.ts';
import type { Context } from '../../graphql/context.ts';
import { ParamError } from '../../graphql/errors.ts';
import { requireGroup } from '../groups/service.ts';
import { requireProject } from '../projects/service.ts';

/** What members, milestones and labels belong to: a project or a group. */
export type Source = { kind: 'project'; project: ProjectWithNamespace } | { kind: 'group'; group: Namespace };

export type SourceInput = { projectId?: number | null; projectPath?: string | null; groupId?: number | null; groupPath?: string | null };

export const SourceInputRef = builder.inputType('SourceInput', {
  description: 'Exactly one project (by id or full path) or group (by id or full path).',
  fields: (t) => ({
    projectId: t.int(),
    projectPath: t.id(),
    groupId: t.int(),
    groupPath: t.id(),
  }),
});

/** Resolves a visible project or group; 404 (`Project` / `Group`) otherwise. */
export async function resolveSource(ctx: Context, input: SourceInput): Promise<Source> {
  const project = input.projectId != null || input.projectPath != null;
  const group = input.groupId != null || input.groupPath != null;
  if (project === group) throw new ParamError('source must name exactly one project or group');
  if (project) {
    return { kind: 'project', project: await requireProject(ctx, { id: input.projectId, fullPath: input.projectPath == null ? null : String(input.projectPath) }) };
  }
  return { kind: 'group', group: await requireGroup(ctx, { id: input.groupId, fullPath: input.groupPath == null ? null : String(input.groupPath) }) };
}

export const projectSource = (project: ProjectWithNamespace): Source => ({ kind: 'project', project });
export const groupSource = (group: Namespace): Source => ({ kind: 'group', group });

export async function sourceAccessLevel(ctx: Context, source: Source): Promise<number> {
  return source.kind === 'project' ? ctx.policy.projectAccessLevel(source.project) : ctx.policy.groupAccessLevel(source.group);
}

export async function requireSourceAccess(ctx: Context, source: Source, level: number): Promise<void> {
  if (source.kind === 'project') await ctx.policy.requireProjectAccess(source.project, level);
  else await ctx.policy.requireGroupAccess(source.group, level);
}

export const sourceId = (source: Source) => (source.kind === 'project' ? source.project.id : source.group.id);

export const sourceWebPath = (source: Source) =>
  source.kind === 'project' ? `${source.project.namespace.fullPath}/${source.project.path}` : `groups/${source.group.fullPath}`;
