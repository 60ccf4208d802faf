// Lists stay fast as their tables grow (issue 42): on tables of tens of thousands of rows, the
// statement each list sends (captured from a real request, with its bound values) is planned with
// an index for its order (a page reads its rows plus the offset, never the whole parent sorted)
// and a trigram index for its search (never every title read).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectLevels } from '../src/auth/store.ts';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { READY_COUNT_LIMIT } from '../src/jobs/store.ts';
import { ALERT_SORTS } from '../src/modules/alerts/service.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

const ROWS = 30_000;

let t: TestApp;
let sql: pg.Client;
let group: { id: number };
let project: { id: number };
let rootId: number;

/**
 * VACUUM ANALYZE `tables` until every page of each is marked all-visible, as a table is some time
 * after a load. One pass can fall short: VACUUM skips the indexes when few pages hold dead rows
 * (and those pages stay unmarked; INDEX_CLEANUP ON forbids that), and a statement overlapping the
 * load holds back what it may mark. On unmarked pages the planner prices an index-only scan like a
 * plain one, and the plans asserted here became a coin toss (a CI run read a commit's statuses
 * from (pipeline_id, id) under a filter). VACUUM also moves the trigram indexes' pending entries
 * (GIN's fast update) into the index proper, which the planner's cost counts.
 */
async function settle(...tables: string[]) {
  for (let pass = 0; pass < 50; pass++) {
    await sql.query(`VACUUM (INDEX_CLEANUP ON, ANALYZE) ${tables.join(', ')}`);
    const { rows } = await sql.query<{ relname: string }>(
      'SELECT relname, relpages, relallvisible FROM pg_class WHERE oid = ANY($1::regclass[]) AND relallvisible < relpages',
      [tables],
    );
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`VACUUM left pages of ${tables.join(', ')} not all-visible: a transaction stays open on the database`);
}

/** One `INSERT … SELECT generate_series` per table, then VACUUM ANALYZE: the planner sees the sizes. */
async function seed() {
  const g = group.id;
  const p = project.id;
  const root = rootId;
  const minutes = (expr: string) => `now() - (${expr}) * interval '1 minute'`;
  const statements: Array<[string, unknown[]]> = [
    [
      `INSERT INTO epics (group_id, iid, title, description, created_at, updated_at)
       SELECT $1, i, 'epic ' || i, 'about ' || md5(i::text), ${minutes('i')}, ${minutes('i % 997')} FROM generate_series(1, ${ROWS}) i`,
      [g],
    ],
    [
      `INSERT INTO projects (name, path, namespace_id, description, visibility, created_at, updated_at, last_activity_at)
       SELECT 'project ' || i, 'project-' || i, $1, md5(i::text), 'public', ${minutes('i')}, ${minutes('i % 991')}, ${minutes('i % 983')}
       FROM generate_series(1, ${ROWS}) i`,
      [g],
    ],
    [
      `INSERT INTO namespaces (name, path, full_path, kind, parent_id, traversal_ids, visibility, updated_at)
       SELECT 'team ' || i, 'team-' || i, 'big/team-' || i, 'group', $1, ARRAY[$1::int], 'public', now() FROM generate_series(1, ${ROWS}) i`,
      [g],
    ],
    ['UPDATE namespaces SET traversal_ids = traversal_ids || id WHERE parent_id = $1', [g]],
    [
      `INSERT INTO users (username, name, email, updated_at)
       SELECT 'person' || i, 'Person ' || i, 'person' || i || '@example.com', now() FROM generate_series(1, ${ROWS}) i`,
      [],
    ],
    [
      `INSERT INTO alerts (project_id, iid, title, description, service, monitoring_tool, hosts, severity, status, events, started_at, created_at, updated_at)
       SELECT $1, i, 'alert ' || i, md5(i::text), 'service ' || (i % 50), 'tool ' || (i % 7), ARRAY['host-' || (i % 300)],
              (ARRAY['critical','high','medium','low','info','unknown'])[1 + i % 6]::"AlertSeverity",
              (ARRAY['triggered','acknowledged','resolved','ignored'])[1 + i % 4]::"AlertStatus",
              1 + i % 100, ${minutes('i')}, ${minutes('i')}, ${minutes('i % 997')}
       FROM generate_series(1, ${ROWS}) i`,
      [p],
    ],
    [
      `INSERT INTO milestones (project_id, iid, title, description, created_at, updated_at)
       SELECT $1, i, 'milestone ' || i, md5(i::text), ${minutes('i')}, ${minutes('i % 997')} FROM generate_series(1, ${ROWS}) i`,
      [p],
    ],
    [`INSERT INTO labels (project_id, name, color, updated_at) SELECT $1, 'label ' || i, '#428BCA', now() FROM generate_series(1, ${ROWS}) i`, [p]],
    [
      `INSERT INTO releases (project_id, tag, name, released_at, created_at, updated_at)
       SELECT $1, 'v' || i, 'Release ' || i, ${minutes('i')}, ${minutes('i')}, now() FROM generate_series(1, ${ROWS}) i`,
      [p],
    ],
    // The tables below hang off the seeded users and epics: `person<i>` is the i-th seeded user.
    [
      `INSERT INTO personal_access_tokens (user_id, name, digest, scopes, created_at, expires_at, last_used_at)
       SELECT $1, 'token ' || i, md5('token' || i), ARRAY['api'], ${minutes('i')}, current_date + i % 400, ${minutes('i % 991')}
       FROM generate_series(1, ${ROWS}) i`,
      [root],
    ],
    [
      `INSERT INTO import_source_users (namespace_id, source_hostname, import_type, source_user_identifier, source_name, source_username, status, updated_at)
       SELECT $1, 'https://source.example', 'gitlab_migration', i::text, 'Source ' || i, 'source' || i,
              (ARRAY['pending_reassignment','awaiting_approval','reassignment_in_progress','completed'])[1 + i % 4]::"ImportSourceUserStatus", now()
       FROM generate_series(1, ${ROWS}) i`,
      [g],
    ],
    [
      `INSERT INTO members (user_id, namespace_id, access_level, updated_at)
       SELECT u.id, $1, 30, now() FROM users u WHERE u.username LIKE 'person%'`,
      [g],
    ],
    [
      `INSERT INTO access_requests (user_id, project_id)
       SELECT u.id, $1 FROM users u WHERE u.username LIKE 'person%'`,
      [p],
    ],
    [
      `INSERT INTO todos (user_id, author_id, group_id, epic_id, state, action, created_at, updated_at)
       SELECT $1, $1, e.group_id, e.id, (CASE WHEN e.iid % 5 = 0 THEN 'done' ELSE 'pending' END)::"TodoState", 'marked', now(), now()
       FROM epics e WHERE e.group_id = $2`,
      [root, g],
    ],
    ["UPDATE epics SET state = 'closed' WHERE group_id = $1 AND iid % 3 = 0", [g]],
    ['UPDATE milestones SET due_date = current_date + iid % 500 WHERE project_id = $1 AND iid % 4 <> 0', [p]],
  ];
  for (const [text, values] of statements) await sql.query(text, values);
  // Every table (the planner's statistics of the small ones too), then the loaded ones to the end.
  await sql.query('VACUUM ANALYZE');
  await settle(...new Set(statements.map(([text]) => /^(?:INSERT INTO|UPDATE) (\S+)/.exec(text)![1]!)));
}

