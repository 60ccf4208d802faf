import { defineModule } from '../module.ts';
import { createReleaseLoaders } from './loaders.ts';
import { routes, webRoutes } from './rest.ts';
import './schema.ts';

export const releases = defineModule({
  name: 'releases',
  routes,
  webRoutes,
  loaders: { releases: createReleaseLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
