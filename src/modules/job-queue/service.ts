import type { Context } from '../../core/context.ts';
import { jobStats, processMetrics, queueMetrics, type JobStats, type ProcessMetric, type QueueMetric } from '../../jobs/index.ts';

/**
 * The job queue's health as an administrator sees it (GitLab's Sidekiq metrics), read from the
 * queue's own tables each time. Each part is read only when asked for.
 */
export type JobQueueMetrics = {
  queues: () => Promise<QueueMetric[]>;
  processes: () => Promise<ProcessMetric[]>;
  jobs: () => Promise<JobStats>;
};

export function jobQueueMetrics(ctx: Context): JobQueueMetrics {
  ctx.policy.requireAdmin();
  return {
    queues: () => queueMetrics(ctx.db),
    processes: () => processMetrics(ctx.db),
    jobs: () => jobStats(ctx.db),
  };
}
