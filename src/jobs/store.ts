import type { Db } from '../db/client.ts';
import { lockKey } from '../db/locks.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** pg-boss keeps its tables in this schema of the application's database. */
export const JOBS_SCHEMA = 'pgboss';

type Executor = { executeSql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }> };

// Prisma's raw API binds a plain object as text; pg-boss's `$3::jsonb` wants JSON text anyway.
const bindable = (value: unknown) =>
  value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) ? JSON.stringify(value) : value;

/** pg-boss's statements run inside a Prisma transaction (a job enqueued with the transaction's writes). */
export function transactionExecutor(tx: Prisma.TransactionClient): Executor {
  return { executeSql: async (text, values) => ({ rows: await tx.$queryRawUnsafe<unknown[]>(text, ...values.map(bindable)) }) };
}

/** Counts one run of `queue` (Sidekiq's processed), and one failure when `failed` is 1. */
export function countRun(db: Db, queue: string, failed: 0 | 1) {
  return db.$executeRaw`
    INSERT INTO job_queue_stats (queue, processed, failed) VALUES (${queue}, 1, ${failed})
    ON CONFLICT (queue) DO UPDATE SET processed = job_queue_stats.processed + 1, failed = job_queue_stats.failed + ${failed}`;
}

/** Puts an active job back in its queue as if never fetched: clearing started_on, which pg-boss's fetch reads to count a retry, keeps the attempt number. */
export async function handBackJob(db: Db, job: { id: string; name: string }): Promise<void> {
  await db.$executeRawUnsafe(
    `UPDATE ${JOBS_SCHEMA}.job SET state = 'retry', start_after = now(), started_on = NULL WHERE name = $1 AND id = $2::uuid AND state = 'active'`,
    job.name,
    job.id,
  );
}

/**
 * Indexes of ours on pg-boss's tables, for the dead jobs the metrics count: pg-boss indexes the
 * jobs it fetches (`job_i5`, ready ones) but not failed ones, so counting them read every job kept.
 * An index on the partitioned `job` table is built on each queue's partition, and on those pg-boss
 * attaches later. pg-boss creates its schema at its first start, after our migrations, so they
 * are made here, once it has started; its migrations address its own objects by name only.
 */
const JOB_INDEXES: Record<string, string> = {
  forgegate_job_dead: `CREATE INDEX IF NOT EXISTS forgegate_job_dead ON ${JOBS_SCHEMA}.job (name) WHERE state = 'failed'`,
  forgegate_archive_dead: `CREATE INDEX IF NOT EXISTS forgegate_archive_dead ON ${JOBS_SCHEMA}.archive (name) WHERE state = 'failed'`,
};

/** Creates the missing indexes of JOB_INDEXES: checked first, as CREATE INDEX locks writes out even when the index exists. */
export async function ensureJobIndexes(db: Db): Promise<void> {
  const missing = async (client: Pick<Db, '$queryRawUnsafe'>) => {
    const names = Object.keys(JOB_INDEXES);
    const rows = await client.$queryRawUnsafe<{ name: string }[]>(
      `SELECT n.name FROM unnest($1::text[]) n(name) WHERE to_regclass('${JOBS_SCHEMA}.' || n.name) IS NULL`,
      names,
    );
    return rows.map((r) => r.name);
  };
  if (!(await missing(db)).length) return;
  // Processes starting together: one builds, the others then find the indexes there.
  await db.$transaction(
    async (tx) => {
      await lockKey(tx, 'forgegate:job-queue-indexes');
      for (const name of await missing(tx)) await tx.$executeRawUnsafe(JOB_INDEXES[name]!);
    },
    { maxWait: 60_000, timeout: 600_000 },
  );
}

/** Per queue: jobs ready to run, and how long (whole seconds) the oldest of them has waited. */
export type QueueMetric = { name: string; backlog: number; latency: number; latencySeconds: number };

export type ProcessMetric = {
  hostname: string;
  pid: number;
  tag: string;
  startedAt: Date;
  queues: string[];
  labels: string[];
  concurrency: number;
  busy: number;
};

export type JobStats = { processed: number; failed: number; enqueued: number; dead: number };

/**
 * Ready jobs are counted up to this many: a count reads every ready job, and a backlog of
 * hundreds of thousands made each read of the numbers cost what the backlog holds (Sidekiq keeps
 * O(1) lengths; pg-boss keeps no counter). Past it the numbers read the limit, as GitLab's
 * counts stop at 10,000.
 */
export const READY_COUNT_LIMIT = 10_000;

