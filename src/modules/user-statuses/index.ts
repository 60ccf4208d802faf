import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// Registers this area's GraphQL types and fields.
import './schema.ts';

/** Users' statuses (GitLab's user_statuses): emoji, message, availability. */
export const userStatuses = defineModule({
  name: 'user-statuses',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
