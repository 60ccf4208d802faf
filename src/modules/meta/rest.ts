import { UnauthorizedError } from '../../graphql/errors.ts';
import { defineRoutes } from '../../rest/route.ts';

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/version',
    operation: 'Version',
    result: (data) => {
      if (!data.metadata) throw new UnauthorizedError();
      return data.metadata;
    },
  },
]);
