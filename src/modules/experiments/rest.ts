import { defineRoutes, route } from '../../rest/route.ts';
import { expected } from '../../rest/shape.ts';

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/experiments',
      operation: 'Experiments',
      result: (data) =>
        expected(data.experiments, 'experiments').map((e) => {
          const status = expected(e.current_status, 'current_status');
          return { ...e, current_status: { ...status, state: status.state?.toLowerCase() ?? null } };
        }),
    }),
  ],
  { authenticate: 'always' },
);
