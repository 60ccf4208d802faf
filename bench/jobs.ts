// npx tsx bench/jobs.ts [jobs]: how many jobs per second one worker process runs, against a
// throwaway embedded PostgreSQL (or DATABASE_URL). Jobs are no-ops, so the figure is the queue's
// own cost per job: fetch, run, complete, count. Floor, measured in the same run: pg-boss's bare
// fetch + complete loop at the same batch size, with nothing around it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';

const total = Number(process.argv[2] ?? 2000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const runtime = await startRuntime(config, {
  jobs: [{ 'bench-floor': async () => {}, 'bench-5': async () => {}, 'bench-20': async () => {} }],
  jobMaintenance: false,
});
const { deps } = runtime;
const { boss } = deps.jobs;

const rate = (count: number, ms: number) => `${((count * 1000) / ms).toFixed(0).padStart(6)} jobs/s`;

/** Enqueues `count` jobs in one statement (the bench measures running them, not sending them). */
const fill = (queue: string, count: number) => boss.insert(Array.from({ length: count }, (_, i) => ({ name: queue, data: { i } })));

async function processed(queue: string): Promise<number> {
  const row = await deps.db.jobQueueStat.findUnique({ where: { queue } });
  return Number(row?.processed ?? 0);
}

try {
  // Sending, one request's worth at a time (insert + NOTIFY), as a request handler does.
  const sendCount = Math.min(total, 500);
  let started = performance.now();
  for (let i = 0; i < sendCount; i++) await deps.jobs.send('bench-floor', { i });
  console.log(`send (one at a time)         ${rate(sendCount, performance.now() - started)}`);
  await boss.purgeQueue('bench-floor');

  // Floor: bare pg-boss, fetch 5 / complete 5 in a loop, in this process.
  await fill('bench-floor', total);
  started = performance.now();
  let done = 0;
  for (;;) {
    const jobs = await boss.fetch('bench-floor', { batchSize: 5 });
    if (jobs.length === 0) break;
    await boss.complete(
      'bench-floor',
      jobs.map((j) => j.id),
    );
    done += jobs.length;
  }
  console.log(`floor: pg-boss fetch+complete ${rate(done, performance.now() - started)}  (${done} jobs, batches of 5)`);

  // One worker (this process) at concurrency 5 (the default) and 20.
  for (const concurrency of [5, 20]) {
    const queue = `bench-${concurrency}`;
    await fill(queue, total);
    const worker = await runtime.startWorker({ queues: [queue], concurrency, pollIntervalMs: 500, heartbeatMs: 5000 });
    started = performance.now();
    while ((await processed(queue)) < total) await new Promise((r) => setTimeout(r, 25));
    const ms = performance.now() - started;
    await worker.stop(5000);
    console.log(`worker, concurrency ${String(concurrency).padEnd(3)}     ${rate(total, ms)}  (${total} jobs in ${(ms / 1000).toFixed(2)} s)`);
  }
} finally {
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
