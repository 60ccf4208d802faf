// The parent (a project or a group) that members, milestones, labels, … belong to. It resolves
// through both the groups and the projects modules, so it sits above them, apart from namespaces
// (paths, visibility), which both build on.
import type { Namespace } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { ParamError } from '../../core/errors.ts';
import { MAX_ID } from '../../core/input.ts';
import { listGroups, requireGroup } from '../groups/service.ts';
import { listProjects, requireProject } from '../projects/service.ts';

/** What members, milestones, labels (and later access requests, epics, integrations …) belong to. */
export type Parent = { kind: 'project'; project: ProjectWithNamespace } | { kind: 'group'; group: Namespace };
export type ParentKind = Parent['kind'];

/**
 * How an input names its parent, GitLab's way: `projectPath` / `groupPath` (full paths), or the
 * numeric `projectId` / `groupId` a REST `:id` carries. Exactly one of the fields is given.
 */
export type ParentInput = {
  projectPath?: string | number | null;
  projectId?: number | null;
  groupPath?: string | number | null;
  groupId?: number | null;
};

const FIELDS: Record<ParentKind, readonly (keyof ParentInput)[]> = { project: ['projectPath', 'projectId'], group: ['groupPath', 'groupId'] };

/**
 * The one resolver of a parent input: the visible project or group it names, or 404 (`Project` /
 * `Group`). `kinds` says what the use case accepts (a release has a project, a label either).
 */
export async function resolveParent(ctx: Context, input: ParentInput, kinds: readonly ParentKind[] = ['project', 'group']): Promise<Parent> {
  const allowed = kinds.flatMap((kind) => FIELDS[kind]);
  const given = allowed.filter((field) => input[field] != null);
  if (given.length !== 1) throw new ParamError(`exactly one of ${allowed.join(', ')} must be given`);
  const path = (value: string | number | null | undefined) => (value == null ? null : String(value));
  if (given[0] === 'projectPath' || given[0] === 'projectId') {
    return projectParent(await requireProject(ctx, { id: input.projectId, fullPath: path(input.projectPath) }));
  }
  return groupParent(await requireGroup(ctx, { id: input.groupId, fullPath: path(input.groupPath) }));
}

/** `resolveParent` for use cases that belong to a project. */
export async function resolveProject(ctx: Context, input: ParentInput): Promise<ProjectWithNamespace> {
  const parent = await resolveParent(ctx, input, ['project']);
  return (parent as Extract<Parent, { kind: 'project' }>).project;
}

export const projectParent = (project: ProjectWithNamespace): Parent => ({ kind: 'project', project });
export const groupParent = (group: Namespace): Parent => ({ kind: 'group', group });

/** A Project or Group row (what GraphQL hands a field of either type) as its parent. */
export const parentOf = (row: ProjectWithNamespace | Namespace): Parent => ('namespaceId' in row ? projectParent(row) : groupParent(row));

export async function parentAccessLevel(ctx: Context, parent: Parent): Promise<number> {
  return parent.kind === 'project' ? ctx.policy.projectAccessLevel(parent.project) : ctx.policy.groupAccessLevel(parent.group);
}

export async function requireParentAccess(ctx: Context, parent: Parent, level: number): Promise<void> {
  if (parent.kind === 'project') await ctx.policy.requireProjectAccess(parent.project, level);
  else await ctx.policy.requireGroupAccess(parent.group, level);
}

/** Access to change what the parent holds (labels, milestones): an archived project's are read-only, as GitLab's archived features. */
export async function requireParentWrite(ctx: Context, parent: Parent, level: number): Promise<void> {
  if (parent.kind === 'project') await ctx.policy.requireProjectWrite(parent.project, level);
  else await ctx.policy.requireGroupAccess(parent.group, level);
}

export const parentId = (parent: Parent) => (parent.kind === 'project' ? parent.project.id : parent.group.id);

/** The parent's own row column: `{ projectId }` or `{ groupId }`. */
export const parentColumn = (parent: Parent) => (parent.kind === 'project' ? { projectId: parent.project.id } : { groupId: parent.group.id });

/** Ids of the groups above the parent, nearest last (what inherited members and labels come from). */
export function ancestorGroupIds(parent: Parent): number[] {
  if (parent.kind === 'group') return parent.group.traversalIds.slice(0, -1);
  return parent.project.namespace.kind === 'group' ? parent.project.namespace.traversalIds : [];
}

/** Everything a list reads: the ids below a group are few, and the list needs them all. */
const ALL = { offset: 0, limit: MAX_ID - 1 };

/**
 * The ids of what the viewer may read below a group: its subgroups at every level (with
 * `subgroups`) and its projects (in those subgroups too, with `subgroups`). Lists that GitLab
 * extends to a group's descendants (milestones, labels) read them; an unreadable subgroup or
 * project adds nothing.
 */
export async function readableBelow(ctx: Context, group: Namespace, { subgroups }: { subgroups: boolean }) {
  const [groups, projects] = await Promise.all([
    subgroups ? (await listGroups(ctx, { descendantsOf: group.id })).fetch(ALL) : [],
    listProjects(ctx, { namespaceId: group.id, includeSubgroups: subgroups }).fetch(ALL),
  ]);
  return { groupIds: groups.map((g) => g.id), projectIds: projects.map((p) => p.id) };
}
