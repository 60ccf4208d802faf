import { defineModule } from '../module.ts';
import { createFailureLoader } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';
import { ENTITY_QUEUE, runEntity } from './service.ts';

/** Direct transfer, destination side: migrations pulled from a source GitLab instance, one job per entity. */
export const bulkImports = defineModule({
  name: 'bulk-imports',
  routes,
  loaders: { bulkImportFailures: createFailureLoader },
  operations: new URL('./operations.graphql', import.meta.url),
  // A source that is away is retried with backoff (the state is in the database: a retry resumes);
  // a run is bounded by the largest download it may make.
  jobs: { [ENTITY_QUEUE]: { handler: runEntity, retryLimit: 8, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 3600 } },
});
