import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinitions } from '../src/jobs/definitions.ts';
import type { JobContext } from '../src/jobs/index.ts';
import { jobStats, processMetrics, queueMetrics } from '../src/jobs/index.ts';
import { UnknownQueueError } from '../src/jobs/queue.ts';
import { startRuntime } from '../src/server.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

type Seen = { data: unknown; attempt: number; id: string };

/** Test queues whose handlers record what they ran; `flaky` fails until its data's `succeedOn` attempt. */
function testQueues() {
  const seen: Record<string, Seen[]> = { echo: [], flaky: [], slow: [], slowEnded: [] };
  const gates: (() => void)[] = [];
  const record = (queue: string) => (data: unknown, job: JobContext) => {
    seen[queue]!.push({ data, attempt: job.attempt, id: job.id });
  };
  const definitions: JobDefinitions = {
    'test-echo': async (data, job) => record('echo')(data, job),
    'test-flaky': {
      retryLimit: 2,
      retryDelaySeconds: 1,
      handler: async (data: { succeedOn?: number }, job) => {
        record('flaky')(data, job);
        if (!data.succeedOn || job.attempt < data.succeedOn) throw new Error(`attempt ${job.attempt} failed`);
      },
    },
    'test-stately': { policy: 'stately', handler: async (data, job) => record('echo')(data, job) },
    'test-slow': async (data, job) => {
      record('slow')(data, job);
      await new Promise<void>((resolve) => gates.push(resolve));
      record('slowEnded')(data, job);
    },
  };
  return { seen, gates, definitions };
}

const jobRow = (t: TestApp, id: string | null) =>
  t.db.$queryRawUnsafe<{ state: string; retry_count: number }[]>('SELECT state::text, retry_count FROM pgboss.job WHERE id = $1::uuid', id).then((r) => r[0]);

