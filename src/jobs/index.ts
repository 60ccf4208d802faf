export { queueMetrics, processMetrics, jobStats, statsByQueue, type QueueMetric, type ProcessMetric, type JobStats } from './store.ts';
export type { JobContext } from './definitions.ts';
