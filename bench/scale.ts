// npx tsx bench/scale.ts [requests] [big] [list]: lists that stay fast as their tables grow (issue 42).
// For each list, a parent with 1,000 rows and one with `big` (300,000 by default), each bulk
// inserted with one INSERT … SELECT generate_series and then VACUUM ANALYZE (as autovacuum would),
// and the median time of `requests` (15) REST requests for page 1 and page 50 of 20 and a search,
// printed side by side with the ratio. Targets: ≤ 1.5× for pages, ≤ 2× for search.
// Set DATABASE_URL to measure against an external PostgreSQL (the embedded one otherwise).
import { startBenchApp } from './in-process.ts';

const requests = Number(process.argv[2] ?? 15);
const BIG = Number(process.argv[3] ?? 300_000);
const SMALL = 1_000;
// Only the lists whose name contains this (all of them without it).
const only = process.argv[4];

// The bulk inserts and VACUUM of 300,000 rows take longer than the default statement timeout.
const app = await startBenchApp({ JOB_WORKERS_IN_SERVER: 'false', EPICS_ENABLED: 'true', DB_STATEMENT_TIMEOUT_MS: '600000' });
const { deps, base, headers, post } = app;
const minutes = (expr: string) => `now() - (${expr}) * interval '1 minute'`;

/**
 * A list: how to seed `rows` rows under a new parent (one statement), the table to analyze, and its
 * requests under that parent (no search where GitLab's list has none).
 */
type Scenario = {
  name: string;
  table: string;
  parent: () => Promise<{ id: number }>;
  seed: (parentId: number, rows: number) => string | string[];
  paths: (parentId: number) => { page1: string; page50: string; search?: string };
};

let parents = 0;
const newGroup = async () => post('/groups', { name: `Scale ${++parents}`, path: `scale-${parents}` });
const newProject = async () => post('/projects', { name: `scale-${++parents}`, namespace_id: (await newGroup()).id });
const newUser = async () => {
  const n = ++parents;
  return post('/users', { username: `scale-owner-${n}`, name: `Scale ${n}`, email: `scale-owner-${n}@example.com`, password: 'a-long-password-1' });
};
/** The list's page 1 and page 50 of 20, and its search when it has one. */
const pages = (list: string, search?: string) => ({
  page1: list,
  page50: `${list}&page=50`,
  ...(search && { search: `${list}&search=${encodeURIComponent(search)}` }),
});
/** The i-th of the seeded people (members and access requests point at them). */
const PEOPLE = (rows: number) => `(SELECT id FROM users WHERE username LIKE 'person%' ORDER BY id LIMIT ${rows})`;

