import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';
import { HOUSEKEEPING_QUEUE, runHousekeeping } from './service.ts';

/** Repository maintenance (git gc / prune) in the background: GitLab's project housekeeping. */
export const housekeeping = defineModule({
  name: 'housekeeping',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
  jobs: { [HOUSEKEEPING_QUEUE]: { handler: runHousekeeping, policy: 'stately', retryLimit: 2, expireInSeconds: 3600 } },
});
