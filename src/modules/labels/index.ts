import { defineModule } from '../module.ts';
import { createLabelSubscriptionLoader } from './loaders.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { LabelRef } from './schema.ts';

export const labels = defineModule({
  name: 'labels',
  routes,
  loaders: { labelSubscriptions: createLabelSubscriptionLoader },
  operations: new URL('./operations.graphql', import.meta.url),
});
