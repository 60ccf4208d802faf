// The background job queue's metrics: GitLab serves Sidekiq's through REST only
// (`/sidekiq/queue_metrics`, `/sidekiq/process_metrics`, `/sidekiq/job_stats`); our REST routes run this.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "GitLab's job queue metrics are REST-only (`/sidekiq/*_metrics`, administrators); our REST routes run this";

export const types: ReferenceType[] = [
  ...['JobQueue', 'JobQueueMetrics', 'JobQueueProcess', 'JobQueueStats'].map((name) => ({ name, notGitLab: REST_ONLY })),
  { name: 'Query', kept: { jobQueueMetrics: REST_ONLY } },
];
