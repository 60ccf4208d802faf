import { defineModule } from '../module.ts';
import { createUserStatusLoader } from './loaders.ts';
import { routes } from './rest.ts';
// Registers this area's GraphQL types and fields.
import './schema.ts';

/** Users' statuses (GitLab's user_statuses): emoji, message, availability. */
export const userStatuses = defineModule({
  name: 'user-statuses',
  routes,
  loaders: { userStatuses: createUserStatusLoader },
  operations: new URL('./operations.graphql', import.meta.url),
});
