import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinitions } from '../src/jobs/definitions.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

/** The value of one sample in Prometheus' text format; 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((l) => have.includes(l)) && have.length === wanted.length) return Number(m[3]);
  }
  return 0;
}

describe('/-/metrics', () => {
  let t: TestApp;
  const jobs: JobDefinitions = {
    'prom-ok': async () => {},
    'prom-broken': { retryLimit: 0, handler: async () => Promise.reject(new Error('no')) },
  };
  const scrape = async () => {
    const res = await request(t.base).get('/-/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  beforeAll(async () => {
    t = await createTestApp({ jobs: [jobs] });
  });
  afterAll(() => t?.close());

  it('counts HTTP requests and their durations per route pattern, not per path', async () => {
    const route = { method: 'GET', route: '/api/v4/projects/:id', status: '404' };
    const before = sample(await scrape(), 'http_requests_total', route);
    await t.api('get', '/projects/1').expect(404);
    await t.api('get', '/projects/2').expect(404);
    const text = await scrape();
    expect(sample(text, 'http_requests_total', route)).toBe(before + 2);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v4/projects/:id' })).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain('route="/api/v4/projects/1"');
    expect((await t.graphql('{ currentUser { username } }')).status).toBe(200);
    expect(sample(await scrape(), 'http_requests_total', { method: 'POST', route: '/api/graphql', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it('reports queue backlog and latency, processed, failed and dead jobs from the queue', async () => {
    let text = await scrape();
    expect(sample(text, 'forgegate_job_queue_backlog', { queue: 'prom-ok' })).toBe(0);
    for (let i = 0; i < 3; i++) await t.deps.jobs.send('prom-ok', { i });
    await new Promise((r) => setTimeout(r, 50));
    text = await scrape();
    expect(sample(text, 'forgegate_job_queue_backlog', { queue: 'prom-ok' })).toBe(3);
    expect(sample(text, 'forgegate_job_queue_latency_seconds', { queue: 'prom-ok' })).toBeGreaterThan(0);

    await t.deps.jobs.send('prom-broken', {});
    await t.deps.jobs.drain();
    text = await scrape();
    expect(sample(text, 'forgegate_job_queue_backlog', { queue: 'prom-ok' })).toBe(0);
    expect(sample(text, 'forgegate_jobs_processed_total', { queue: 'prom-ok' })).toBe(3);
    expect(sample(text, 'forgegate_jobs_processed_total', { queue: 'prom-broken' })).toBe(1);
    expect(sample(text, 'forgegate_jobs_failed_total', { queue: 'prom-broken' })).toBe(1);
    expect(sample(text, 'forgegate_jobs_failed_total', { queue: 'prom-ok' })).toBe(0);
    expect(sample(text, 'forgegate_jobs_dead', { queue: 'prom-broken' })).toBe(1);

    const worker = await t.startWorker({ concurrency: 4 });
    try {
      text = await scrape();
      expect(sample(text, 'forgegate_job_processes')).toBe(1);
    } finally {
      await worker.stop(1000);
    }
    expect(sample(await scrape(), 'forgegate_job_processes')).toBe(0);
  });

  it('answers only the monitoring allowlist', async () => {
    const elsewhere = await createTestApp({ env: { MONITORING_ALLOWLIST: '10.0.0.0/8' } });
    try {
      await request(elsewhere.app).get('/-/metrics').expect(404);
    } finally {
      await elsewhere.close();
    }
  });
});