beforeAll(async () => {
  t = await createTestApp({ env: { EPICS_ENABLED: 'true' } });
  sql = new pg.Client(pgConfigFromUrl(t.databaseUrl));
  await sql.connect();
  group = (await t.api('post', '/groups').send({ name: 'Big', path: 'big', visibility: 'public' }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, visibility: 'public' }).expect(201)).body;
  rootId = (await sql.query<{ id: number }>("SELECT id FROM users WHERE username = 'root'")).rows[0]!.id;
  await seed();
}, 120_000);
afterAll(async () => {
  await sql?.end();
  await t?.close();
});

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
};

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/**
 * The nodes that choose the page's rows: those below its window (the Limit), without the subqueries
 * a row's columns run (the viewer's levels of each project), which read the page's rows alone.
 */
function pageNodesOf(plan: PlanNode): PlanNode[] {
  const window = nodesOf(plan).find((n) => n['Node Type'] === 'Limit') ?? plan;
  const below = (node: PlanNode): PlanNode[] => {
    const own = (node.Plans ?? []).filter((p) => p['Parent Relationship'] !== 'SubPlan' && p['Parent Relationship'] !== 'InitPlan');
    return [node, ...own.flatMap(below)];
  };
  return below(window);
}

/** The statement of `table`'s page that one request sent (the one with LIMIT), with its values. */
async function pageStatement(path: string, table: string): Promise<{ text: string; values: unknown[] }> {
  t.queryCounter.reset();
  t.queryCounter.record = true;
  await t.api('get', path).expect(200);
  t.queryCounter.record = false;
  return pickStatement(path, table, (s) => /\bLIMIT\b/.test(s));
}

/** The first statement recorded that reads `table` and passes `which`, with its values. */
function pickStatement(request: string, table: string, which: (text: string) => boolean): { text: string; values: unknown[] } {
  // Prisma writes `"public"."epics"`; the stores over the pool write `releases r`, `projects p`.
  const from = new RegExp(`FROM (?:"public"\\.)?"?${table}"?[\\s"]`);
  const at = t.queryCounter.statements.findIndex((s) => from.test(s) && which(s));
  expect(at, `${request}: a statement over ${table} in\n${t.queryCounter.statements.join('\n')}`).toBeGreaterThanOrEqual(0);
  return { text: t.queryCounter.statements[at]!, values: t.queryCounter.values[at]! };
}

/** The page statement of `table` that one GraphQL query sent (as the root administrator). */
async function graphqlPageStatement(query: string, table: string): Promise<{ text: string; values: unknown[] }> {
  t.queryCounter.reset();
  t.queryCounter.record = true;
  const { body } = await t.graphql(query);
  t.queryCounter.record = false;
  expect(body.errors, query).toBeUndefined();
  return pickStatement(query, table, (s) => /\bLIMIT\b/.test(s));
}

/** EXPLAIN, with the index `without` dropped for the statement (rolled back): the positive control. */
async function explain(text: string, values: unknown[], without?: string) {
  if (!without) return sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(text, values);
  await sql.query('BEGIN');
  try {
    await sql.query(`DROP INDEX ${without}`);
    return await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(text, values);
  } finally {
    await sql.query('ROLLBACK');
  }
}

