// npx tsx bench/scale.ts [requests] [big] [lists]: lists that stay fast as their tables grow (issue 42).
// For each list, a parent with 1,000 rows and one with `big` (300,000 by default), each bulk
// inserted with one INSERT … SELECT generate_series, then VACUUM ANALYZE (as autovacuum would) and
// a CHECKPOINT, and the median time of `requests` (15) requests for page 1 and page 50 of 20 and a
// search, printed side by side with the ratio, once the process is warm. Targets: ≤ 1.5× for
// pages, ≤ 2× for search. Lists without a parent (users, groups, the administrator's tokens, the job
// queue) are measured over a whole table: one of 1,000 rows in a second database (`<name>_small`
// beside DATABASE_URL's, or a second embedded one) against the table of `big` rows. The two sizes'
// requests alternate, so that the machine's drift over the run weighs on both alike.
// Set DATABASE_URL to measure against an external PostgreSQL (the embedded one otherwise).
import pg from 'pg';
import { issueToken } from '../src/auth/tokens.ts';
import { startBenchApp } from './in-process.ts';

const requests = Number(process.argv[2] ?? 15);
const BIG = Number(process.argv[3] ?? 300_000);
const SMALL = 1_000;
// Only the lists whose name contains one of these, comma-separated (all of them without it).
const only = process.argv[4]?.split(',');
const chosen = (name: string) => !only || only.some((word) => name.includes(word));

// The bulk inserts and VACUUM of 300,000 rows take longer than the default statement timeout.
const ENV = { JOB_WORKERS_IN_SERVER: 'false', EPICS_ENABLED: 'true', DB_STATEMENT_TIMEOUT_MS: '600000' };
const app = await startBenchApp(ENV);
type App = typeof app;
const { deps, base, headers, post } = app;

/** The app over the small tables of the whole-table lists: a database of its own. */
async function startSmallApp(): Promise<App> {
  const url = process.env.DATABASE_URL;
  if (!url) return startBenchApp(ENV);
  const small = new URL(url);
  small.pathname = `${small.pathname}_small`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = small.pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return startBenchApp({ ...ENV, DATABASE_URL: small.toString() });
}
const minutes = (expr: string) => `now() - (${expr}) * interval '1 minute'`;

/** A REST GET (path under /api/v4) or a GraphQL query, as the parent's viewer (root's token without one). */
type Request = string | { query: string; variables: Record<string, unknown> };
/** The requests of one list by label (page 1, page 50, a search), for one parent. */
type Requests = Record<string, Request>;
type Parent = { id: number; headers?: Record<string, string> };

/**
 * A list: how to seed `rows` rows under a new parent (one statement), the table to analyze, and its
 * requests under that parent (no search where GitLab's list has none).
 */
type Scenario = {
  name: string;
  table: string;
  parent: () => Promise<Parent>;
  seed: (parentId: number, rows: number) => string | string[];
  requests: (parent: Parent) => Promise<Requests> | Requests;
};

/**
 * A list over a whole table: `seed` adds the rows numbered `from` to `to` (one statement each),
 * `requests` are read after the table is analyzed (a project made then is newer than its statistics).
 */
type TableScenario = {
  name: string;
  table: string;
  seed: (from: number, to: number) => string | string[];
  requests: (on: App) => Promise<Requests> | Requests;
};

let parents = 0;
const newGroup = async (on: App = app) => on.post('/groups', { name: `Scale ${++parents}`, path: `scale-${parents}` });
const newProject = async () => post('/projects', { name: `scale-${++parents}`, namespace_id: (await newGroup()).id });
const newUser = async () => {
  const n = ++parents;
  return post('/users', { username: `scale-owner-${n}`, name: `Scale ${n}`, email: `scale-owner-${n}@example.com`, password: 'a-long-password-1' });
};
/** A new user with a token of their own: lists of the viewer's own rows (to-dos). */
const newViewer = async (): Promise<Parent> => {
  const user = await newUser();
  const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: user.id, name: 'scale', scopes: ['api'] });
  return { id: user.id, headers: { ...headers, 'PRIVATE-TOKEN': token } };
};
/** The list's page 1 and page 50 of 20, and its search (`search=`, or GitLab's name for it) when it has one. */
const pages = (list: string, search?: string, param = 'search'): Requests => ({
  'page 1': list,
  'page 50': `${list}&page=50`,
  ...(search && { [`\`${param}=${search}\``]: `${list}&${param}=${encodeURIComponent(search)}` }),
});
/** The i-th of the seeded people (members and access requests point at them). */
const PEOPLE = (rows: number) => `(SELECT id FROM users WHERE username LIKE 'person%' ORDER BY id LIMIT ${rows})`;

