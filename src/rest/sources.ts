/** The two parents members, milestones and labels hang off, as REST path prefixes. */
export const REST_SOURCES = [
  { prefix: 'projects', kind: 'Project', resource: 'Project' },
  { prefix: 'groups', kind: 'Group', resource: 'Group' },
] as const;

/** `:id` of a project or group route as the SourceInput of a mutation. */
export function sourceInput(kind: 'Project' | 'Group', ref: { id?: number; fullPath?: string }) {
  return kind === 'Project' ? { projectId: ref.id, projectPath: ref.fullPath } : { groupId: ref.id, groupPath: ref.fullPath };
}

/** A REST `:id` as the project fields of a mutation input. */
export const projectInput = (ref: { id?: number; fullPath?: string }) => ({ projectId: ref.id, projectPath: ref.fullPath });
