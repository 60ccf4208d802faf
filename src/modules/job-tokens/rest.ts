import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';

export const routes = defineRoutes(
  [
    route({
      method: 'POST',
      path: '/admin/job_tokens',
      operation: 'JobTokenCreate',
      status: 201,
      params: { project_id: param.ref(), user_id: param.int({ required: true }), expires_in_minutes: param.int({ documented: { minimum: 1 } }) },
      variables: (v) => ({ input: { ...projectInput(v.project_id), userId: v.user_id, expiresInMinutes: v.expires_in_minutes } }),
      result: (data) => expected(data.jobTokenCreate?.jobToken, 'job token'),
    }),
  ],
  { authenticate: 'always' },
);
