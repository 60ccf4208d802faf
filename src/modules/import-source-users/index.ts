import { defineModule } from '../module.ts';
import { routes, webRoutes } from './rest.ts';
import './schema.ts';
import { NOTIFY_QUEUE, REASSIGN_QUEUE, runReassignments, sendReassignmentMail } from './service.ts';

/** Import source users: placeholders for imported contributors, and their reassignment by the group owner. */
export const importSourceUsers = defineModule({
  name: 'import-source-users',
  routes,
  webRoutes,
  operations: new URL('./operations.graphql', import.meta.url),
  jobs: {
    [REASSIGN_QUEUE]: { handler: runReassignments, retryLimit: 3 },
    [NOTIFY_QUEUE]: { handler: sendReassignmentMail, retryLimit: 3 },
  },
});