/** The epic every seeded to-do is about (to-dos point at an epic or an alert), made once. */
let target: { id: number; group_id: number } | undefined;
const todoTarget = async () => {
  target ??= await post(`/groups/${(await newGroup()).id}/epics`, { title: 'to-do target' });
};
/** The commit of each project whose statuses are listed. */
const shas = new Map<number, string>();

const SOURCE_USERS = `query($path: ID!, $after: String, $search: String) {
  group(fullPath: $path) { importSourceUsers(first: 20, after: $after, search: $search) { nodes { id sourceName sourceUsername status } pageInfo { endCursor } } }
}`;
/** The cursor after the first `rows` import source users of the group: GraphQL's page 50 starts there. */
async function sourceUsersCursor(path: string, rows: number): Promise<string> {
  let after: string | null = null;
  for (let read = 0; read < rows; read += 100) {
    const query = SOURCE_USERS.replace('first: 20', `first: ${Math.min(100, rows - read)}`);
    const body = await graphql({ query, variables: { path, after } }, headers);
    after = body.data.group.importSourceUsers.pageInfo.endCursor;
  }
  return after!;
}

async function graphql(request: { query: string; variables: Record<string, unknown> }, as: Record<string, string>, on: App = app) {
  const res = await fetch(`${on.base}/api/graphql`, { method: 'POST', headers: as, body: JSON.stringify(request) });
  const body = await res.json();
  if (!res.ok || body.errors) throw new Error(`GraphQL: ${res.status} ${JSON.stringify(body.errors)}`);
  return body;
}

