import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { createDb, type Db } from '../db/client.ts';
import { lockKey } from '../db/locks.ts';
import { notify, type Notifications } from '../db/notifications.ts';
import type { AppDeps } from '../deps.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { resolveQueues, type JobDefinitions, type ResolvedQueue } from './definitions.ts';
import { countRun, ensureJobIndexes, handBackJob, JOBS_SCHEMA, transactionExecutor } from './store.ts';

/** Notified (payload: queue name) when a job is enqueued, so idle workers fetch at once instead of at the next poll. */
export const JOBS_CHANNEL = 'forgegate_jobs';

export class UnknownQueueError extends Error {
  constructor(queue: string) {
    super(`job queue ${queue} is not declared by any module`);
  }
}

export type SendOptions = {
  /**
   * Enqueue inside this Prisma transaction: the job exists only if the transaction commits, and
   * workers hear of it only then.
   */
  tx?: Prisma.TransactionClient;
  /**
   * With a queue policy other than `standard`: jobs with the same key are limited as the policy
   * says, and a send the policy refuses returns null.
   */
  singletonKey?: string;
  /** Run no earlier than this (a Date, or seconds from now). */
  startAfter?: Date | number;
  priority?: number;
};

/** A fetched job, with the metadata handlers and the counters need. */
export type FetchedJob = { id: string; name: string; data: unknown; retryCount: number; retryLimit: number };

export type JobOutcome = 'completed' | 'failed';

const errorOutput = (error: unknown) =>
  error instanceof Error ? { message: error.message, name: error.name, stack: error.stack } : { message: String(error) };

/**
 * The job queue every asynchronous piece of the product uses: pg-boss on the application's own
 * PostgreSQL (schema `pgboss`), so jobs survive restarts and any process may run them. This
 * class enqueues, runs single jobs (for workers and tests) and owns the pg-boss connection; the
 * polling loop lives in Worker.
 */
export class JobQueue {
  private readonly queues = new Map<string, ResolvedQueue>();
  private deps: AppDeps | null = null;

  private constructor(
    readonly boss: PgBoss,
    private readonly db: Db,
    private readonly notifications: Notifications,
    readonly log: Logger,
  ) {}

  /**
   * Connects pg-boss (installing or upgrading its schema when needed, under its own advisory
   * lock, so concurrent starts are safe). `maintenance` runs pg-boss's supervisor: expiring runs
   * of crashed workers, archiving finished jobs; processes that run workers turn it on.
   */
  static async start(opts: { url: string; db: Db; notifications: Notifications; log: Logger; maintenance: boolean; poolSize?: number }): Promise<JobQueue> {
    const boss = new PgBoss({
      connectionString: opts.url,
      schema: JOBS_SCHEMA,
      max: opts.poolSize ?? 4,
      application_name: 'forgegate-jobs',
      supervise: opts.maintenance,
      schedule: false,
      migrate: true,
    });
    boss.on('error', (error) => opts.log.error({ err: error }, 'job queue error'));
    await boss.start();
    await ensureJobIndexes(opts.db);
    return new JobQueue(boss, opts.db, opts.notifications, opts.log);
  }

  /**
   * Creates or upgrades the queue's tables (what start() does too) and declares `definitions`'
   * queues, for `forgegate migrate` and test templates: a server started afterwards finds
   * everything as declared and only reads, where a first start creates each queue's partition.
   */
  static async install(url: string, definitions: JobDefinitions[]): Promise<void> {
    const boss = new PgBoss({ connectionString: url, schema: JOBS_SCHEMA, max: 1, supervise: false, schedule: false, migrate: true });
    await boss.start();
    const { db, pool } = createDb(url);
    try {
      await ensureJobIndexes(db);
      await declareQueues(boss, db, definitions.flatMap(resolveQueues));
    } finally {
      await db.$disconnect();
      await pool.end();
      await boss.stop({ graceful: false, close: true, wait: true });
    }
  }

