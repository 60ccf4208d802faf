// `/-/metrics` in Prometheus' text format: this process's HTTP traffic and runtime, and the job
// queue's state read from the shared database at each scrape (so every process reports the same
// queue numbers; scrape one, or aggregate with max()).
import { BlockList, isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppDeps } from './deps.ts';
import { processMetrics, queueMetrics, statsByQueue } from './jobs/index.ts';

/** Label of a request: the route pattern that answered it, never the concrete path (bounded cardinality). */
export const ROUTE_LOCAL = 'routePattern';

function routeOf(req: Request, res: Response): string {
  const pattern = res.locals[ROUTE_LOCAL];
  if (typeof pattern === 'string') return pattern;
  if (req.route?.path) return `${req.baseUrl}${req.route.path}`;
  // Mounted handlers without a route of their own (GraphQL).
  return req.baseUrl || 'unmatched';
}

function allowlist(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

export class AppMetrics {
  readonly registry = new Registry();
  private readonly allowed: BlockList;
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly backlog = new Gauge({
    name: 'forgegate_job_queue_backlog',
    help: 'Jobs ready to run and waiting, by queue.',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  private readonly latency = new Gauge({
    name: 'forgegate_job_queue_latency_seconds',
    help: 'How long the oldest waiting job of a queue has waited.',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  private readonly processed = new Counter({
    name: 'forgegate_jobs_processed_total',
    help: 'Job runs finished (failed ones included), by queue, all processes together.',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  private readonly failed = new Counter({
    name: 'forgegate_jobs_failed_total',
    help: 'Job runs that failed, by queue, all processes together.',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  private readonly dead = new Gauge({
    name: 'forgegate_jobs_dead',
    help: 'Jobs that failed their last retry, by queue.',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  private readonly processes = new Gauge({ name: 'forgegate_job_processes', help: 'Worker processes with a live heartbeat.', registers: [this.registry] });
  private readonly busy = new Gauge({
    name: 'forgegate_job_processes_busy',
    help: 'Jobs running in all worker processes, as their last heartbeats reported.',
    registers: [this.registry],
  });

  constructor(private readonly deps: AppDeps) {
    this.allowed = allowlist(deps.config.monitoringAllowlist);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts every response; mount first so that every route, and the 404s, are seen. */
  track() {
    return (req: Request, res: Response, next: NextFunction) => {
      const stop = this.durations.startTimer();
      res.on('finish', () => {
        const route = routeOf(req, res);
        stop({ method: req.method, route });
        this.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      });
      next();
    };
  }

  private async refreshQueues(): Promise<void> {
    const [queues, stats, workers] = await Promise.all([queueMetrics(this.deps.db), statsByQueue(this.deps.db), processMetrics(this.deps.db)]);
    for (const gauge of [this.backlog, this.latency, this.dead]) gauge.reset();
    this.processed.reset();
    this.failed.reset();
    for (const q of queues) {
      this.backlog.set({ queue: q.name }, q.backlog);
      this.latency.set({ queue: q.name }, q.latencySeconds);
    }
    // Counters read from the database: reset and add the stored total (monotonic between scrapes).
    for (const s of stats) {
      this.processed.inc({ queue: s.queue }, s.processed);
      this.failed.inc({ queue: s.queue }, s.failed);
      this.dead.set({ queue: s.queue }, s.dead);
    }
    this.processes.set(workers.length);
    this.busy.set(workers.reduce((sum, w) => sum + w.busy, 0));
  }

  /** Answers only the monitoring allowlist (404 otherwise, as GitLab); 503 when the database does not answer. */
  handler() {
    return async (req: Request, res: Response) => {
      const address = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      if (!address || !this.allowed.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) {
        res.status(404).type('text/plain').send('Not Found');
        return;
      }
      try {
        await this.refreshQueues();
      } catch (error) {
        this.deps.log.warn({ err: error }, 'metrics: job queue unreadable');
        res.status(503).type('text/plain').send('job queue metrics unavailable: database unreachable');
        return;
      }
      res.type(this.registry.contentType).send(await this.registry.metrics());
    };
  }
}
