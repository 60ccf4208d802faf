import type { JobQueueProcessEntityFragment } from '../../generated/operations.ts';
import { defineRoutes, route, type Route } from '../../rest/route.ts';
import { expected } from '../../rest/shape.ts';

type Queue = { name: string | null; backlog: number | null; latency: number | null };
type Metrics<T> = { jobQueueMetrics: T | null };

/** GitLab keys the queues by name: `{"default": {"backlog": 0, "latency": 0}}`. */
const queuesByName = (queues: Queue[] | null) => Object.fromEntries((queues ?? []).map(({ name, backlog, latency }) => [name, { backlog, latency }]));

const metrics = <T>(data: Metrics<T>) => expected(data.jobQueueMetrics, 'jobQueueMetrics');
const processes = (list: JobQueueProcessEntityFragment[] | null) => list ?? [];

/**
 * `/jobqueue/...` as the spec names the job processor, and `/sidekiq/...`, the path GitLab's
 * clients (python-gitlab's `gl.sidekiq`, gitbeaker's `SidekiqMetrics`) call.
 */
function metricRoutes(prefix: string): Route[] {
  return [
    route({
      method: 'GET',
      path: `/${prefix}/queue_metrics`,
      operation: 'JobQueueQueueMetrics',
      result: (data) => ({ queues: queuesByName(metrics(data).queues) }),
    }),
    route({
      method: 'GET',
      path: `/${prefix}/process_metrics`,
      operation: 'JobQueueProcessMetrics',
      result: (data) => ({ processes: processes(metrics(data).processes) }),
    }),
    route({
      method: 'GET',
      path: `/${prefix}/job_stats`,
      operation: 'JobQueueJobStats',
      result: (data) => ({ jobs: metrics(data).jobs }),
    }),
    route({
      method: 'GET',
      path: `/${prefix}/compound_metrics`,
      operation: 'JobQueueCompoundMetrics',
      result: (data) => {
        const m = metrics(data);
        return { queues: queuesByName(m.queues), processes: processes(m.processes), jobs: m.jobs };
      },
    }),
  ];
}

export const routes = defineRoutes([...metricRoutes('jobqueue'), ...metricRoutes('sidekiq')], { authenticate: 'always' });
