import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { startWorkerProcess, stop, waitUntil, type Proc } from './helpers/processes.ts';

describe('worker processes (npx forgegate worker)', () => {
  let t: TestApp;
  let dataDir: string;
  const procs: Proc[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-worker-'));
  });
  afterAll(async () => {
    for (const p of procs) await stop(p, 'SIGKILL');
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const env = (tag: string, heartbeatSeconds: string) => ({
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: dataDir,
    TOKEN_DIGEST_KEY: randomBytes(32).toString('hex'),
    JOB_WORKER_TAG: tag,
    JOB_WORKER_LABELS: 'batch,eu',
    JOB_CONCURRENCY: '3',
    JOB_HEARTBEAT_SECONDS: heartbeatSeconds,
  });
  const processes = async () => (await t.api('get', '/jobqueue/process_metrics').expect(200)).body.processes as { pid: number; tag: string }[];
  const listed = async (pid: number) => (await processes()).some((p) => p.pid === pid);

  it('registers with its heartbeat, and unregisters on SIGTERM', async () => {
    const worker = startWorkerProcess('worker-term', env('term', '5'));
    procs.push(worker);
    await waitUntil(() => listed(worker.child.pid!), 'the worker to register', 60_000, [worker]);
    const row = (await processes()).find((p) => p.pid === worker.child.pid)!;
    expect(row).toEqual({
      hostname: os.hostname(),
      pid: worker.child.pid,
      tag: 'term',
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      queues: t.deps.jobs.queueNames(),
      labels: ['batch', 'eu'],
      concurrency: 3,
      busy: 0,
    });
    // Started with the test's umask (022), it writes files for its own user only, as the server does.
    expect(fs.readFileSync(`/proc/${worker.child.pid}/status`, 'utf8')).toMatch(/^Umask:\s+0077$/m);
    expect(await stop(worker, 'SIGTERM')).toBe(0);
    expect(await listed(worker.child.pid!)).toBe(false);
  });

  it('a killed worker disappears once its heartbeat lapses', async () => {
    const worker = startWorkerProcess('worker-kill', env('kill', '0.5'));
    procs.push(worker);
    await waitUntil(() => listed(worker.child.pid!), 'the worker to register', 60_000, [worker]);
    await stop(worker, 'SIGKILL');
    // Its row stays until three heartbeats (1.5 s) pass without a beat.
    await waitUntil(async () => !(await listed(worker.child.pid!)), 'the dead worker to drop out', 10_000);
  });
});