const scenarios: Scenario[] = [
  {
    name: 'epics of a group',
    table: 'epics',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO epics (group_id, iid, title, description, created_at, updated_at)
      SELECT ${id}, i, 'epic ' || i, 'about ' || md5(i::text), ${minutes('i')}, ${minutes('i % 997')} FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/groups/${id}/epics?include_descendant_groups=false&per_page=20`, 'epic 777'),
  },
  {
    name: 'projects of a group',
    table: 'projects',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO projects (name, path, namespace_id, description, created_at, updated_at, last_activity_at)
      SELECT 'project ' || i, 'project-' || i, ${id}, md5(i::text), ${minutes('i')}, now(), now() FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/groups/${id}/projects?per_page=20`, 'project 777'),
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
    requests: ({ id }) => pages(`/projects/${id}/alert_management/alerts?per_page=20`, 'alert 777'),
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
    requests: ({ id }) => pages(`/groups/${id}/subgroups?per_page=20`, 'team 777'),
  },
  {
    name: 'milestones of a project',
    table: 'milestones',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO milestones (project_id, iid, title, description, created_at, updated_at)
      SELECT ${id}, i, 'milestone ' || i, md5(i::text), ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/projects/${id}/milestones?per_page=20`, 'milestone 777'),
  },
  {
    name: 'labels of a project',
    table: 'labels',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO labels (project_id, name, color, updated_at)
      SELECT ${id}, 'label ' || i, '#428BCA', now() FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/projects/${id}/labels?include_ancestor_groups=false&per_page=20`, 'label 777'),
  },
  {
    name: 'releases of a project',
    table: 'releases',
    parent: newProject,
    seed: (id, rows) => `INSERT INTO releases (project_id, tag, name, released_at, created_at, updated_at)
      SELECT ${id}, 'v' || i, 'Release ' || i, ${minutes('i')}, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/projects/${id}/releases?per_page=20`),
  },
  {
    name: 'personal access tokens of a user',
    table: 'personal_access_tokens',
    parent: newUser,
    seed: (id, rows) => `INSERT INTO personal_access_tokens (user_id, name, digest, scopes, created_at)
      SELECT ${id}, 'token ' || i, md5('${id}-' || i), ARRAY['api'], ${minutes('i')} FROM generate_series(1, ${rows}) i`,
    requests: ({ id }) => pages(`/personal_access_tokens?user_id=${id}&per_page=20`, 'token 777'),
  },
  {
    name: 'members of a group',
    table: 'members',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO members (user_id, namespace_id, access_level, updated_at) SELECT id, ${id}, 30, now() FROM ${PEOPLE(rows)} u`,
    // GitLab names the members' search `query`.
    requests: ({ id }) => pages(`/groups/${id}/members?per_page=20`, 'person777', 'query'),
  },
  {
    name: 'access requests of a group',
    table: 'access_requests',
    parent: newGroup,
    seed: (id, rows) => `INSERT INTO access_requests (user_id, namespace_id) SELECT id, ${id} FROM ${PEOPLE(rows)} u`,
    requests: ({ id }) => pages(`/groups/${id}/access_requests?per_page=20`),
  },
  {
    // GitLab's to-dos API has filters but no search.
    name: 'to-dos of a user',
    table: 'todos',
    parent: async () => {
      await todoTarget();
      return newViewer();
    },
    seed: (id, rows) => `INSERT INTO todos (user_id, author_id, group_id, epic_id, created_at, updated_at)
      SELECT ${id}, ${id}, ${target!.group_id}, ${target!.id}, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    requests: () => pages('/todos?per_page=20'),
  },
  {
    // GraphQL only: REST serves the group's placeholders as a CSV to fill in.
    name: 'import source users of a group',
    table: 'import_source_users',
    parent: newGroup,
    seed: (
      id,
      rows,
    ) => `INSERT INTO import_source_users (namespace_id, source_hostname, import_type, source_user_identifier, source_name, source_username, created_at, updated_at)
      SELECT ${id}, 'https://source.example', 'gitlab_migration', i::text, 'Source ' || i, 'source' || i, ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    requests: async ({ id }) => {
      const { full_path: path } = await (await fetch(`${base}/api/v4/groups/${id}`, { headers })).json();
      const page = (variables: Record<string, unknown>) => ({ query: SOURCE_USERS, variables: { path, ...variables } });
      return {
        'page 1': page({}),
        'page 50': page({ after: await sourceUsersCursor(path, 49 * 20) }),
        '`search: "Source 777"`': page({ search: 'Source 777' }),
      };
    },
  },
  {
    // GitLab's commit statuses have filters (ref, stage, name) but no search.
    name: 'statuses of a commit',
    table: 'commit_statuses',
    parent: async () => {
      const project = await post('/projects', { name: `scale-${++parents}`, namespace_id: (await newGroup()).id, initialize_with_readme: true });
      const commit = await (await fetch(`${base}/api/v4/projects/${project.id}/repository/commits/main`, { headers })).json();
      shas.set(project.id, commit.id);
      return project;
    },
    seed: (id, rows) => [
      `INSERT INTO ci_pipelines (iid, project_id, sha, ref, updated_at) VALUES (1, ${id}, '${shas.get(id)}', 'main', now())`,
      `INSERT INTO commit_statuses (pipeline_id, name, ref, status, created_at, updated_at)
       SELECT (SELECT id FROM ci_pipelines WHERE project_id = ${id}), 'job ' || i, 'main', 'success', ${minutes('i')}, now() FROM generate_series(1, ${rows}) i`,
    ],
    requests: ({ id }) => pages(`/projects/${id}/repository/commits/${shas.get(id)}/statuses?per_page=20`),
  },
];

/** The people the list of users reads; members and access requests of the lists above point at them. */
const PEOPLE_SCENARIO: TableScenario = {
  name: 'users',
  table: 'users',
  seed: (from, to) => `INSERT INTO users (username, name, email, updated_at)
    SELECT 'person' || i, 'Person ' || i, 'person' || i || '@example.com', now() FROM generate_series(${from}, ${to}) i`,
  requests: () => pages('/users?per_page=20', 'person777'),
};

const tableScenarios: TableScenario[] = [
  PEOPLE_SCENARIO,
  {
    name: 'groups',
    table: 'namespaces',
    seed: (from, to) => [
      `INSERT INTO namespaces (name, path, full_path, kind, traversal_ids, visibility, updated_at)
       SELECT 'crowd ' || i, 'crowd-' || i, 'crowd-' || i, 'group', '{}', 'public', now() FROM generate_series(${from}, ${to}) i`,
      "UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE traversal_ids = '{}'",
    ],
    requests: () => pages('/groups?per_page=20', 'crowd 777'),
  },
  {
    // Every project route reads the project with the viewer's levels; its group is made after
    // the namespaces were analyzed, as a new group is on a busy instance. The projects sit in an
    // old group (1,000 of them, seeded once): the planner's statistics then place project
    // namespaces among the old ids, which is what made it walk the namespaces to a new one.
    name: 'a project in a new group, among the groups',
    table: 'projects',
    seed: (from) =>
      from > 1
        ? []
        : `INSERT INTO projects (name, path, namespace_id, created_at, updated_at, last_activity_at)
           SELECT 'crowd project ' || i, 'crowd-project-' || i, (SELECT id FROM namespaces WHERE path = 'crowd-1'), now(), now(), now()
           FROM generate_series(1, ${SMALL}) i`,
    requests: async (on) => {
      const project = await on.post('/projects', { name: `scale-${++parents}`, namespace_id: (await newGroup(on)).id });
      return { 'GET /projects/:id': `/projects/${project.id}`, 'GET /projects/:id/labels': `/projects/${project.id}/labels` };
    },
  },
  {
    // A group has one integration per kind (the list is bounded by the 29 kinds); what grows is
    // the table, with the integrations of every other group (here one for each group above).
    name: "integrations of a group, among the groups' integrations",
    table: 'integrations',
    seed: () => `INSERT INTO integrations (namespace_id, slug, active, updated_at)
      SELECT id, 'slack', true, now() FROM namespaces WHERE path LIKE 'crowd-%' ON CONFLICT DO NOTHING`,
    requests: async (on) => {
      const group = await on.deps.db.namespace.findFirstOrThrow({ where: { path: 'crowd-1' } });
      return { 'GET /groups/:id/integrations': `/groups/${group.id}/integrations` };
    },
  },
  {
    // The administrator's list: every user's tokens.
    name: 'personal access tokens, all users',
    table: 'personal_access_tokens',
    seed: (from, to) => `INSERT INTO personal_access_tokens (user_id, name, digest, scopes, created_at)
      SELECT (SELECT id FROM users WHERE username = 'person' || (i % 1000 + 1)), 'crowd token ' || i, md5('crowd-' || i), ARRAY['api'], ${minutes('i')}
      FROM generate_series(${from}, ${to}) i`,
    requests: () => pages('/personal_access_tokens?per_page=20', 'crowd token 777'),
  },
  {
    // Not lists: the queues' numbers (Sidekiq's), counted over the jobs ready to run.
    name: 'job queue, jobs waiting',
    table: 'pgboss.job',
    seed: (from, to) =>
      `INSERT INTO pgboss.job (name, data, start_after) SELECT 'relation-export', '{}', now() - interval '1 minute' FROM generate_series(${from}, ${to}) i`,
    requests: () => ({ 'GET /jobqueue/queue_metrics': '/jobqueue/queue_metrics', 'GET /jobqueue/job_stats': '/jobqueue/job_stats' }),
  },
];

/** One side of a comparison: a request, the app that serves it and the viewer's headers. */
type Side = { on: App; request: Request; as: Record<string, string> };

/** Milliseconds of one request. */
async function timed({ on, request, as }: Side): Promise<number> {
  const started = performance.now();
  if (typeof request !== 'string') await graphql(request, as, on);
  else {
    const res = await fetch(`${on.base}/api/v4${request}`, { headers: as });
    if (!res.ok) throw new Error(`GET ${request}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return performance.now() - started;
}

