import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';
import { EXPORT_QUEUE, runRelationExport } from './service.ts';

/** Project relation exports (one background job per relation, files under DATA_DIR) and relation imports. */
export const relationExports = defineModule({
  name: 'relation-exports',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
  // A failed relation records its error in the export status; a retry would only repeat it.
  jobs: { [EXPORT_QUEUE]: { handler: runRelationExport, retryLimit: 0, expireInSeconds: 3600 } },
});
