// npx tsx bench/alerts.ts: posts generic alerts to one HTTP endpoint against a throwaway embedded
// PostgreSQL, 1,000 with distinct fingerprints (each a new alert) and 1,000 with one repeated
// fingerprint (grouped into one alert), 10 at a time, and prints alerts per second for both next
// to a floor measured in the same run: the bare INSERT … ON CONFLICT on the same table, 10 at a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { createAppServer } from '../src/http-server.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';

const COUNT = 1000;
const CONCURRENCY = 10;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  EXTERNAL_URL: 'http://bench.test',
  ALERT_INTAKE_RATE_LIMIT: '1000000',
  JOB_WORKERS_IN_SERVER: 'false',
});
const runtime = await startRuntime(config, {});
const { deps } = runtime;
const server = createAppServer(buildApp(deps)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Runs `task(i)` for i < COUNT, CONCURRENCY at a time; returns items per second. */
async function rate(task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < COUNT) await task(next++);
    }),
  );
  return COUNT / (Number(process.hrtime.bigint() - started) / 1e9);
}

try {
  const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
  const api = async (p: string, body: object) => (await fetch(`${base}/api/v4${p}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  const group = await api('/groups', { name: 'Bench', path: 'bench' });
  const project = await api('/projects', { name: 'app', namespace_id: group.id });
  const endpoint = await api(`/projects/${project.id}/alert_management/http_integrations`, { name: 'bench', active: true });
  const url = new URL(endpoint.url).pathname;
  const send = async (body: object) => {
    const res = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`intake answered ${res.status}`);
    await res.arrayBuffer();
  };

  const distinct = await rate((i) => send({ title: `alert ${i}`, fingerprint: `distinct-${i}`, severity: 'high', hosts: ['web-1'] }));
  const repeated = await rate(() => send({ title: 'storm', fingerprint: 'repeated', severity: 'high', hosts: ['web-1'] }));
  const floor = await rate(async (i) => {
    await deps.db.$executeRaw`
      INSERT INTO alerts (project_id, iid, title, fingerprint, started_at, updated_at)
      VALUES (${project.id}, ${100_000 + i}, 'floor', ${`floor-${i % 2 ? i : 0}`}, now(), now())
      ON CONFLICT (project_id, fingerprint) WHERE status <> 'resolved' AND fingerprint IS NOT NULL
      DO UPDATE SET events = alerts.events + 1`;
  });
  const storm = await deps.db.alert.findFirstOrThrow({ where: { projectId: project.id, fingerprint: { not: null }, title: 'storm' } });
  console.log(`distinct fingerprints  ${distinct.toFixed(0)} alerts/s (${COUNT} new alerts)`);
  console.log(`repeated fingerprint   ${repeated.toFixed(0)} alerts/s (one alert, ${storm.events} events)`);
  console.log(`floor: bare INSERT … ON CONFLICT, no HTTP  ${floor.toFixed(0)} statements/s`);
} finally {
  server.close();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
