import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';

export const routes = defineRoutes(
  [
    // GitLab answers 201 with no entity: the work happens in the background.
    route({
      method: 'POST',
      path: '/projects/:id/housekeeping',
      operation: 'ProjectHousekeepingStart',
      status: 201,
      params: { id: param.ref(), task: param.oneOf(['eager', 'prune'], { default: 'eager' }) },
      variables: (v) => ({ input: { ...projectInput(v.id), task: enumValue(v.task) } }),
    }),
  ],
  { authenticate: 'writes' },
);
