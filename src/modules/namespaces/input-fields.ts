import type { InputFields } from '../../graphql/payloads.ts';

// Kept apart from parents/parent-fields.ts (which needs the Project and Group types), so the projects
// and groups schemas can use them without an import cycle.

/** The input fields naming a project (see `ParentInput`): spread them into a mutation's input. */
export const projectInputFields = (t: InputFields) => ({
  projectPath: t.id({ description: 'Full path of the project.' }),
  projectId: t.int({ description: 'Id of the project (alternative to projectPath).' }),
});

/** The input fields naming a project or a group (see `ParentInput`). */
export const parentInputFields = (t: InputFields) => ({
  ...projectInputFields(t),
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
});