/** The median milliseconds of `requests` requests of each side, the two taking turns, after two each to warm up. */
async function medians(small: Side, big: Side): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = -2; i < requests; i++) {
    const [a, b] = [await timed(small), await timed(big)];
    if (i < 0) continue;
    times[0].push(a);
    times[1].push(b);
  }
  const median = (list: number[]) => list.sort((x, y) => x - y)[Math.floor(list.length / 2)]!;
  return [median(times[0]), median(times[1])];
}

const row = (name: string, label: string, a: number, b: number) =>
  console.log(`| ${name} | ${label} | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / a).toFixed(2)}× |`);
/**
 * After a bulk load: VACUUM ANALYZE the table, as autovacuum would, then a CHECKPOINT, so that the
 * load's writes are flushed before the requests are timed rather than while they run.
 */
const settle = async (table: string, on: App = app) => {
  await on.deps.db.$executeRawUnsafe(`VACUUM ANALYZE ${table}`);
  await on.deps.db.$executeRawUnsafe('CHECKPOINT');
};
const run = async (statements: string | string[], on: App = app) => {
  for (const statement of [statements].flat()) await on.deps.db.$executeRawUnsafe(statement);
};

/**
 * A few hundred requests through the REST and GraphQL paths before anything is measured: the lists
 * over whole tables are measured small first, and in a process just started their requests would
 * also pay for compiling the code every request runs, which the big ones, minutes later, do not.
 */
