// The forgegate side of `npm run bench`: seeds the scenarios' data, then serves the app (as
// `npm start` runs it: same node flags) and, on a second port, its own counters (CPU, SQL, RSS).
// Started by bench/index.ts, which reads the READY line.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { AccessLevel } from '../src/auth/access-levels.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { QueryCounter } from '../src/db/client.ts';
import { startRuntime } from '../src/server.ts';
import { createAppServer } from '../src/http-server.ts';

const started = performance.now();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', EXTERNAL_URL: 'http://bench.test' });
const queryCounter = new QueryCounter();
const runtime = await startRuntime(config, { queryCounter, databaseUrl: process.env.BENCH_DATABASE_URL || undefined });
const { deps } = runtime;
const startupMs = performance.now() - started;
const server = createAppServer(buildApp(deps)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
const post = async (p: string, body: object) => {
  const res = await fetch(`${base}/api/v4${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
  return res.json();
};

const group = await post('/groups', { name: 'Bench', path: 'bench' });
const project = await post('/projects', { name: 'app', namespace_id: group.id, initialize_with_readme: true });
const files = { small: randomBytes(512).toString('hex'), large: randomBytes(512 * 1024).toString('hex') };
for (const [name, content] of Object.entries(files)) {
  await post(`/projects/${project.id}/repository/files/${name}.txt`, { branch: 'main', content, commit_message: name });
}
const sha = execFileSync('git', ['-C', deps.git.pathFor(project.id), 'rev-parse', 'main'])
  .toString()
  .trim();
const milestones = [await post(`/projects/${project.id}/milestones`, { title: 'M1' }), await post(`/groups/${group.id}/milestones`, { title: 'G1' })];
for (let i = 0; i < 100; i++) {
  await deps.db.release.create({
    data: {
      projectId: project.id,
      tag: `v${i}`,
      sha,
      authorId: root.id,
      description: `Release ${i}`,
      releasedAt: new Date(Date.UTC(2020, 0, 1, i)),
      createdAt: new Date(Date.UTC(2021, 0, 1, i)),
      links: { create: Array.from({ length: 5 }, (_, j) => ({ name: `asset-${j}`, url: `https://cdn.test/${i}/${j}`, filepath: `/bin/${j}` })) },
      milestones: { create: milestones.map((m: { id: number }) => ({ milestoneId: m.id })) },
    },
  });
}
// A member of 1,000 projects (in a group of their own) and one of 10, for GET /projects.
const many = await post('/groups', { name: 'Many', path: 'many' });
await deps.db.project.createMany({
  data: Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}`, path: `p${i}`, namespaceId: many.id, createdAt: new Date(Date.UTC(2022, 0, 1, 0, i)) })),
});
const manyIds = (await deps.db.project.findMany({ where: { namespaceId: many.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((p) => p.id);
const member = async (name: string, ids: number[]) => {
  const user = await post('/users', { username: name, name, email: `${name}@bench.test`, password: randomBytes(16).toString('hex') });
  await deps.db.member.createMany({ data: ids.map((projectId) => ({ userId: user.id, projectId, accessLevel: AccessLevel.DEVELOPER })) });
  return (await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: user.id, name: 'bench', scopes: ['api'] })).token;
};
const memberOf1000 = await member('member1000', manyIds);
const memberOf10 = await member('member10', manyIds.slice(-10));

const stats = http.createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ cpu: process.cpuUsage(), sql: queryCounter.count, rss: process.memoryUsage().rss }));
});
stats.listen(0, '127.0.0.1');
await new Promise((resolve) => stats.once('listening', resolve));

// BENCH_PROFILE=<file>: a CPU profile of the serving only (seeding left out), written at SIGTERM.
const profiler = process.env.BENCH_PROFILE ? new (await import('node:inspector')).Session() : null;
const inspect = <T>(method: string, params?: object) =>
  new Promise<T>((resolve, reject) => profiler!.post(method, params, (e, r) => (e ? reject(e) : resolve(r as T))));
if (profiler) {
  profiler.connect();
  await inspect('Profiler.enable');
  await inspect('Profiler.start');
}

const ready = {
  base,
  stats: `http://127.0.0.1:${(stats.address() as AddressInfo).port}`,
  databaseUrl: runtime.database.url,
  repositories: path.join(dataDir, 'repositories'),
  digestKey: deps.secrets.tokenDigestKey,
  token,
  memberOf1000,
  memberOf10,
  /** A private project both members belong to. */
  memberProjectId: manyIds.at(-1),
  projectId: project.id,
  projectPath: `${group.full_path}/${project.path}`,
  startupMs,
};
/** What the READY line tells the scripts that start this server. */
export type Ready = typeof ready;
console.log(`READY ${JSON.stringify(ready)}`);

const stop = async () => {
  if (profiler) fs.writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify((await inspect<{ profile: object }>('Profiler.stop')).profile));
  server.close();
  stats.close();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
