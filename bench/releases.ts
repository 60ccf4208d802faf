// npx tsx bench/releases.ts [seconds]: lists 100 releases (5 links and 2 milestones each) over REST
// and over GraphQL against a throwaway embedded PostgreSQL, and prints requests per second and the
// SQL statements one request costs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { QueryCounter } from '../src/db/client.ts';
import { startRuntime } from '../src/server.ts';

const seconds = Number(process.argv[2] ?? 10);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', EXTERNAL_URL: 'http://bench.test' });
const queryCounter = new QueryCounter();
const runtime = await startRuntime(config, { queryCounter });
const { deps } = runtime;
const server = buildApp(deps).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

try {
  const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
  const post = async (p: string, body: object) => (await fetch(`${base}/api/v4${p}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();

  const group = await post('/groups', { name: 'Bench', path: 'bench' });
  const project = await post('/projects', { name: 'app', namespace_id: group.id, initialize_with_readme: true });
  const sha = execFileSync('git', ['-C', deps.git.pathFor(project.id), 'rev-parse', 'main']).toString().trim();
  const milestones = [await post(`/projects/${project.id}/milestones`, { title: 'M1' }), await post(`/groups/${group.id}/milestones`, { title: 'G1' })];
  for (let i = 0; i < 100; i++) {
    await deps.db.release.create({
      data: {
        projectId: project.id,
        tag: `v${i}`,
        sha,
        authorId: root.id,
        releasedAt: new Date(Date.UTC(2020, 0, 1, i)),
        links: { create: Array.from({ length: 5 }, (_, j) => ({ name: `asset-${j}`, url: `https://cdn.test/${i}/${j}`, filepath: `/bin/${j}` })) },
        milestones: { create: milestones.map((m: { id: number }) => ({ milestoneId: m.id })) },
      },
    });
  }

  const rest = { url: `${base}/api/v4/projects/${project.id}/releases?per_page=100`, method: 'GET' as const, headers };
  const query = `{ project(fullPath: "bench/app") { releases(first: 100) { nodes {
    tagName name description releasedAt author { username } commit { sha title }
    milestones { nodes { title webUrl issueStats { total closed } } }
    assets { count links { nodes { name url directAssetUrl linkType } } sources { nodes { format url } } }
    links { selfUrl editUrl } } } } }`;
  const graphql = { url: `${base}/api/graphql`, method: 'POST' as const, headers, body: JSON.stringify({ query }) };

  for (const [name, target] of [['REST', rest], ['GraphQL', graphql]] as const) {
    const check = await fetch(target.url, target);
    if (!check.ok) throw new Error(`${name}: ${check.status} ${await check.text()}`);
    const rounds = 20;
    queryCounter.reset();
    for (let i = 0; i < rounds; i++) await (await fetch(target.url, target)).arrayBuffer();
    const sqlPerRequest = queryCounter.count / rounds;
    const result = await autocannon({ ...target, connections: 10, duration: seconds });
    console.log(`${name.padEnd(8)} ${result.requests.average.toFixed(1)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ${sqlPerRequest} SQL/request  (${result.non2xx} non-2xx)`);
  }
} finally {
  server.close();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
