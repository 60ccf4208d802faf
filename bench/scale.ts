// npx tsx bench/scale.ts [requests] [big]: lists that stay fast as their tables grow (issue 42).
// For each list, a parent with 1,000 rows and one with `big` (300,000 by default), each bulk
// inserted with one INSERT … SELECT generate_series and then VACUUM ANALYZE (as autovacuum would),
// and the median time of `requests` (15) REST requests for page 1 and page 50 of 20 and a search,
// printed side by side with the ratio. Targets: ≤ 1.5× for pages, ≤ 2× for search.
// Set DATABASE_URL to measure against an external PostgreSQL (the embedded one otherwise).
import { startBenchApp } from './in-process.ts';

const requests = Number(process.argv[2] ?? 15);
const BIG = Number(process.argv[3] ?? 300_000);
const SMALL = 1_000;

// The bulk inserts and VACUUM of 300,000 rows take longer than the default statement timeout.
const app = await startBenchApp({ JOB_WORKERS_IN_SERVER: 'false', EPICS_ENABLED: 'true', DB_STATEMENT_TIMEOUT_MS: '600000' });
const { deps, base, headers, post } = app;
const minutes = (expr: string) => `now() - (${expr}) * interval '1 minute'`;

/** A list: how to seed `rows` rows under a new parent, and its three requests under that parent. */
type Scenario = {
  name: string;
  parent: (size: number) => Promise<{ id: number }>;
  seed: (parentId: number, rows: number) => string;
  paths: (parentId: number) => { page1: string; page50: string; search: string };
};

let parents = 0;
const newGroup = async () => post('/groups', { name: `Scale ${++parents}`, path: `scale-${parents}` });
const newProject = async () => post('/projects', { name: `scale-${++parents}`, namespace_id: (await newGroup()).id });

const scenarios: Scenario[] = [
  {
    name: 'epics of a group',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO epics (group_id, iid, title, description, created_at, updated_at)
      SELECT ${id}, i, 'epic ' || i, 'about ' || md5(i::text), ${minutes('i')}, ${minutes('i % 997')} FROM generate_series(1, ${rows}) i`,
    paths: (id) => {
      const list = `/groups/${id}/epics?include_descendant_groups=false&per_page=20`;
      return { page1: list, page50: `${list}&page=50`, search: `${list}&search=epic%20777` };
    },
  },
  {
    name: 'projects of a group',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO projects (name, path, namespace_id, description, created_at, updated_at, last_activity_at)
      SELECT 'project ' || i, 'project-' || i, ${id}, md5(i::text), ${minutes('i')}, now(), now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => {
      const list = `/groups/${id}/projects?per_page=20`;
      return { page1: list, page50: `${list}&page=50`, search: `${list}&search=project%20777` };
    },
  },
  {
    name: 'alerts of a project',
    parent: newProject,
    seed: (
      id,
      rows,
    ) => `INSERT INTO alerts (project_id, iid, title, description, service, monitoring_tool, hosts, severity, status, started_at, created_at, updated_at)
      SELECT ${id}, i, 'alert ' || i, md5(i::text), 'service ' || (i % 50), 'tool ' || (i % 7), ARRAY['host-' || (i % 300)], 'critical', 'triggered',
             ${minutes('i')}, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => {
      const list = `/projects/${id}/alert_management/alerts?per_page=20`;
      return { page1: list, page50: `${list}&page=50`, search: `${list}&search=alert%20777` };
    },
  },
];

/** Median milliseconds of `requests` GETs of `path`, after two to warm up. */
async function median(path: string): Promise<number> {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(`${base}/api/v4${path}`, { headers });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - started;
  };
  await once();
  await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

try {
  console.log(`${requests} requests each, medians; page size 20; ${SMALL.toLocaleString('en')} vs ${BIG.toLocaleString('en')} rows`);
  console.log('| list | request | 1,000 rows | big | ratio |\n|---|---|---|---|---|');
  for (const scenario of scenarios) {
    const sizes = [SMALL, BIG];
    const ids: number[] = [];
    for (const rows of sizes) {
      const parent = await scenario.parent(rows);
      await deps.db.$executeRawUnsafe(scenario.seed(parent.id, rows));
      ids.push(parent.id);
    }
    await deps.db.$executeRawUnsafe('VACUUM ANALYZE');
    const [small, big] = ids.map(scenario.paths);
    for (const request of ['page1', 'page50', 'search'] as const) {
      const a = await median(small[request]);
      const b = await median(big[request]);
      console.log(`| ${scenario.name} | ${request} | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / a).toFixed(2)}× |`);
    }
  }
} finally {
  await app.close();
}
