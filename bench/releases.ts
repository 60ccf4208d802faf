// npx tsx bench/releases.ts [seconds]: lists 100 releases (5 links and 2 milestones each) over REST
// and over GraphQL against a throwaway embedded PostgreSQL, and prints requests per second and the
// SQL statements one request costs.
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { RELEASES_QUERY } from './documents.ts';
import { startBenchApp } from './in-process.ts';

const seconds = Number(process.argv[2] ?? 10);
const app = await startBenchApp();
const { deps, queryCounter, base, root, headers, post } = app;

try {
  const group = await post('/groups', { name: 'Bench', path: 'bench' });
  const project = await post('/projects', { name: 'app', namespace_id: group.id, initialize_with_readme: true });
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
        releasedAt: new Date(Date.UTC(2020, 0, 1, i)),
        links: { create: Array.from({ length: 5 }, (_, j) => ({ name: `asset-${j}`, url: `https://cdn.test/${i}/${j}`, filepath: `/bin/${j}` })) },
        milestones: { create: milestones.map((m: { id: number }) => ({ milestoneId: m.id })) },
      },
    });
  }

  const rest = { url: `${base}/api/v4/projects/${project.id}/releases?per_page=100`, method: 'GET' as const, headers };
  const graphql = {
    url: `${base}/api/graphql`,
    method: 'POST' as const,
    headers,
    body: JSON.stringify({ query: RELEASES_QUERY, variables: { fullPath: 'bench/app' } }),
  };

  for (const [name, target] of [
    ['REST', rest],
    ['GraphQL', graphql],
  ] as const) {
    const check = await fetch(target.url, target);
    if (!check.ok) throw new Error(`${name}: ${check.status} ${await check.text()}`);
    const rounds = 20;
    queryCounter.reset();
    for (let i = 0; i < rounds; i++) await (await fetch(target.url, target)).arrayBuffer();
    const sqlPerRequest = queryCounter.count / rounds;
    const result = await autocannon({ ...target, connections: 10, duration: seconds });
    console.log(
      `${name.padEnd(8)} ${result.requests.average.toFixed(1)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ${sqlPerRequest} SQL/request  (${result.non2xx} non-2xx)`,
    );
  }
} finally {
  await app.close();
}
