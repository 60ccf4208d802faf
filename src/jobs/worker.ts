import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Db } from '../db/client.ts';
import type { FetchedJob, JobQueue } from './queue.ts';

export type WorkerOptions = {
  /** Queues this worker takes jobs from (default: every declared queue). */
  queues?: string[];
  /** Jobs run at the same time. */
  concurrency: number;
  /** Shown in process metrics, as Sidekiq's tag (usually the installation's name). */
  tag: string;
  labels: string[];
  /** Polling catches delayed jobs and retries; new jobs wake the worker through NOTIFY at once. */
  pollIntervalMs: number;
  heartbeatMs: number;
};

type Running = { job: FetchedJob; done: Promise<unknown> };

/** A process row lives this many heartbeats past its last beat before readers drop it. */
const HEARTBEATS_TO_EXPIRY = 3;

/**
 * One worker: takes jobs from its queues while it has free slots, runs them through the
 * JobQueue, and keeps its row in job_processes (what process metrics report) fresh with a
 * heartbeat. stop() lets running jobs finish for a while, then hands the rest back.
 */
export class Worker {
  readonly id = randomUUID();
  readonly startedAt = new Date();
  readonly queues: string[];
  private readonly running = new Map<string, Running>();
  private stopping = false;
  private loopDone: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private pendingWake = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private nextQueue = 0;

  constructor(
    private readonly jobs: JobQueue,
    private readonly db: Db,
    readonly options: WorkerOptions,
  ) {
    this.queues = options.queues ?? jobs.queueNames();
    const unknown = this.queues.filter((q) => !jobs.queueNames().includes(q));
    if (unknown.length) throw new Error(`worker: unknown queues ${unknown.join(', ')}`);
  }

  get busy() {
    return this.running.size;
  }

  async start(): Promise<void> {
    await this.beat();
    this.unsubscribe = await this.jobs.onEnqueued(
      (queue) => {
        if (this.queues.includes(queue)) this.wake();
      },
      () => this.wake(),
    );
    this.heartbeat = setInterval(() => {
      this.beat().catch((error) => this.jobs.log.warn({ err: error }, 'worker heartbeat failed'));
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
    this.loopDone = this.loop();
  }

  private wake() {
    if (this.wakeUp) this.wakeUp();
    else this.pendingWake = true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let fetched = 0;
      try {
        fetched = await this.fill();
      } catch (error) {
        this.jobs.log.warn({ err: error }, 'worker could not fetch jobs');
      }
      if (this.stopping) break;
      // Full, or nothing ready: wait for a finished job, a NOTIFY, or the poll.
      if (fetched === 0 || this.running.size >= this.options.concurrency) await this.sleep(this.options.pollIntervalMs);
    }
  }

  /** Fetches into the free slots, starting from a different queue each round so none starves. */
  private async fill(): Promise<number> {
    let fetched = 0;
    for (let i = 0; i < this.queues.length; i++) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0 || this.stopping) break;
      const queue = this.queues[(this.nextQueue + i) % this.queues.length]!;
      for (const job of await this.jobs.fetch(queue, free)) {
        fetched += 1;
        this.startJob(job);
      }
    }
    this.nextQueue = (this.nextQueue + 1) % Math.max(1, this.queues.length);
    return fetched;
  }

  private startJob(job: FetchedJob) {
    const done = this.jobs
      .run(job)
      .catch((error) => this.jobs.log.error({ err: error, job: job.id }, 'job bookkeeping failed'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { job, done });
  }

  /** Registers or refreshes this worker's row; also sweeps rows whose owners stopped beating. */
  private async beat(): Promise<void> {
    const ttlMs = this.options.heartbeatMs * HEARTBEATS_TO_EXPIRY;
    const row = {
      hostname: os.hostname(),
      pid: process.pid,
      tag: this.options.tag,
      startedAt: this.startedAt,
      queues: this.queues,
      labels: this.options.labels,
      concurrency: this.options.concurrency,
      busy: this.running.size,
      beatAt: new Date(),
      expiresAt: new Date(Date.now() + ttlMs),
    };
    await this.db.$transaction([
      this.db.jobProcess.upsert({ where: { id: this.id }, create: { id: this.id, ...row }, update: row }),
      this.db.jobProcess.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    ]);
  }

  /**
   * Stops taking jobs, gives running ones `timeoutMs` to finish, hands back the rest (another
   * process runs them from the start, without spending a retry), and unregisters.
   */
  async stop(timeoutMs: number): Promise<{ finished: number; handedBack: number }> {
    if (this.stopping) return { finished: 0, handedBack: 0 };
    this.stopping = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.unsubscribe?.();
    this.wake();
    await this.loopDone;
    const before = this.running.size;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all([...this.running.values()].map((r) => r.done)), deadline]);
    clearTimeout(timer);
    const unfinished = [...this.running.values()].map((r) => r.job);
    if (unfinished.length) await this.jobs.handBack(unfinished);
    await this.db.jobProcess.deleteMany({ where: { id: this.id } });
    return { finished: before - unfinished.length, handedBack: unfinished.length };
  }
}
