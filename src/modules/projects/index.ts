import { defineModule } from '../module.ts';
import { createDirectLevelLoader, createRepositoryFactsLoader } from './loaders.ts';
import { onBranchPush } from './service.ts';
import { routes, webRoutes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { ProjectPermissionsRef, ProjectRef, SortDirectionEnum } from './schema.ts';

export const projects = defineModule({
  name: 'projects',
  routes,
  webRoutes,
  loaders: { directProjectLevels: createDirectLevelLoader, repositoryFacts: createRepositoryFactsLoader },
  // Every branch change keeps the repository's facts on the project's row.
  subscribers: { push: [onBranchPush] },
  operations: new URL('./operations.graphql', import.meta.url),
});
