export { JobQueue, UnknownQueueError, type SendOptions, type JobOutcome } from './queue.ts';
export { Worker, type WorkerOptions } from './worker.ts';
export { queueMetrics, processMetrics, jobStats, statsByQueue, type QueueMetric, type ProcessMetric, type JobStats, type QueueStats } from './store.ts';
export type { JobHandler, JobContext, JobDefinitions, QueueDefinition, QueuePolicy } from './definitions.ts';

