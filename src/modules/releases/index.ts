import { defineModule } from '../module.ts';
import { createReleaseLoaders } from './loaders.ts';
import { routes, webRoutes } from './rest.ts';
// The GraphQL types other areas reference or extend, and the link view the release-links fields
// answer with (importing them registers this area's schema).
export { linkParent, ReleaseAssetLinkRef, ReleaseAssetLinkTypeEnum, ReleaseAssetsRef } from './schema.ts';

export const releases = defineModule({
  name: 'releases',
  routes,
  webRoutes,
  loaders: { releases: createReleaseLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
