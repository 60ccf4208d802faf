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

/**
 * GitLab's Sidekiq always has its `default` queue, and scripts read `queues.default`; forgegate's
 * queues are named by area, so `default` is listed empty (its real numbers when a job uses it).
 */
const DEFAULT_QUEUE = 'default';

async function withDefaultQueue(queues: Promise<QueueMetric[]>): Promise<QueueMetric[]> {
  const listed = await queues;
  if (listed.some((q) => q.name === DEFAULT_QUEUE)) return listed;
  return [...listed, { name: DEFAULT_QUEUE, backlog: 0, latency: 0, latencySeconds: 0 }].sort((a, b) => a.name.localeCompare(b.name));
}

export function jobQueueMetrics(ctx: Context): JobQueueMetrics {
  ctx.policy.requireAdmin();
  return {
    queues: () => withDefaultQueue(queueMetrics(ctx.db)),
    processes: () => processMetrics(ctx.db),
    jobs: () => jobStats(ctx.db),
  };
}
