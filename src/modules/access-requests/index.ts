import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

/** Requests to join a group or project, and their approval or denial. */
export const accessRequests = defineModule({
  name: 'access-requests',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
