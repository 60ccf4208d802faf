import { gid } from '../graphql/scalars.ts';

/** The two parents members, milestones and labels hang off, as REST path prefixes. */
export const REST_SOURCES = [
  { prefix: 'projects', kind: 'Project', resource: 'Project' },
  { prefix: 'groups', kind: 'Group', resource: 'Group' },
] as const;

/** `:id` of a project or group route as the parent fields of a mutation input (`parentInputFields`). */
export function sourceInput(kind: 'Project' | 'Group', ref: { id?: number; fullPath?: string }) {
  return kind === 'Project' ? { projectId: ref.id, projectPath: ref.fullPath } : { groupId: ref.id, groupPath: ref.fullPath };
}

/** A REST `:id` as the project fields of a mutation input. */
export const projectInput = (ref: { id?: number; fullPath?: string }) => ({ projectId: ref.id, projectPath: ref.fullPath });

/**
 * A REST integer id as the typed global id (`UserID`, `GroupID`, …) a GraphQL input takes. An id
 * no row can have (0 or negative) stays one (`…/0`), so the route still answers not-found.
 */
export function globalId(className: string, id: number): string;
export function globalId(className: string, id: number | undefined): string | undefined;
export function globalId(className: string, id: number | undefined) {
  return id === undefined ? undefined : gid(className, id > 0 ? id : 0);
}
