import { builder, scopes } from '../../graphql/builder.ts';
import type { JobStats, ProcessMetric, QueueMetric } from '../../jobs/index.ts';
import { jobQueueMetrics, type JobQueueMetrics } from './service.ts';

const JobQueueRef = builder.objectRef<QueueMetric>('JobQueue').implement({
  description: 'One background job queue.',
  fields: (t) => ({
    name: t.exposeString('name'),
    backlog: t.exposeInt('backlog', { description: 'Jobs ready to run and waiting for a worker.' }),
    latency: t.exposeInt('latency', { description: 'Seconds (whole) the oldest waiting job has waited.' }),
    latencySeconds: t.exposeFloat('latencySeconds', { description: 'The same, with fractions of a second.' }),
  }),
});

const JobQueueProcessRef = builder.objectRef<ProcessMetric>('JobQueueProcess').implement({
  description: 'A running worker process, as its last heartbeat reported it.',
  fields: (t) => ({
    hostname: t.exposeString('hostname'),
    pid: t.exposeInt('pid'),
    tag: t.exposeString('tag'),
    startedAt: t.expose('startedAt', { type: 'Time' }),
    queues: t.exposeStringList('queues'),
    labels: t.exposeStringList('labels'),
    concurrency: t.exposeInt('concurrency', { description: 'Jobs it runs at the same time.' }),
    busy: t.exposeInt('busy', { description: 'Jobs it was running.' }),
  }),
});

const JobQueueStatsRef = builder.objectRef<JobStats>('JobQueueStats').implement({
  fields: (t) => ({
    processed: t.exposeInt('processed', { description: 'Runs finished since the queue exists, failed ones included.' }),
    failed: t.exposeInt('failed', { description: 'Runs that failed (a retried job counts each failed run).' }),
    enqueued: t.exposeInt('enqueued', { description: 'Jobs waiting in all queues.' }),
    dead: t.exposeInt('dead', { description: 'Jobs that failed their last retry.' }),
  }),
});

const JobQueueMetricsRef = builder.objectRef<JobQueueMetrics>('JobQueueMetrics').implement({
  description: 'Queues, worker processes and job counts of the background job queue.',
  fields: (t) => ({
    queues: t.field({ type: [JobQueueRef], resolve: (m) => m.queues() }),
    processes: t.field({ type: [JobQueueProcessRef], resolve: (m) => m.processes() }),
    jobs: t.field({ type: JobQueueStatsRef, resolve: (m) => m.jobs() }),
  }),
});

builder.queryField('jobQueueMetrics', (t) =>
  t.field({
    type: JobQueueMetricsRef,
    extensions: scopes('api', 'read_api'),
    description: "The background job queue's metrics; administrators only.",
    resolve: (_r, _a, ctx) => jobQueueMetrics(ctx),
  }),
);