  /** Handlers reach the application through the deps; they exist only once the runtime is built. */
  attach(deps: AppDeps) {
    this.deps = deps;
  }

  /** Declares queues and their handlers; creates missing queues and updates changed retry policies. */
  async register(definitions: JobDefinitions): Promise<void> {
    const resolved = resolveQueues(definitions);
    for (const queue of resolved) if (this.queues.has(queue.name)) throw new Error(`job queue ${queue.name} is declared twice`);
    await declareQueues(this.boss, this.db, resolved);
    for (const queue of resolved) this.queues.set(queue.name, queue);
  }

  queueNames(): string[] {
    return [...this.queues.keys()].sort();
  }

  private queue(name: string): ResolvedQueue {
    const queue = this.queues.get(name);
    if (!queue) throw new UnknownQueueError(name);
    return queue;
  }

  /** Enqueues a job; returns its id, or null when the queue's policy refuses a second job for the singletonKey. */
  async send(queue: string, data: object = {}, options: SendOptions = {}): Promise<string | null> {
    this.queue(queue);
    const { tx, startAfter, priority, singletonKey } = options;
    const sendOptions: PgBoss.SendOptions = {
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(priority !== undefined ? { priority } : {}),
      ...(singletonKey !== undefined ? { singletonKey } : {}),
      ...(tx ? { db: transactionExecutor(tx) } : {}),
    };
    const id = await this.boss.send(queue, data, sendOptions);
    if (!id) return null;
    // Inside a transaction the notification is delivered at commit, with the job.
    await notify(tx ?? this.db, JOBS_CHANNEL, queue);
    return id;
  }

  /** Subscribes to "a job was enqueued" (any process); resolves to the unsubscribe function. */
  onEnqueued(listener: (queue: string) => void, onGap: () => void): Promise<() => void> {
    return this.notifications.subscribe(JOBS_CHANNEL, { onMessage: listener, onGap });
  }

  get listening() {
    return this.notifications.connected;
  }

  /** Takes up to `limit` ready jobs of one queue and marks them active (no other worker gets them). */
  async fetch(queue: string, limit: number, opts: { ignoreDelays?: boolean } = {}): Promise<FetchedJob[]> {
    const jobs = await this.boss.fetch<unknown>(queue, { batchSize: limit, includeMetadata: true, ignoreStartAfter: opts.ignoreDelays ?? false });
    return jobs.map((j) => ({ id: j.id, name: j.name, data: j.data, retryCount: j.retryCount, retryLimit: j.retryLimit }));
  }

  /**
   * Runs one fetched job to its end: completes it, or fails it (pg-boss then schedules the
   * retry with backoff, or leaves it failed for good after the last one) and counts it.
   */
  async run(job: FetchedJob): Promise<JobOutcome> {
    const deps = this.deps;
    if (!deps) throw new Error('JobQueue.attach(deps) was not called');
    const queue = this.queue(job.name);
    const log = this.log.child({ job: job.id, queue: job.name, attempt: job.retryCount + 1 });
    let failure: { error: unknown } | null = null;
    try {
      // The data its queue was sent, in the shape the handler declares (JobHandler).
      await queue.handler(job.data as never, { id: job.id, queue: job.name, attempt: job.retryCount + 1, retryLimit: job.retryLimit, deps, log });
    } catch (error) {
      failure = { error };
    }
    // Only the handler's own failure fails the job; a failing complete() (database gone) leaves it
    // active, and the queue's expiry gives it back for another run.
    // pg-boss's typings say void; both calls answer { affected } (rows changed).
    let recorded: unknown;
    if (failure) {
      const dead = job.retryCount >= job.retryLimit;
      log[dead ? 'error' : 'warn']({ err: failure.error }, dead ? 'job failed for good' : 'job failed; will retry');
      recorded = await this.boss.fail(job.name, job.id, errorOutput(failure.error));
    } else {
      recorded = await this.boss.complete(job.name, job.id);
    }
    const outcome: JobOutcome = failure ? 'failed' : 'completed';
    // A run that no longer owned its job (handed back at shutdown, or expired and given to
    // another worker) changed nothing; the run that does own it is the one counted.
    if ((recorded as { affected: number }).affected > 0) await this.count(job.name, outcome);
    return outcome;
  }

