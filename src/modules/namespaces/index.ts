import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { NamespaceRef, VisibilityEnum } from './schema.ts';

export const namespaces = defineModule({
  name: 'namespaces',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
