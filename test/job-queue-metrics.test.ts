import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinitions } from '../src/jobs/definitions.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

const PATHS = ['queue_metrics', 'process_metrics', 'job_stats', 'compound_metrics'];

const waitFor = async (check: () => Promise<boolean>, what: string, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('job-queue metrics', () => {
  let t: TestApp;
  let gitbeaker: InstanceType<typeof Gitlab>;
  const ran: number[] = [];

  const jobs: JobDefinitions = {
    'metrics-work': async (data: { n: number }) => {
      ran.push(data.n);
    },
    'metrics-broken': { retryLimit: 1, retryDelaySeconds: 0, retryBackoff: false, handler: async () => Promise.reject(new Error('always fails')) },
  };

  beforeAll(async () => {
    t = await createTestApp({ jobs: [jobs] });
    gitbeaker = new Gitlab({ host: t.base, token: t.root.token });
  });
  afterAll(async () => {
    await t?.close();
  });

  const stats = async () => (await t.api('get', '/jobqueue/job_stats').expect(200)).body.jobs;
  const queue = async (name: string) => (await t.api('get', '/jobqueue/queue_metrics').expect(200)).body.queues[name];

  it('starts empty: every declared queue, nothing processed', async () => {
    // Every queue the modules and this test declare, idle.
    const declared = t.deps.jobs.queueNames();
    expect(declared).toEqual(expect.arrayContaining(['metrics-broken', 'metrics-work', 'repository-housekeeping']));
    expect((await t.api('get', '/jobqueue/queue_metrics').expect(200)).body).toEqual({
      queues: Object.fromEntries([...declared, 'default'].sort().map((name) => [name, { backlog: 0, latency: 0 }])),
    });
    // GitLab's `default` queue is always listed (python-gitlab's functional test reads it), through both paths.
    expect(t.deps.jobs.queueNames()).not.toContain('default');
    expect((await t.api('get', '/sidekiq/queue_metrics').expect(200)).body.queues.default).toEqual({ backlog: 0, latency: 0 });
    await t.api('get', '/jobqueue/process_metrics').expect(200, { processes: [] });
    await t.api('get', '/jobqueue/job_stats').expect(200, { jobs: { processed: 0, failed: 0, enqueued: 0, dead: 0 } });
  });

  it('moves as work is enqueued (no worker), then run by a worker', async () => {
    for (let n = 1; n <= 5; n++) await t.deps.jobs.send('metrics-work', { n });
    // Latency is whole seconds, as GitLab reports it: let the oldest job wait past one.
    await new Promise((r) => setTimeout(r, 1100));
    const waiting = await queue('metrics-work');
    expect(waiting.backlog).toBe(5);
    expect(waiting.latency).toBeGreaterThanOrEqual(1);
    expect(await stats()).toEqual({ processed: 0, failed: 0, enqueued: 5, dead: 0 });

    const worker = await t.startWorker({ concurrency: 2, tag: 'metrics-test', labels: ['reliable'] });
    try {
      const processes = (await t.api('get', '/jobqueue/process_metrics').expect(200)).body.processes;
      expect(processes).toEqual([
        {
          hostname: expect.any(String),
          pid: process.pid,
          tag: 'metrics-test',
          started_at: worker.startedAt.toISOString(),
          queues: t.deps.jobs.queueNames(),
          labels: ['reliable'],
          concurrency: 2,
          busy: expect.any(Number),
        },
      ]);
      await waitFor(async () => (await stats()).processed === 5, 'five processed jobs');
      expect(ran.sort()).toEqual([1, 2, 3, 4, 5]);
      expect(await queue('metrics-work')).toEqual({ backlog: 0, latency: 0 });
      expect(await stats()).toEqual({ processed: 5, failed: 0, enqueued: 0, dead: 0 });

      // A job that always fails: two runs (one retry), both failed, then dead.
      await t.deps.jobs.send('metrics-broken', {});
      await waitFor(async () => (await stats()).dead === 1, 'the broken job to die');
      expect(await stats()).toEqual({ processed: 7, failed: 2, enqueued: 0, dead: 1 });
    } finally {
      await worker.stop(1000);
    }
    await t.api('get', '/sidekiq/process_metrics').expect(200, { processes: [] });
  });

  it('answers the same under /sidekiq, through gitbeaker, and through GraphQL (twin)', async () => {
    const compound = (await t.api('get', '/jobqueue/compound_metrics').expect(200)).body;
    expect(compound).toEqual({
      queues: (await t.api('get', '/jobqueue/queue_metrics').expect(200)).body.queues,
      processes: [],
      jobs: { processed: 7, failed: 2, enqueued: 0, dead: 1 },
    });
    for (const path of PATHS) {
      const res = await t.api('get', `/sidekiq/${path}`).expect(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual((await t.api('get', `/jobqueue/${path}`).expect(200)).body);
    }
    expect(await gitbeaker.SidekiqMetrics.queueMetrics()).toEqual({ queues: compound.queues });
    expect(await gitbeaker.SidekiqMetrics.processMetrics()).toEqual({ processes: [] });
    expect(await gitbeaker.SidekiqMetrics.jobStats()).toEqual({ jobs: compound.jobs });
    expect(await gitbeaker.SidekiqMetrics.compoundMetrics()).toEqual(compound);
    const gql = await t.graphql('{ jobQueueMetrics { queues { name backlog latency } processes { pid } jobs { processed failed enqueued dead } } }');
    expect(gql.body.data.jobQueueMetrics).toEqual({
      queues: Object.entries(compound.queues).map(([name, q]) => ({ name, ...(q as object) })),
      processes: [],
      jobs: compound.jobs,
    });
  });

  it('is for administrators only', async () => {
    const alice = await t.user('alice');
    for (const prefix of ['jobqueue', 'sidekiq']) {
      for (const path of PATHS) {
        await t.api('get', `/${prefix}/${path}`, null).expect(401, { message: '401 Unauthorized' });
        await t.api('get', `/${prefix}/${path}`, alice.token).expect(403, { message: '403 Forbidden' });
      }
    }
    const gql = await t.graphql('{ jobQueueMetrics { jobs { processed } } }', {}, alice.token);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(gql.body.data).toEqual({ jobQueueMetrics: null });
  });
});
