import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { ProjectPermissionsRef, ProjectRef, SortDirectionEnum } from './schema.ts';

export const projects = defineModule({
  name: 'projects',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
