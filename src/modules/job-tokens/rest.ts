import { defineRoutes } from '../../rest/route.ts';
import { projectInput } from '../projects/input.ts';

export const routes = defineRoutes([
  {
    method: 'POST',
    path: '/admin/job_tokens',
    operation: 'JobTokenCreate',
    status: 201,
    variables: (p) => ({
      input: {
        ...projectInput(p.ref('project_id')),
        userId: p.int('user_id', { required: true }),
        expiresInMinutes: p.int('expires_in_minutes', { min: 1 }),
      },
    }),
    result: (data) => data.jobTokenCreate.jobToken,
  },
]);
