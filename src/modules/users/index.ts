import { defineModule } from '../module.ts';
import { routes, webRoutes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { CurrentUserRef, UserCoreConnectionRef, UserInterface, UserRef } from './schema.ts';

export const users = defineModule({
  name: 'users',
  routes,
  webRoutes,
  operations: new URL('./operations.graphql', import.meta.url),
});