/** The plan's nodes, and the statement with its plan as a failure's message. */
async function planOf(path: string, table: string, without?: string): Promise<{ nodes: PlanNode[]; page: PlanNode[]; plan: string }> {
  // A GraphQL query (`{ … }`) or a REST path.
  const { text, values } = path.startsWith('{') ? await graphqlPageStatement(path, table) : await pageStatement(path, table);
  const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values, without);
  const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  const shown = nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`);
  return { nodes, page: pageNodesOf(rows[0]['QUERY PLAN'][0].Plan), plan: [path, text, JSON.stringify(values), ...shown].join('\n') };
}

/** The page reads `table` through an index in the list's order: no Seq Scan of it, nothing sorted. */
async function expectIndexedOrder(path: string, table: string) {
  const { nodes, page, plan } = await planOf(path, table);
  expect(
    nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table),
    plan,
  ).toBe(false);
  expect(
    page.some((n) => n['Node Type'] === 'Sort'),
    plan,
  ).toBe(false);
  expect(
    nodes.some((n) => /^Index (Only )?Scan$/.test(n['Node Type']) && n['Relation Name'] === table),
    plan,
  ).toBe(true);
}

/** The search reads `table` through its trigram indexes: no Seq Scan of it. */
async function expectTrigramSearch(path: string, table: string, indexes: string[]) {
  const { nodes, plan } = await planOf(path, table);
  expect(
    nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table),
    plan,
  ).toBe(false);
  const used = nodes.filter((n) => n['Node Type'] === 'Bitmap Index Scan').map((n) => n['Index Name']);
  for (const index of indexes) expect(used, plan).toContain(index);
}

describe('list plans on large tables', () => {
  it('sorts or scans the whole group without the indexes (the positive control)', async () => {
    const base = `/groups/${group.id}/epics?include_descendant_groups=false`;
    const sorted = await planOf(`${base}&order_by=created_at&page=50`, 'epics', 'epics_group_id_created_at_id_idx');
    expect(
      sorted.nodes.some((n) => n['Node Type'] === 'Sort'),
      sorted.plan,
    ).toBe(true);
    const searched = await planOf(`${base}&search=epic%20777`, 'epics', 'epics_title_idx');
    expect(
      searched.nodes.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'epics_title_idx'),
      searched.plan,
    ).toBe(false);
    // And with them, the same statements read the indexes.
    await expectIndexedOrder(`${base}&order_by=created_at&page=50`, 'epics');
    await expectTrigramSearch(`${base}&search=epic%20777`, 'epics', ['epics_title_idx']);
  });

  it('epics: every sort GitLab offers, page 1 and page 50, and search', async () => {
    const base = `/groups/${group.id}/epics?include_descendant_groups=false`;
    for (const orderBy of ['created_at', 'updated_at', 'title']) {
      for (const sort of ['desc', 'asc']) {
        await expectIndexedOrder(`${base}&order_by=${orderBy}&sort=${sort}`, 'epics');
        await expectIndexedOrder(`${base}&order_by=${orderBy}&sort=${sort}&page=50`, 'epics');
      }
    }
    await expectTrigramSearch(`${base}&search=epic%20777`, 'epics', ['epics_title_idx', 'epics_description_idx']);
  });

  it('projects: every order_by, all projects and a group’s, and search', async () => {
    for (const orderBy of ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at']) {
      await expectIndexedOrder(`/projects?order_by=${orderBy}&sort=desc&page=50`, 'projects');
      await expectIndexedOrder(`/groups/${group.id}/projects?order_by=${orderBy}&sort=asc&page=50`, 'projects');
    }
    await expectTrigramSearch('/projects?search=project%20777', 'projects', ['projects_name_idx', 'projects_path_idx', 'projects_description_idx']);
  });

  it('groups and subgroups by name, and search', async () => {
    await expectIndexedOrder('/groups?all_available=true&page=50', 'namespaces');
    await expectIndexedOrder(`/groups/${group.id}/subgroups?page=50`, 'namespaces');
    await expectTrigramSearch('/groups?all_available=true&search=team%20777', 'namespaces', ['namespaces_name_idx', 'namespaces_path_idx']);
  });

  it('users by id, and search', async () => {
    await expectIndexedOrder('/users?page=50', 'users');
    await expectTrigramSearch('/users?search=person777', 'users', ['users_username_idx', 'users_name_idx']);
  });

  it('alerts: every sort GitLab offers, and search', async () => {
    const base = `/projects/${project.id}/alert_management/alerts`;
    for (const sort of ALERT_SORTS) await expectIndexedOrder(`${base}?sort=${sort}&page=50`, 'alerts');
    // The matches are found first (a CTE) and then sorted: the search never walks the order index
    // and filters, which reads most of the project when its matches sit together (bench/RESULTS.md).
    for (const sort of ['created_desc', 'severity_asc']) {
      const { nodes, plan } = await planOf(`${base}?search=alert%20777&sort=${sort}`, 'alerts');
      expect(
        nodes.some((n) => n['Node Type'] === 'CTE Scan'),
        plan,
      ).toBe(true);
      expect(
        nodes.filter((n) => n['Relation Name'] === 'alerts' && /Index Scan/.test(n['Node Type'])).map((n) => n['Index Name']),
        plan,
      ).not.toContain(sort === 'created_desc' ? 'alerts_project_id_created_at_id_idx' : 'alerts_project_id_severity_neg_id_idx');
    }
    await expectTrigramSearch(`${base}?search=alert%20777`, 'alerts', ['alerts_title_idx', 'alerts_description_idx', 'alerts_hosts_idx']);
  });

  it('epics of a state, the common filter, newest first', async () => {
    await expectIndexedOrder(`/groups/${group.id}/epics?include_descendant_groups=false&state=opened&page=50`, 'epics');
    await expectIndexedOrder(`/groups/${group.id}/epics?include_descendant_groups=false&state=closed&page=50`, 'epics');
  });

  it('personal access tokens of a user: every sort GitLab offers that an index serves, and search', async () => {
    await expectIndexedOrder(`/personal_access_tokens?user_id=${rootId}&page=50`, 'personal_access_tokens');
    for (const sort of ['CREATED_DESC', 'CREATED_ASC', 'UPDATED_DESC', 'NAME_ASC', 'NAME_DESC', 'EXPIRES_ASC', 'LAST_USED_ASC', 'ID_DESC']) {
      await expectIndexedOrder(`{ personalAccessTokens(userId: ${rootId}, sort: ${sort}, first: 20) { nodes { id } } }`, 'personal_access_tokens');
    }
    await expectTrigramSearch(`/personal_access_tokens?user_id=${rootId}&search=token%20777`, 'personal_access_tokens', ['personal_access_tokens_name_idx']);
  });

  it('import source users of a group, by each sort that an index serves, and search', async () => {
    for (const sort of ['SOURCE_NAME_ASC', 'STATUS_ASC', 'STATUS_DESC', 'ID_ASC', 'ID_DESC']) {
      await expectIndexedOrder(`{ group(fullPath: "big") { importSourceUsers(sort: ${sort}, first: 20) { nodes { id } } } }`, 'import_source_users');
    }
    await expectTrigramSearch('{ group(fullPath: "big") { importSourceUsers(search: "source777", first: 20) { nodes { id } } } }', 'import_source_users', [
      'import_source_users_source_name_idx',
      'import_source_users_source_username_idx',
    ]);
  });

  it('members and access requests of a group or project, and member search', async () => {
    await expectIndexedOrder(`/groups/${group.id}/members?page=50`, 'members');
    await expectTrigramSearch(`/groups/${group.id}/members?query=person777`, 'members', ['users_username_idx', 'users_name_idx']);
    await expectIndexedOrder(`/projects/${project.id}/access_requests?page=50`, 'access_requests');
  });

  it('to-dos of the viewer, pending and done', async () => {
    await expectIndexedOrder('/todos?page=50', 'todos');
    await expectIndexedOrder('/todos?state=done&page=50', 'todos');
  });

  it('a project by its path reads the paths’ indexes, not every project', async () => {
    t.queryCounter.reset();
    t.queryCounter.record = true;
    await t.api('get', '/projects/big%2Fproject-777').expect(200);
    t.queryCounter.record = false;
    const { text, values } = pickStatement('project by path', 'projects', (s) => /ILIKE/.test(s));
    const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name'])).not.toContain('projects');
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name'])).not.toContain('namespaces');
  });

  it('milestones and labels of a project, and their search', async () => {
    await expectIndexedOrder(`/projects/${project.id}/milestones?page=50`, 'milestones');
    for (const sort of ['CREATED_DESC', 'CREATED_ASC', 'UPDATED_DESC', 'UPDATED_ASC', 'DUE_DATE_ASC']) {
      await expectIndexedOrder(`{ project(fullPath: "big/app") { milestones(sort: ${sort}, first: 20) { nodes { id } } } }`, 'milestones');
    }
    await expectTrigramSearch(`/projects/${project.id}/milestones?search=milestone%20777`, 'milestones', ['milestones_title_idx']);
    await expectIndexedOrder(`/projects/${project.id}/labels?include_ancestor_groups=false&page=50`, 'labels');
    await expectTrigramSearch(`/projects/${project.id}/labels?include_ancestor_groups=false&search=label%20777`, 'labels', [
      'labels_name_idx',
      'labels_description_idx',
    ]);
  });

  it('releases of a project, by either date', async () => {
    for (const orderBy of ['released_at', 'created_at']) {
      for (const sort of ['desc', 'asc']) await expectIndexedOrder(`/projects/${project.id}/releases?order_by=${orderBy}&sort=${sort}&page=50`, 'releases');
    }
  });

  // GitLab leaves X-Total out past 10,000 rows: REST counts no further, GraphQL's count stays exact.
  it('counts at most 10,001 rows for REST pages, and leaves the total out', async () => {
    for (const [path, table] of [
      [`/groups/${group.id}/epics?include_descendant_groups=false&page=3`, 'epics'],
      [`/groups/${group.id}/projects?page=3`, 'projects'],
      [`/projects/${project.id}/alert_management/alerts?page=3`, 'alerts'],
      ['/users?page=3', 'users'],
      [`/groups/${group.id}/subgroups?page=3`, 'namespaces'],
    ] as const) {
      t.queryCounter.reset();
      t.queryCounter.record = true;
      const res = await t.api('get', path).expect(200);
      t.queryCounter.record = false;
      expect(res.body, path).toHaveLength(20);
      expect(res.headers['x-total'], path).toBeUndefined();
      expect(res.headers['x-total-pages'], path).toBeUndefined();
      expect([res.headers['x-next-page'], res.headers['x-prev-page']], path).toEqual(['4', '2']);
      expect(res.headers.link, path).not.toContain('rel="last"');
      const counts = t.queryCounter.statements
        .map((text, i) => ({ text, values: t.queryCounter.values[i] }))
        .filter(({ text }) => /count\(/i.test(text) && text.includes(table));
      expect(counts, path).toHaveLength(1);
      expect(counts[0].text, path).toMatch(/\bLIMIT\b/);
      expect(counts[0].values.map(String), path).toContain('10001');
    }
    // The last page is told by a page that is not full.
    const last = await t.api('get', `/groups/${group.id}/epics?include_descendant_groups=false&per_page=100&page=300`).expect(200);
    expect(last.body).toHaveLength(100);
    expect(last.headers['x-next-page']).toBe('301');
    const beyond = await t.api('get', `/groups/${group.id}/epics?include_descendant_groups=false&per_page=100&page=301`).expect(200);
    expect(beyond.body).toHaveLength(0);
    expect(beyond.headers['x-next-page']).toBe('');
    const { body } = await t.graphql('{ group(fullPath: "big") { epics(includeDescendantGroups: false) { count } } }');
    expect(body.data.group.epics.count).toBe(ROWS);
  });
});

describe('list plans on large tables: sorts with empty values last, expired-last milestones, every token', () => {
  const milestones = (sort: string, after = '') =>
    `{ project(fullPath: "big/app") { milestones(sort: ${sort}, first: 20${after && `, after: "${after}"`}) { nodes { id } } } }`;
  const tokens = (sort: string, user = '') => `{ personalAccessTokens(${user}sort: ${sort}, first: 20) { nodes { id } } }`;
  const offsetCursor = (offset: number) => Buffer.from(`OffsetConnection:${offset}`).toString('base64');

  beforeAll(async () => {
    // Some milestones past due (the expired part of GitLab's expired-last order), some tokens
    // without an expiry or a use (the empty values a descending sort puts last).
    // Milestones: 3,750 not yet due, 750 without a due date, 25,500 expired.
    await sql.query(
      `UPDATE milestones SET due_date = CASE WHEN iid % 40 = 0 THEN NULL WHEN iid % 8 = 1 THEN current_date + iid % 500 ELSE current_date - 1 - iid % 300 END
       WHERE project_id = $1`,
      [project.id],
    );
    await sql.query('UPDATE personal_access_tokens SET expires_at = NULL, last_used_at = NULL WHERE user_id = $1 AND id % 10 = 0', [rootId]);
    await sql.query('ANALYZE milestones, personal_access_tokens');
  });

  it('descending by a date that may be empty reads the DESC NULLS LAST index, which the statement’s ORDER BY names (without it: a Sort)', async () => {
    const cases = [
      [milestones('DUE_DATE_DESC', offsetCursor(979)), 'milestones', 'milestones_project_id_due_date_desc_id_idx'],
      // Without the user's index, the planner would read every user's (all of them root's here).
      [
        tokens('EXPIRES_DESC', `userId: ${rootId}, `),
        'personal_access_tokens',
        'personal_access_tokens_user_id_expires_at_desc_id_idx',
        'personal_access_tokens_expires_at_desc_id_idx',
      ],
      [
        tokens('LAST_USED_DESC', `userId: ${rootId}, `),
        'personal_access_tokens',
        'personal_access_tokens_user_id_last_used_at_desc_id_idx',
        'personal_access_tokens_last_used_at_desc_id_idx',
      ],
      [
        '{ group(fullPath: "big") { importSourceUsers(sort: SOURCE_NAME_DESC, first: 20) { nodes { id } } } }',
        'import_source_users',
        'import_source_users_namespace_id_source_name_desc_id_idx',
      ],
      [tokens('EXPIRES_DESC'), 'personal_access_tokens', 'personal_access_tokens_expires_at_desc_id_idx'],
      [tokens('LAST_USED_DESC'), 'personal_access_tokens', 'personal_access_tokens_last_used_at_desc_id_idx'],
    ] as const;
    for (const [query, table, index, other] of cases as readonly (readonly [string, string, string, string?])[]) {
      const { text } = await graphqlPageStatement(query, table);
      expect(text, query).toMatch(/DESC NULLS LAST/);
      const { nodes, plan } = await planOf(query, table);
      expect(
        nodes.filter((n) => n['Relation Name'] === table).map((n) => n['Index Name']),
        plan,
      ).toContain(index);
      await expectIndexedOrder(query, table);
      const control = await planOf(query, table, other ? `${index}, ${other}` : index);
      expect(
        control.page.some((n) => n['Node Type'] === 'Sort'),
        control.plan,
      ).toBe(true);
    }
  });

  it('expired-last milestones: each part of the order a range of the due-date index, at most three statements, none reading the project', async () => {
    for (const sort of ['EXPIRED_LAST_DUE_DATE_ASC', 'EXPIRED_LAST_DUE_DATE_DESC']) {
      // Page 50 lies in the first part (nothing sorted); page 250 in the last, past the first two
      // parts, which are read as far as the offset as any offset page is.
      for (const offset of [979, 4_979]) {
        const query = milestones(sort, offsetCursor(offset));
        t.queryCounter.reset();
        t.queryCounter.record = true;
        const { body } = await t.graphql(query);
        t.queryCounter.record = false;
        expect(body.errors, query).toBeUndefined();
        expect(body.data.project.milestones.nodes, query).toHaveLength(20);
        const parts = t.queryCounter.statements
          .map((text, i) => ({ text, values: t.queryCounter.values[i]! }))
          .filter(({ text }) => /FROM "public"\."milestones"[\s\S]*LIMIT/.test(text));
        expect(parts.length, query).toBeGreaterThanOrEqual(1);
        expect(parts.length, query).toBeLessThanOrEqual(3);
        for (const { text, values } of parts) {
          const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values);
          const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
          const shown = [query, text, ...nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`)].join('\n');
          expect(
            nodes.some((n) => n['Node Type'] === 'Seq Scan'),
            shown,
          ).toBe(false);
          if (offset === 979)
            expect(
              nodes.some((n) => n['Node Type'] === 'Sort'),
              shown,
            ).toBe(false);
          expect(
            nodes.some((n) => /^(Bitmap )?Index (Only )?Scan$/.test(n['Node Type'])),
            shown,
          ).toBe(true);
        }
      }
    }
  });

  it('alert cursors seek by severity, status and a possibly empty end through the expression indexes (without one: a Sort)', async () => {
    const { rows } = await sql.query<{ id: number }>('SELECT id FROM alerts WHERE project_id = $1 ORDER BY id OFFSET 15000 LIMIT 1', [project.id]);
    const id = String(rows[0]!.id);
    const page = (sort: string, keys: object) =>
      `{ project(fullPath: "big/app") { alertManagementAlerts(sort: ${sort}, first: 20, after: "${Buffer.from(JSON.stringify(keys)).toString('base64url')}") { nodes { iid } } } }`;
    for (const [sort, keys] of [
      ['SEVERITY_DESC', { severity: 'medium', id }],
      ['SEVERITY_ASC', { severity: 'medium', id }],
      ['STATUS_DESC', { status: 'acknowledged', id }],
      ['STATUS_ASC', { status: 'resolved', id }],
      ['ENDED_AT_DESC', { ended_at: null, id }],
      ['ENDED_AT_ASC', { ended_at: '2026-01-01T00:00:00.000Z', id }],
    ] as const) {
      await expectIndexedOrder(page(sort, keys), 'alerts');
    }
    const control = await planOf(page('SEVERITY_DESC', { severity: 'medium', id }), 'alerts', 'alerts_project_id_severity_neg_id_idx');
    expect(
      control.page.some((n) => n['Node Type'] === 'Sort'),
      control.plan,
    ).toBe(true);
  });

  it('every user’s tokens (an administrator’s list): each sort offered through an index', async () => {
    await expectIndexedOrder('/personal_access_tokens?page=50', 'personal_access_tokens');
    for (const sort of [
      'CREATED_DESC',
      'CREATED_ASC',
      'UPDATED_DESC',
      'UPDATED_ASC',
      'NAME_ASC',
      'NAME_DESC',
      'EXPIRES_ASC',
      'EXPIRES_DESC',
      'LAST_USED_ASC',
      'LAST_USED_DESC',
      'ID_ASC',
      'ID_DESC',
    ]) {
      await expectIndexedOrder(tokens(sort), 'personal_access_tokens');
    }
    // Without the creation index the same list sorts every token: the positive control.
    const control = await planOf(tokens('CREATED_DESC'), 'personal_access_tokens', 'personal_access_tokens_created_at_id_idx');
    expect(
      control.page.some((n) => n['Node Type'] === 'Sort'),
      control.plan,
    ).toBe(true);
  });
});

