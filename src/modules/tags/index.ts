import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { TagRef } from './schema.ts';

export const tags = defineModule({
  name: 'tags',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
