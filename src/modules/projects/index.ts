import { defineModule } from '../module.ts';
import { createDirectLevelLoader } from './loaders.ts';
import { routes, webRoutes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { ProjectPermissionsRef, ProjectRef, SortDirectionEnum } from './schema.ts';

export const projects = defineModule({
  name: 'projects',
  routes,
  webRoutes,
  loaders: { directProjectLevels: createDirectLevelLoader },
  operations: new URL('./operations.graphql', import.meta.url),
});