describe('list plans on large tables: a commit’s statuses', () => {
  let app: { id: number };
  let sha: string;

  beforeAll(async () => {
    app = (await t.api('post', '/projects').send({ name: 'Ci', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
    sha = (await t.api('get', `/projects/${app.id}/repository/commits/main`).expect(200)).body.id;
    // Three pipelines of the commit (one per ref), 30,000 statuses over them, one name in ten
    // posted twice in its pipeline (the latest of each is the list's default); and 30,000
    // pipelines of other commits, a status each.
    await sql.query(
      `INSERT INTO ci_pipelines (project_id, iid, sha, ref, updated_at)
       SELECT $1, i, CASE WHEN i <= 3 THEN $2 ELSE md5(i::text) || 'abcdefgh' END, 'ref-' || i, now() FROM generate_series(1, ${ROWS + 3}) i`,
      [app.id, sha],
    );
    await sql.query(
      `INSERT INTO commit_statuses (pipeline_id, name, ref, status, updated_at)
       SELECT p.id, 'job', p.ref, 'success', now() FROM ci_pipelines p WHERE p.project_id = $1 AND p.iid > 3`,
      [app.id],
    );
    await sql.query(
      `INSERT INTO commit_statuses (pipeline_id, name, ref, status, updated_at)
       SELECT p.id, 'job ' || (i * 9 / 10), p.ref, 'success', now()
       FROM generate_series(1, ${ROWS}) i JOIN ci_pipelines p ON p.project_id = $1 AND p.iid = 1 + i % 3`,
      [app.id],
    );
    // As posting them again would: the earlier of each name is retried.
    await sql.query(
      `UPDATE commit_statuses s SET retried = true FROM ci_pipelines p
       WHERE p.id = s.pipeline_id AND p.project_id = $1
         AND EXISTS (SELECT 1 FROM commit_statuses n WHERE n.pipeline_id = s.pipeline_id AND n.name = s.name AND n.id > s.id)`,
      [app.id],
    );
    await settle('ci_pipelines', 'commit_statuses');
  });

  /**
   * Each pipeline's statuses are read from `index` in the list's order under a Limit (the page's
   * end), nothing sorted below it, the pipelines and the statuses never read whole.
   */
  async function pipelineWindows(path: string, without?: string) {
    const { nodes, plan } = await planOf(path, 'commit_statuses', without);
    // A join's outer side.
    const outer = (n: PlanNode | undefined): PlanNode | undefined => (n?.['Node Type'] === 'Nested Loop' ? outer(n.Plans?.[0]) : n);
    const readsStatuses = (n: PlanNode | undefined) => n?.['Relation Name'] === 'commit_statuses';
    // Below each Limit over one pipeline's statuses: their scan, or a Sort of them.
    const read = nodes
      .filter((n) => n['Node Type'] === 'Limit')
      .map((n) => outer(n.Plans?.[0]))
      .filter((n): n is PlanNode => readsStatuses(n) || (n?.['Node Type'] === 'Sort' && readsStatuses(outer(n.Plans?.[0]))));
    return { plan, read, seqScans: nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']) };
  }

  it('reads each pipeline’s statuses in the list’s order from an index, page 1 and page 50, by id or by pipeline, and by name (without the index: a Sort)', async () => {
    const base = `/projects/${app.id}/repository/commits/${sha}/statuses`;
    // Either index serves a page in id order; the filtered ones may read the wider.
    const inIdOrder = ['commit_statuses_latest_pipeline_id_id_idx', 'commit_statuses_pipeline_id_id_idx'];
    const cases: [string, string[]][] = [
      [`${base}?page=50`, ['commit_statuses_latest_pipeline_id_id_idx']],
      [`${base}?sort=desc&page=50`, ['commit_statuses_latest_pipeline_id_id_idx']],
      [`${base}?order_by=pipeline_id&page=50`, ['commit_statuses_latest_pipeline_id_id_idx']],
      [`${base}?all=true&page=50`, ['commit_statuses_pipeline_id_id_idx']],
      [`${base}?ref=ref-2&page=5`, inIdOrder],
      [`${base}?name=job%2017`, ['commit_statuses_pipeline_id_name_id_idx', ...inIdOrder]],
    ];
    for (const [path, indexes] of cases) {
      const { plan, read, seqScans } = await pipelineWindows(path);
      expect(seqScans, plan).not.toContain('commit_statuses');
      expect(seqScans, plan).not.toContain('ci_pipelines');
      expect(read.length, plan).toBeGreaterThan(0);
      // The pipelines' windows.
      for (const scan of read) expect(scan['Node Type'], plan).toMatch(/^Index (Only )?Scan( Backward)?$/);
      expect(
        read.some((n) => indexes.includes(n['Index Name']!)),
        plan,
      ).toBe(true);
    }
    const control = await pipelineWindows(`${base}?all=true&page=50`, 'commit_statuses_pipeline_id_id_idx');
    expect(
      control.read.some((n) => n['Node Type'] === 'Sort'),
      control.plan,
    ).toBe(true);
  });

  // Before statuses were marked retried, the count probed each status it read for a newer one of
  // its name (bench/RESULTS.md: 2.9x at 300,000 statuses).
  it('counts the latest statuses from the entries of their partial index alone', async () => {
    const countPlan = async (without?: string) => {
      t.queryCounter.reset();
      t.queryCounter.record = true;
      await t.api('get', `/projects/${app.id}/repository/commits/${sha}/statuses`).expect(200);
      t.queryCounter.record = false;
      const { text, values } = pickStatement('statuses count', 'ci_pipelines', (s) => /count\(/i.test(s));
      const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values, without);
      const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
      return { nodes, plan: [text, ...nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`)].join('\n') };
    };
    const statusScans = (nodes: PlanNode[]) => nodes.filter((n) => n['Relation Name'] === 'commit_statuses').map((n) => n['Node Type']);
    const control = await countPlan('commit_statuses_latest_pipeline_id_id_idx');
    expect(statusScans(control.nodes), control.plan).not.toContain('Index Only Scan');
    const { nodes, plan } = await countPlan();
    expect(statusScans(nodes), plan).toEqual(['Index Only Scan']);
  });

  it('sends the same two statements for page 1 and page 50 (the page and its bounded count), whatever the number of statuses', async () => {
    const sent = async (path: string) => {
      t.queryCounter.reset();
      t.queryCounter.record = true;
      const res = await t.api('get', path).expect(200);
      t.queryCounter.record = false;
      expect(res.body).toHaveLength(20);
      return t.queryCounter.statements.filter((s) => s.includes('commit_statuses'));
    };
    const base = `/projects/${app.id}/repository/commits/${sha}/statuses`;
    const first = await sent(base);
    const deep = await sent(`${base}?page=50`);
    expect(first).toHaveLength(2);
    expect(deep).toEqual(first);
    expect(first.filter((s) => /count\(/.test(s))).toHaveLength(1);
  });
});

describe('a project in a group newer than the statistics', () => {
  type AnalyzedNode = PlanNode & { 'Actual Rows': number; 'Actual Loops': number };

  /** The namespace rows a statement read, executed (EXPLAIN ANALYZE), with the plan as a failure's message. */
  async function namespacesRead(text: string, values: unknown[]): Promise<{ read: number; plan: string }> {
    const { rows } = await explain(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan) as AnalyzedNode[];
    const read = nodes.filter((n) => n['Relation Name'] === 'namespaces').reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
    const shown = nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''} rows=${n['Actual Rows']}×${n['Actual Loops']}`);
    return { read, plan: [text, ...shown].join('\n') };
  }

  /** The statement a request sent that passes `which`, with its values. */
  async function sent(run: () => Promise<unknown>, which: RegExp): Promise<{ text: string; values: unknown[] }> {
    t.queryCounter.reset();
    t.queryCounter.record = true;
    await run();
    t.queryCounter.record = false;
    return pickStatement(String(which), 'projects', (s) => which.test(s));
  }

  // The 30,000 subgroups above were analyzed before this group existed. Joined to the project, the
  // planner expected the project's namespace among them and merge-joined the namespaces in id
  // order, reading every one before the new group (bench/RESULTS.md: ~185 ms at 300,000 groups).
  it("reads the viewer's levels from the project's namespace id, a few index lookups", async () => {
    const fresh = (await t.api('post', '/groups').send({ name: 'Fresh', path: 'fresh' }).expect(201)).body;
    const created = (await t.api('post', '/projects').send({ name: 'New', namespace_id: fresh.id }).expect(201)).body;
    const member = await t.user();
    await t.api('post', `/groups/${fresh.id}/members`).send({ user_id: member.id, access_level: 30 }).expect(201);

    // The positive control: the levels read through the view, as they were, walk the namespaces.
    const viaView = await namespacesRead(
      'SELECT project_id AS id, MAX(access_level) AS level FROM project_authorizations WHERE user_id = $1 AND project_id = ANY($2) GROUP BY project_id',
      [member.id, [created.id]],
    );
    expect(viaView.read, viaView.plan).toBeGreaterThan(ROWS);

    // A project route: the project read with the viewer's levels as columns.
    const read = await sent(() => t.api('get', `/projects/${created.id}`, member.token).expect(200), /"levels\.group"/);
    const project = await namespacesRead(read.text, read.values);
    expect(project.read, project.plan).toBeLessThanOrEqual(5);

    // The levels in projects by id, for the policy's checks on projects not read that way.
    const levels = await sent(async () => {
      expect(await projectLevels(t.deps.sql, member.id, [created.id])).toEqual([{ id: created.id, level: 30 }]);
    }, /GREATEST/);
    const byId = await namespacesRead(levels.text, levels.values);
    expect(byId.read, byId.plan).toBeLessThanOrEqual(5);
  });
});

describe('groups counted', () => {
  /** The plan of the bounded count a page of groups (`path`) sends, without the index `without` when given. */
  async function countPlan(path: string, without?: string) {
    t.queryCounter.reset();
    t.queryCounter.record = true;
    await t.api('get', path).expect(200);
    t.queryCounter.record = false;
    const { text, values } = pickStatement(`${path} count`, 'namespaces', (s) => /COUNT\(/i.test(s));
    const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values, without);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    return {
      nodes,
      used: nodes.map((n) => n['Index Name']).filter(Boolean),
      plan: [text, ...nodes.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`)].join('\n'),
    };
  }

  // Prisma's count with `take` orders by id: without an index on the parent in id order, the
  // planner walks every namespace by id and filters, and the subgroups of a group newer than most
  // namespaces come last (bench/RESULTS.md: 93 ms for page 50 of 300,000 subgroups among 600,000).
  it("reads the parent's entries in id order, never every namespace by id", async () => {
    const subgroups = `/groups/${group.id}/subgroups?page=3`;
    const control = await countPlan(subgroups, 'namespaces_parent_id_kind_id_idx');
    expect(control.used, control.plan).toContain('namespaces_pkey');
    const { used, plan } = await countPlan(subgroups);
    expect(used, plan).toEqual(['namespaces_parent_id_kind_id_idx']);
  });

  // Every group (the administrator's list): by the primary key, each namespace's row is read to
  // check its kind (bench/RESULTS.md: 7.4 ms for 10,001 of 600,000 groups, 2.5 ms from the index).
  it('counts every group from the entries of (kind, id) alone', async () => {
    const control = await countPlan('/groups?all_available=true', 'namespaces_kind_id_idx');
    expect(
      control.nodes.some((n) => n['Node Type'] === 'Index Only Scan'),
      control.plan,
    ).toBe(false);
    const { nodes, plan } = await countPlan('/groups?all_available=true');
    expect(
      nodes.filter((n) => n['Node Type'] === 'Index Only Scan').map((n) => n['Index Name']),
      plan,
    ).toEqual(['namespaces_kind_id_idx']);
  });
});

describe("list plans of the roadmap's date sorts and timeframe (stored composite dates)", () => {
  const roadmap = (args: string) => `{ group(fullPath: "big") { epics(includeDescendantGroups: false, first: 20, ${args}) { nodes { id } } } }`;
  const offset = (n: number) => Buffer.from(`OffsetConnection:${n}`).toString('base64');

  beforeAll(async () => {
    // Dates spread over two years, a fifth of the epics without a start, a seventh without a due date.
    await sql.query(
      `UPDATE epics SET start_date = CASE WHEN iid % 5 = 0 THEN NULL ELSE date '2025-01-01' + iid % 730 END,
                        due_date = CASE WHEN iid % 7 = 0 THEN NULL ELSE date '2025-02-01' + iid % 730 END
       WHERE group_id = $1`,
      [group.id],
    );
    await settle('epics');
  }, 60_000);

  it('sorts the whole group without the date index (the positive control)', async () => {
    const { nodes, plan } = await planOf(roadmap(`sort: START_DATE_ASC, after: "${offset(999)}"`), 'epics', 'epics_group_id_start_date_id_idx');
    expect(
      nodes.some((n) => n['Node Type'] === 'Sort'),
      plan,
    ).toBe(true);
  });

  it('reads each date sort from its index, page 1, page 50 (offset cursor) and a page past a cursor', async () => {
    for (const sort of ['START_DATE_ASC', 'START_DATE_DESC', 'END_DATE_ASC', 'END_DATE_DESC']) {
      await expectIndexedOrder(roadmap(`sort: ${sort}`), 'epics');
      await expectIndexedOrder(roadmap(`sort: ${sort}, after: "${offset(999)}"`), 'epics');
      const { body } = await t.graphql(
        `{ group(fullPath: "big") { epics(includeDescendantGroups: false, first: 500, sort: ${sort}) { pageInfo { endCursor } } } }`,
      );
      await expectIndexedOrder(roadmap(`sort: ${sort}, after: "${body.data.group.epics.pageInfo.endCursor}"`), 'epics');
    }
  });

  it('filters by a timeframe within the date order, over the index', async () => {
    const timeframe = 'timeframe: { start: "2025-06-01", end: "2025-09-30" }';
    for (const sort of ['START_DATE_ASC', 'END_DATE_DESC']) {
      await expectIndexedOrder(roadmap(`sort: ${sort}, ${timeframe}`), 'epics');
      await expectIndexedOrder(roadmap(`sort: ${sort}, ${timeframe}, after: "${offset(999)}"`), 'epics');
    }
  });
});

describe("the job queue's counts", () => {
  type AnalyzedNode = PlanNode & { 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number };

  const QUEUE = 'repository-housekeeping';

  // Jobs kept by pg-boss: ready ones (the backlog, more than the count's limit), finished ones
  // (kept until archived) and a few failed for good (the dead). Only the ready and the dead count.
  beforeAll(async () => {
    await sql.query(
      `INSERT INTO pgboss.job (name, data, state, start_after)
       SELECT $1, '{}', (CASE WHEN i % 2 = 0 THEN 'created' ELSE 'completed' END)::pgboss.job_state, now() - interval '1 minute'
       FROM generate_series(1, ${2 * ROWS}) i`,
      [QUEUE],
    );
    await sql.query(`INSERT INTO pgboss.job (name, data, state) SELECT $1, '{}', 'failed' FROM generate_series(1, 7)`, [QUEUE]);
    await settle('pgboss.job');
  }, 120_000);

  /**
   * The statement `path` sent over pg-boss's jobs, run under EXPLAIN ANALYZE (rewritten, or without
   * the index `without`, when given): the job rows its scans read (each queue is a partition `j…`).
   */
  async function jobsRead(path: string, opts: { without?: string; rewrite?: (text: string) => string } = {}) {
    t.queryCounter.reset();
    t.queryCounter.record = true;
    await t.api('get', path).expect(200);
    t.queryCounter.record = false;
    const at = t.queryCounter.statements.findIndex((s) => s.includes('pgboss.job'));
    expect(at, t.queryCounter.statements.join('\n')).toBeGreaterThanOrEqual(0);
    const text = (opts.rewrite ?? String)(t.queryCounter.statements[at]!);
    const { rows } = await explain(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, t.queryCounter.values[at]!, opts.without);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan) as AnalyzedNode[];
    const jobScans = nodes.filter((n) => /Scan$/.test(n['Node Type']) && /^j[0-9a-f]{56}$/.test(n['Relation Name'] ?? ''));
    const read = jobScans.reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'], 0);
    const shown = nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''} rows=${n['Actual Rows']}×${n['Actual Loops']}`);
    return { read, plan: [text, ...shown].join('\n') };
  }

  // The count's limit raised far past the jobs there are (the bound value stays bound).
  const unbounded = (text: string) => text.replaceAll(' LIMIT $1', ' LIMIT $1::bigint * 1000');
  // What a bounded count may read: the limit's ready jobs through pg-boss's index, or, where the
  // planner prefers the queue's partition in order (PostgreSQL 18 may, at this size), those and the
  // finished jobs between them (half the jobs here), plus the few dead through their index. The
  // controls read every job (60,000) or every ready one (30,000).
  const BOUNDED_READ = 2 * READY_COUNT_LIMIT + 100;

  it('counts the dead through the index on failed jobs, and the ready ones up to the limit', async () => {
    expect((await t.api('get', '/jobqueue/job_stats').expect(200)).body.jobs).toMatchObject({ enqueued: READY_COUNT_LIMIT, dead: 7 });
    // The positive controls: without the index the dead are found among every job kept; without
    // the limit every ready job is read.
    const control = await jobsRead('/jobqueue/job_stats', { without: 'pgboss.forgegate_job_dead', rewrite: unbounded });
    expect(control.read, control.plan).toBeGreaterThan(2 * ROWS);
    const { read, plan } = await jobsRead('/jobqueue/job_stats');
    expect(read, plan).toBeLessThanOrEqual(BOUNDED_READ);
  });

  it("counts a queue's backlog up to the limit and finds its oldest job by pg-boss's index", async () => {
    const metrics = (await t.api('get', '/jobqueue/queue_metrics').expect(200)).body.queues[QUEUE];
    expect(metrics.backlog).toBe(READY_COUNT_LIMIT);
    expect(metrics.latency).toBeGreaterThanOrEqual(59);
    const control = await jobsRead('/jobqueue/queue_metrics', { rewrite: unbounded });
    expect(control.read, control.plan).toBeGreaterThanOrEqual(ROWS);
    const { read, plan } = await jobsRead('/jobqueue/queue_metrics');
    expect(read, plan).toBeLessThanOrEqual(BOUNDED_READ);
  });
});

describe("the users' search by e-mail", () => {
  /** The e-mail lookup the search sent, planned without the index `without` when given. */
  async function emailLookup(without?: string) {
    t.queryCounter.reset();
    t.queryCounter.record = true;
    const { body } = await t.api('get', '/users?search=PERSON777@example.com').expect(200);
    t.queryCounter.record = false;
    expect(body.map((u: { username: string }) => u.username)).toEqual(['person777']);
    const { text, values } = pickStatement('e-mail lookup', 'users', (s) => /lower\(email\)/.test(s));
    const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${text}`, values, without);
    const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    return { nodes, plan: [text, ...nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`)].join('\n') };
  }

  // Prisma's insensitive equality is `ILIKE`, which only the e-mail's trigram index served, reading
  // the entries of trigrams every seeded address shares (bench/RESULTS.md: 17.6 of the 25 ms).
  it('looks the address up in the index on lower(email)', async () => {
    const control = await emailLookup('users_lower_email_idx');
    expect(
      control.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'users'),
      control.plan,
    ).toBe(true);
    const { nodes, plan } = await emailLookup();
    expect(
      nodes.map((n) => n['Index Name']),
      plan,
    ).toContain('users_lower_email_idx');
    expect(
      nodes.some((n) => n['Node Type'] === 'Seq Scan'),
      plan,
    ).toBe(false);
  });
});

describe('the tokens of a user who holds most of them, all newer than the others', () => {
  let owner: number;
  beforeAll(async () => {
    owner = (await t.api('post', '/users').send({ username: 'holder', name: 'Holder', email: 'holder@example.com', password: 'a-long-password-1' }).expect(201))
      .body.id;
    await sql.query(
      `INSERT INTO personal_access_tokens (user_id, name, digest, scopes, created_at)
       SELECT $1, 'held ' || i, md5('held' || i), ARRAY['api'], now() - i * interval '1 minute' FROM generate_series(1, $2::int) i`,
      [owner, 2 * ROWS],
    );
    await settle('personal_access_tokens');
  });

  // The planner expects two thirds of the rows to be the holder's, spread evenly: read whole, the
  // page walks the primary key and filters by owner, past every one of root's older tokens first.
  it("reads the page's ids from the owner's index alone; whole rows walk the primary key (the control)", async () => {
    const { text, values } = await pageStatement(`/personal_access_tokens?user_id=${owner}&page=50`, 'personal_access_tokens');
    const indexes = async (statement: string) => {
      const { rows } = await explain(`EXPLAIN (FORMAT JSON) ${statement}`, values);
      const nodes = nodesOf(rows[0]['QUERY PLAN'][0].Plan);
      return { nodes, plan: [statement, ...nodes.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`)].join('\n') };
    };
    const control = await indexes(text.replace(/^SELECT .*? FROM/s, 'SELECT * FROM'));
    expect(
      control.nodes.map((n) => n['Index Name']),
      control.plan,
    ).toContain('personal_access_tokens_pkey');
    const { nodes, plan } = await indexes(text);
    expect(
      nodes.filter((n) => n['Node Type'] === 'Index Only Scan').map((n) => n['Index Name']),
      plan,
    ).toEqual(['personal_access_tokens_user_id_id_idx']);
  });
});
