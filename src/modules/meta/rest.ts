import { defineRoutes, route } from '../../rest/route.ts';
import { expected } from '../../rest/shape.ts';

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/version',
      operation: 'Version',
      result: (data) => expected(data.metadata, 'metadata'),
    }),
    route({
      method: 'GET',
      path: '/metadata',
      operation: 'Metadata',
      result: (data) => {
        const { version, revision, kas, enterprise } = expected(data.metadata, 'metadata');
        return { version, revision, kas, enterprise };
      },
    }),
  ],
  { authenticate: 'always' },
);
