import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { FeatureFlagDefinitionRef, FeatureFlagGateRef, FeatureFlagStateEnum } from './schema.ts';

/** The administrator's feature flag switches (GitLab's Features API) over the flags in src/flags. */
export const features = defineModule({
  name: 'features',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
