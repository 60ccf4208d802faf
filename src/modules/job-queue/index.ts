import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

/** The background job queue's metrics (GitLab's Sidekiq metrics) for administrators. */
export const jobQueue = defineModule({
  name: 'job-queue',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