/**
 * Sidekiq's numbers, read from the real queue tables: a queue's backlog is its jobs that are
 * ready now (new, or a retry whose delay has passed; scheduled ones are not yet in the queue), up
 * to READY_COUNT_LIMIT, its latency the age of the oldest of them counted from when it became
 * ready. "Ready" is written as pg-boss's fetch index (`job_i5`, on `(name, start_after)`) states
 * it, `state < 'active'` (created or retry): the oldest is that index's first entry. The queues
 * are read as an array: pg-boss's queue table, small and rarely changed, is seldom analyzed, and
 * its guessed hundreds of rows times the two subqueries priced the statement past `jit_above_cost`,
 * whose compiling cost more than the reads (~25 ms).
 */
export async function queueMetrics(db: Db): Promise<QueueMetric[]> {
  const rows = await db.$queryRawUnsafe<{ name: string; backlog: bigint; latency: number | null }[]>(
    `
    SELECT q.name,
           (SELECT count(*) FROM (SELECT FROM ${JOBS_SCHEMA}.job j
              WHERE j.name = q.name AND j.state < 'active' AND j.start_after <= now() LIMIT $1) ready) AS backlog,
           EXTRACT(EPOCH FROM now() - (SELECT min(j.start_after) FROM ${JOBS_SCHEMA}.job j
              WHERE j.name = q.name AND j.state < 'active' AND j.start_after <= now()))::float8 AS latency
      FROM unnest(ARRAY(SELECT name FROM ${JOBS_SCHEMA}.queue)) q(name)
     ORDER BY q.name`,
    READY_COUNT_LIMIT,
  );
  return rows.map((r) => {
    const latencySeconds = Math.max(0, r.latency ?? 0);
    return { name: r.name, backlog: Number(r.backlog), latency: Math.trunc(latencySeconds), latencySeconds };
  });
}

/** Worker processes whose heartbeat has not lapsed. */
export async function processMetrics(db: Db): Promise<ProcessMetric[]> {
  const rows = await db.jobProcess.findMany({ where: { expiresAt: { gt: new Date() } }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }] });
  return rows.map(({ hostname, pid, tag, startedAt, queues, labels, concurrency, busy }) => ({
    hostname,
    pid,
    tag,
    startedAt,
    queues,
    labels,
    concurrency,
    busy,
  }));
}

/**
 * processed and failed: lifetime run counters; enqueued: all backlogs together (up to
 * READY_COUNT_LIMIT); dead: jobs failed for good (no retry left), still kept by the queue or its
 * archive (read through JOB_INDEXES).
 */
export async function jobStats(db: Db): Promise<JobStats> {
  const [row] = await db.$queryRawUnsafe<{ processed: bigint; failed: bigint; enqueued: bigint; dead: bigint }[]>(
    `
    SELECT (SELECT coalesce(sum(processed), 0) FROM job_queue_stats)::bigint AS processed,
           (SELECT coalesce(sum(failed), 0) FROM job_queue_stats)::bigint AS failed,
           (SELECT count(*) FROM (SELECT FROM ${JOBS_SCHEMA}.job WHERE state < 'active' AND start_after <= now() LIMIT $1) ready) AS enqueued,
           (SELECT count(*) FROM ${JOBS_SCHEMA}.job WHERE state = 'failed')
             + (SELECT count(*) FROM ${JOBS_SCHEMA}.archive WHERE state = 'failed') AS dead`,
    READY_COUNT_LIMIT,
  );
  return { processed: Number(row!.processed), failed: Number(row!.failed), enqueued: Number(row!.enqueued), dead: Number(row!.dead) };
}

export type QueueStats = { queue: string; processed: number; failed: number; dead: number };

/** Per queue: lifetime processed and failed runs, and jobs dead now (for Prometheus labels). */
export async function statsByQueue(db: Db): Promise<QueueStats[]> {
  const rows = await db.$queryRawUnsafe<{ queue: string; processed: bigint | null; failed: bigint | null; dead: bigint }[]>(`
    SELECT q.name AS queue, s.processed, s.failed,
           (SELECT count(*) FROM ${JOBS_SCHEMA}.job j WHERE j.name = q.name AND j.state = 'failed')
             + (SELECT count(*) FROM ${JOBS_SCHEMA}.archive a WHERE a.name = q.name AND a.state = 'failed') AS dead
      FROM ${JOBS_SCHEMA}.queue q
      LEFT JOIN job_queue_stats s ON s.queue = q.name
     ORDER BY q.name`);
  return rows.map((r) => ({ queue: r.queue, processed: Number(r.processed ?? 0), failed: Number(r.failed ?? 0), dead: Number(r.dead) }));
}
