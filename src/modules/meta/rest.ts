import { UnauthorizedError } from '../../core/errors.ts';
import { defineRoutes, route } from '../../rest/route.ts';

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/version',
    operation: 'Version',
    result: (data) => {
      if (!data.metadata) throw new UnauthorizedError();
      return data.metadata;
    },
  }),
  route({
    method: 'GET',
    path: '/metadata',
    operation: 'Metadata',
    result: (data) => {
      if (!data.metadata) throw new UnauthorizedError();
      const { version, revision, kas, enterprise } = data.metadata;
      return { version, revision, kas, enterprise };
    },
  }),
]);