async function warmProcess(on: App) {
  const paths = ['/users?per_page=20', '/groups?per_page=20', '/personal_access_tokens?per_page=20', '/projects?per_page=20&search=warm'];
  for (let i = 0; i < 100; i++) {
    for (const path of paths) await (await fetch(`${on.base}/api/v4${path}`, { headers: on.headers })).arrayBuffer();
    await graphql({ query: '{ currentUser { id } }', variables: {} }, on.headers, on);
  }
}

let smallApp: App | undefined;
try {
  console.log(`${requests} requests each, medians; page size 20; ${SMALL.toLocaleString('en')} vs ${BIG.toLocaleString('en')} rows`);
  console.log('| list | request | 1,000 rows | big | ratio |\n|---|---|---|---|---|');
  // The lists over whole tables: 1,000 rows in the small app's database, `big` in the main one's.
  // The people are seeded whichever lists run: members and access requests point at them.
  const seeded = tableScenarios.filter((s) => s === PEOPLE_SCENARIO || chosen(s.name));
  smallApp = seeded.some((s) => chosen(s.name)) ? await startSmallApp() : undefined;
  const small = smallApp;
  await warmProcess(app);
  if (small) await warmProcess(small);
  for (const s of seeded) {
    if (small) {
      await run(s.seed(1, SMALL), small);
      await settle(s.table, small);
    }
    await run(s.seed(1, BIG));
    await settle(s.table);
  }
  for (const s of seeded) {
    if (!small || !chosen(s.name)) continue;
    const [smallRequests, bigRequests] = [await s.requests(small), await s.requests(app)];
    for (const [label, request] of Object.entries(smallRequests)) {
      const times = await medians({ on: small, request, as: small.headers }, { on: app, request: bigRequests[label]!, as: headers });
      row(s.name, label, ...times);
    }
  }
  for (const scenario of scenarios) {
    if (!chosen(scenario.name)) continue;
    const parents: Parent[] = [];
    for (const rows of [SMALL, BIG]) {
      const parent = await scenario.parent();
      await run(scenario.seed(parent.id, rows));
      parents.push(parent);
    }
    await settle(scenario.table);
    const [a, b] = parents as [Parent, Parent];
    const [smallRequests, bigRequests] = [await scenario.requests(a), await scenario.requests(b)];
    for (const [label, request] of Object.entries(smallRequests)) {
      const times = await medians({ on: app, request, as: a.headers ?? headers }, { on: app, request: bigRequests[label]!, as: b.headers ?? headers });
      row(scenario.name, label, ...times);
    }
  }
} finally {
  await smallApp?.close();
  await app.close();
}