const waitFor = async (check: () => boolean | Promise<boolean>, what: string, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('job queue', () => {
  let t: TestApp;
  let q: ReturnType<typeof testQueues>;

  beforeAll(async () => {
    q = testQueues();
    t = await createTestApp({ jobs: [q.definitions] });
  });
  afterAll(async () => {
    for (const release of q.gates) release();
    await t?.close();
  });

  it('refuses a queue no module declared', async () => {
    await expect(t.deps.jobs.send('nope', {})).rejects.toThrow(UnknownQueueError);
  });

  it('runs an enqueued job with its data, once', async () => {
    const id = await t.deps.jobs.send('test-echo', { hello: 'world' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    expect(q.seen.echo).toEqual([{ data: { hello: 'world' }, attempt: 1, id }]);
    expect(await t.deps.jobs.drain()).toEqual({ completed: 0, failed: 0 });
    expect(await jobRow(t, id)).toEqual({ state: 'completed', retry_count: 0 });
  });

  it('retries a failing job with backoff and succeeds on a later attempt', async () => {
    const before = await jobStats(t.db);
    const id = await t.deps.jobs.send('test-flaky', { succeedOn: 2 });
    // Without skipping the delay, the retry waits for its backoff (1 s or more).
    expect(await t.deps.jobs.drain({ ignoreDelays: false })).toEqual({ completed: 0, failed: 1 });
    expect(await jobRow(t, id)).toEqual({ state: 'retry', retry_count: 0 });
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    expect(q.seen.flaky.filter((s) => s.id === id).map((s) => s.attempt)).toEqual([1, 2]);
    const after = await jobStats(t.db);
    expect(after.processed - before.processed).toBe(2);
    expect(after.failed - before.failed).toBe(1);
    expect(after.dead).toBe(before.dead);
  });

  it('a job that fails its last retry is dead', async () => {
    const before = await jobStats(t.db);
    const id = await t.deps.jobs.send('test-flaky', {});
    expect(await t.deps.jobs.drain()).toEqual({ completed: 0, failed: 3 });
    expect(await jobRow(t, id)).toEqual({ state: 'failed', retry_count: 2 });
    const after = await jobStats(t.db);
    expect(after).toEqual({ processed: before.processed + 3, failed: before.failed + 3, enqueued: 0, dead: before.dead + 1 });
  });

  it('enqueues inside a transaction: the job exists only if the transaction commits', async () => {
    await expect(
      t.db.$transaction(async (tx) => {
        await t.deps.jobs.send('test-echo', { n: 'rolled back' }, { tx });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await t.db.$transaction(async (tx) => {
      await t.deps.jobs.send('test-echo', { n: 'committed' }, { tx });
    });
    q.seen.echo.length = 0;
    await t.deps.jobs.drain();
    expect(q.seen.echo.map((s) => s.data)).toEqual([{ n: 'committed' }]);
  });

  it('a stately queue keeps one waiting job per key, enforced by the database', async () => {
    const sends = await Promise.all([1, 2, 3].map((n) => t.deps.jobs.send('test-stately', { n }, { singletonKey: 'project-1' })));
    expect(sends.filter((id) => id !== null)).toHaveLength(1);
    expect(await t.deps.jobs.send('test-stately', { n: 4 }, { singletonKey: 'project-2' })).toBeTruthy();
    expect(await t.deps.jobs.drain({ queues: ['test-stately'] })).toEqual({ completed: 2, failed: 0 });
    // Once it ran, the key is free again.
    expect(await t.deps.jobs.send('test-stately', { n: 5 }, { singletonKey: 'project-1' })).toBeTruthy();
    await t.deps.jobs.drain({ queues: ['test-stately'] });
  });

  it('backlog and latency come from the waiting jobs', async () => {
    await t.deps.jobs.send('test-echo', { n: 1 });
    await t.deps.jobs.send('test-echo', { n: 2 });
    await new Promise((r) => setTimeout(r, 1100));
    const echo = (await queueMetrics(t.db)).find((m) => m.name === 'test-echo')!;
    expect(echo.backlog).toBe(2);
    expect(echo.latency).toBeGreaterThanOrEqual(1);
    expect((await jobStats(t.db)).enqueued).toBe(2);
    await t.deps.jobs.drain();
    expect((await queueMetrics(t.db)).find((m) => m.name === 'test-echo')).toMatchObject({ backlog: 0, latency: 0 });
  });

  it('a worker in the process picks a new job up at once (NOTIFY), not at its next poll', async () => {
    const worker = await t.startWorker({ pollIntervalMs: 60_000, heartbeatMs: 60_000, queues: ['test-echo'] });
    try {
      // Let the worker reach its idle wait.
      await new Promise((r) => setTimeout(r, 200));
      q.seen.echo.length = 0;
      const id = await t.deps.jobs.send('test-echo', { n: 'notified' });
      await waitFor(() => q.seen.echo.length === 1, 'the worker to run the job', 5_000);
      await waitFor(async () => (await jobRow(t, id))?.state === 'completed', 'completion', 5_000);
    } finally {
      await worker.stop(1000);
    }
  });

  it('registers a worker in process metrics and removes it when it stops', async () => {
    const worker = await t.startWorker({ concurrency: 3, tag: 'test-tag', labels: ['a', 'b'], queues: ['test-echo', 'test-slow'] });
    const processes = await processMetrics(t.db);
    expect(processes).toEqual([
      {
        hostname: expect.any(String),
        pid: process.pid,
        tag: 'test-tag',
        startedAt: worker.startedAt,
        queues: ['test-echo', 'test-slow'],
        labels: ['a', 'b'],
        concurrency: 3,
        busy: 0,
      },
    ]);
    await worker.stop(1000);
    expect(await processMetrics(t.db)).toEqual([]);
  });

  it('a stopping worker finishes what it can and hands back the rest without spending a retry', async () => {
    const worker = await t.startWorker({ queues: ['test-slow'], pollIntervalMs: 500 });
    q.seen.slow.length = 0;
    const id = await t.deps.jobs.send('test-slow', { n: 1 });
    await waitFor(() => q.seen.slow.length === 1, 'the slow job to start');
    expect(await jobRow(t, id)).toEqual({ state: 'active', retry_count: 0 });
    expect(await worker.stop(100)).toEqual({ finished: 0, handedBack: 1 });
    expect(await jobRow(t, id)).toEqual({ state: 'retry', retry_count: 0 });
    // The handed-back run ends after all: it no longer owns the job, so it changes and counts nothing.
    const before = await jobStats(t.db);
    q.seen.slowEnded.length = 0;
    for (const release of q.gates.splice(0)) release();
    await waitFor(() => q.seen.slowEnded.length === 1, 'the handed-back run to end');
    await new Promise((r) => setTimeout(r, 100));
    expect(await jobRow(t, id)).toEqual({ state: 'retry', retry_count: 0 });
    expect((await jobStats(t.db)).processed).toBe(before.processed);
    // Someone else (here: drain) runs it again as the same attempt.
    const drained = t.deps.jobs.drain({ queues: ['test-slow'] });
    await waitFor(() => q.seen.slow.length === 2, 'the handed-back job to run again');
    for (const release of q.gates.splice(0)) release();
    expect(await drained).toEqual({ completed: 1, failed: 0 });
    expect(q.seen.slow.map((s) => s.attempt)).toEqual([1, 1]);
    expect((await jobStats(t.db)).processed).toBe(before.processed + 1);
  });

  it('a stopping worker waits for a job that finishes within the timeout', async () => {
    const worker = await t.startWorker({ queues: ['test-slow'], pollIntervalMs: 500 });
    q.seen.slow.length = 0;
    const id = await t.deps.jobs.send('test-slow', { n: 2 });
    await waitFor(() => q.seen.slow.length === 1, 'the slow job to start');
    const stopping = worker.stop(10_000);
    setTimeout(() => {
      for (const release of q.gates.splice(0)) release();
    }, 100);
    expect(await stopping).toEqual({ finished: 1, handedBack: 0 });
    expect(await jobRow(t, id)).toEqual({ state: 'completed', retry_count: 0 });
  });

  it('a job survives a restart: enqueued by one runtime, run by the next', async () => {
    const first = await startRuntime(t.config, { databaseUrl: t.databaseUrl, jobs: [testQueues().definitions], jobMaintenance: false });
    const id = await first.deps.jobs.send('test-echo', { n: 'before restart' });
    await first.close();
    const next = testQueues();
    const second = await startRuntime(t.config, { databaseUrl: t.databaseUrl, jobs: [next.definitions], jobMaintenance: false });
    try {
      expect(await second.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
      expect(next.seen.echo).toEqual([{ data: { n: 'before restart' }, attempt: 1, id }]);
    } finally {
      await second.close();
    }
  });
});