  /** Lifetime counters (Sidekiq's processed/failed): every run is processed, failed runs also failed. */
  private count(queue: string, outcome: JobOutcome) {
    const failed = outcome === 'failed' ? 1 : 0;
    return countRun(this.db, queue, failed);
  }

  /**
   * Gives jobs back to the queue untouched, as if never fetched (a stopping worker's unfinished
   * runs): another worker picks them up without spending a retry.
   */
  async handBack(jobs: Pick<FetchedJob, 'id' | 'name'>[]): Promise<void> {
    for (const job of jobs) {
      await handBackJob(this.db, job);
    }
  }

  /**
   * Runs every ready job of `queues` (default: all) in this process, one at a time, until none is
   * left, retries included (their backoff is skipped unless `ignoreDelays: false`). For tests
   * and tools: deterministic, no timers. Returns how the runs ended.
   */
  async drain(opts: { queues?: string[]; ignoreDelays?: boolean; maxRuns?: number } = {}): Promise<{ completed: number; failed: number }> {
    const queues = opts.queues ?? this.queueNames();
    const maxRuns = opts.maxRuns ?? 10_000;
    const result = { completed: 0, failed: 0 };
    for (;;) {
      let ran = 0;
      for (const queue of queues) {
        for (const job of await this.fetch(queue, 1, { ignoreDelays: opts.ignoreDelays ?? true })) {
          result[await this.run(job)] += 1;
          ran += 1;
        }
      }
      if (ran === 0) return result;
      if (result.completed + result.failed >= maxRuns) throw new Error(`drain: more than ${maxRuns} runs; does a job enqueue itself?`);
    }
  }

  async stop(): Promise<void> {
    // Workers are stopped by their owners first; this only closes pg-boss (its timers and pool).
    await this.boss.stop({ graceful: false, close: true, wait: true });
  }
}

/** Creates the missing queues and updates those whose retry settings differ from their declaration. */
async function declareQueues(boss: PgBoss, db: Db, resolved: ResolvedQueue[]): Promise<void> {
  // Every start declares every queue, and on all but the first they are there as declared: one
  // read then, no transaction (locked registrations would lengthen every start).
  if (!queueChanges(resolved, await boss.getQueues()).length) return;
  // pg-boss creates a queue as a partition of its job table with foreign keys to the queue table;
  // two processes starting together deadlock there. One registration at a time across every
  // process on the database, each reading the queues again once it holds the lock.
  await db.$transaction(
    async (tx) => {
      await lockKey(tx, 'forgegate:job-queue-registration');
      for (const { queue, settings, exists } of queueChanges(resolved, await boss.getQueues())) {
        if (exists) await boss.updateQueue(queue.name, { name: queue.name, ...settings });
        else await boss.createQueue(queue.name, { name: queue.name, ...settings });
      }
    },
    { maxWait: 60_000, timeout: 120_000 },
  );
}

/** The queues to create (missing) or update (a retry setting differs from the declaration). */
function queueChanges(resolved: ResolvedQueue[], existing: PgBoss.QueueResult[]) {
  const byName = new Map(existing.map((q) => [q.name, q]));
  return resolved.flatMap((queue) => {
    const settings = {
      policy: queue.policy,
      retryLimit: queue.retryLimit,
      retryDelay: queue.retryDelaySeconds,
      retryBackoff: queue.retryBackoff,
      expireInSeconds: queue.expireInSeconds,
    };
    const current = byName.get(queue.name);
    if (current && Object.entries(settings).every(([key, value]) => current[key as keyof typeof settings] === value)) return [];
    return [{ queue, settings, exists: current !== undefined }];
  });
}