const scenarios: Scenario[] = [
  {
    name: 'epics of a group',
    table: 'epics',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO epics (group_id, iid, title, description, created_at, updated_at)
      SELECT ${id}, i, 'epic ' || i, 'about ' || md5(i::text), ${minutes('i')}, ${minutes('i % 997')} FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/groups/${id}/epics?include_descendant_groups=false&per_page=20`, 'epic 777'),
  },
  {
    name: 'projects of a group',
    table: 'projects',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO projects (name, path, namespace_id, description, created_at, updated_at, last_activity_at)
      SELECT 'project ' || i, 'project-' || i, ${id}, md5(i::text), ${minutes('i')}, now(), now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/groups/${id}/projects?per_page=20`, 'project 777'),
  },
  {
    name: 'alerts of a project',
    table: 'alerts',
    parent: newProject,
    seed: (
      id,
      rows,
    ) => `INSERT INTO alerts (project_id, iid, title, description, service, monitoring_tool, hosts, severity, status, started_at, created_at, updated_at)
      SELECT ${id}, i, 'alert ' || i, md5(i::text), 'service ' || (i % 50), 'tool ' || (i % 7), ARRAY['host-' || (i % 300)], 'critical', 'triggered',
             ${minutes('i')}, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/projects/${id}/alert_management/alerts?per_page=20`, 'alert 777'),
  },
  {
    name: 'subgroups of a group',
    table: 'namespaces',
    parent: newGroup,
    seed: (id, rows) => [
      `INSERT INTO namespaces (name, path, full_path, kind, parent_id, traversal_ids, visibility, updated_at)
       SELECT 'team ' || i, 'team-' || i, n.full_path || '/team-' || i, 'group', n.id, n.traversal_ids, 'public', now()
       FROM namespaces n, generate_series(1, ${rows}) i WHERE n.id = ${id}`,
      `UPDATE namespaces SET traversal_ids = traversal_ids || id WHERE parent_id = ${id}`,
    ],
    paths: (id) => pages(`/groups/${id}/subgroups?per_page=20`, 'team 777'),
  },
  {
    name: 'milestones of a project',
    table: 'milestones',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO milestones (project_id, iid, title, description, created_at, updated_at)
      SELECT ${id}, i, 'milestone ' || i, md5(i::text), ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/projects/${id}/milestones?per_page=20`, 'milestone 777'),
  },
  {
    name: 'labels of a project',
    table: 'labels',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO labels (project_id, name, color, updated_at)
      SELECT ${id}, 'label ' || i, '#428BCA', now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/projects/${id}/labels?include_ancestor_groups=false&per_page=20`, 'label 777'),
  },
  {
    name: 'releases of a project',
    table: 'releases',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO releases (project_id, tag, name, released_at, created_at, updated_at)
      SELECT ${id}, 'v' || i, 'Release ' || i, ${minutes('i')}, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/projects/${id}/releases?per_page=20`),
  },
  {
    name: 'personal access tokens of a user',
    table: 'personal_access_tokens',
    parent: newUser,
    seed: (id, rows) => `INSERT INTO personal_access_tokens (user_id, name, digest, scopes, created_at)
      SELECT ${id}, 'token ' || i, md5('${id}-' || i), ARRAY['api'], ${minutes('i')} FROM generate_series(1, ${rows}) i`,
    paths: (id) => pages(`/personal_access_tokens?user_id=${id}&per_page=20`, 'token 777'),
  },
  {
    name: 'members of a group',
    table: 'members',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO members (user_id, namespace_id, access_level, updated_at) SELECT id, ${id}, 30, now() FROM ${PEOPLE(rows)} u`,
    // GitLab names the members' search `query`.
    paths: (id) => {
      const list = `/groups/${id}/members?per_page=20`;
      return { page1: list, page50: `${list}&page=50`, search: `${list}&query=person777` };
    },
  },
  {
    name: 'access requests of a group',
    table: 'access_requests',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO access_requests (user_id, namespace_id) SELECT id, ${id} FROM ${PEOPLE(rows)} u`,
    paths: (id) => pages(`/groups/${id}/access_requests?per_page=20`),
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
  // The people that members and access requests point at, as many as the larger list needs.
  await deps.db.$executeRawUnsafe(`INSERT INTO users (username, name, email, updated_at)
    SELECT 'person' || i, 'Person ' || i, 'person' || i || '@example.com', now() FROM generate_series(1, ${BIG}) i`);
  await deps.db.$executeRawUnsafe('VACUUM ANALYZE users');
  console.log(`${requests} requests each, medians; page size 20; ${SMALL.toLocaleString('en')} vs ${BIG.toLocaleString('en')} rows`);
  console.log('| list | request | 1,000 rows | big | ratio |\n|---|---|---|---|---|');
  for (const scenario of scenarios) {
    if (only && !scenario.name.includes(only)) continue;
    const ids: number[] = [];
    for (const rows of [SMALL, BIG]) {
      const parent = await scenario.parent();
      for (const statement of [scenario.seed(parent.id, rows)].flat()) await deps.db.$executeRawUnsafe(statement);
      ids.push(parent.id);
    }
    await deps.db.$executeRawUnsafe(`VACUUM ANALYZE ${scenario.table}`);
    const [small, big] = ids.map(scenario.paths);
    for (const request of ['page1', 'page50', 'search'] as const) {
      const [smallPath, bigPath] = [small[request], big[request]];
      if (!smallPath || !bigPath) continue;
      const a = await median(smallPath);
      const b = await median(bigPath);
      console.log(`| ${scenario.name} | ${request} | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / a).toFixed(2)}× |`);
    }
  }
} finally {
  await app.close();
}
