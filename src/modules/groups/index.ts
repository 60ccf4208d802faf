import { defineModule } from '../module.ts';
import { routes, webRoutes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { GroupRef } from './schema.ts';

export const groups = defineModule({
  name: 'groups',
  routes,
  webRoutes,
  operations: new URL('./operations.graphql', import.meta.url),
});
