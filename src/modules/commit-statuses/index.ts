import { defineModule } from '../module.ts';
import { createPipelineStatusLoader } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const commitStatuses = defineModule({
  name: 'commit-statuses',
  routes,
  loaders: { pipelineStatuses: createPipelineStatusLoader },
  operations: new URL('./operations.graphql', import.meta.url),
});
