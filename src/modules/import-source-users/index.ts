import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';
import { REASSIGN_QUEUE, runReassignments } from './service.ts';

/** Import source users: placeholders for imported contributors, and their reassignment by the group owner. */
export const importSourceUsers = defineModule({
  name: 'import-source-users',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
  jobs: { [REASSIGN_QUEUE]: { handler: runReassignments, retryLimit: 3 } },
});
