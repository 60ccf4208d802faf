// Keyset pagination (issue 42): REST's `pagination=keyset` with GitLab's Link header, GraphQL
// cursors that seek (the statement compares the sort keys, never an OFFSET), old offset cursors
// still read, and counts that stop past 10,000 rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitbeaker } from './helpers/gitbeaker.ts';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

let t: TestApp;
let group: { id: number };
const SEEDED = 2_500;

const b64 = (text: string) => Buffer.from(text).toString('base64');
const fromB64 = (text: string) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

/** Follows `Link: <…>; rel="next"` from `path` (under /api/v4) to the end; the ids in order, and the pages read. */
async function walk(path: string, token: string | null = t.root.token) {
  const ids: number[] = [];
  let next: string | undefined = path;
  let pages = 0;
  while (next) {
    const res = await t.api('get', next, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['x-total']).toBeUndefined();
    expect(res.headers['x-total-pages']).toBeUndefined();
    expect(res.headers['x-page']).toBeUndefined();
    ids.push(...res.body.map((row: { id: number }) => row.id));
    pages += 1;
    const link = /^<([^>]+)>; rel="next"$/.exec(res.headers.link ?? '')?.[1];
    next = link ? link.slice(`${EXTERNAL_URL}/api/v4`.length) : undefined;
  }
  return { ids, pages };
}

/** The SQL statements a request sent. */
async function statementsOf(run: () => Promise<unknown>) {
  t.queryCounter.reset();
  t.queryCounter.record = true;
  try {
    await run();
    return [...t.queryCounter.statements];
  } finally {
    t.queryCounter.record = false;
  }
}

type PageInfo = { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };

/** A page of the connection at `path` (under `data`) from `query`: its nodes' numeric ids and its page info. */
async function graphqlPage(query: string, path: string[], variables: Record<string, unknown>) {
  const res = await t.graphql(query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  const { nodes, pageInfo } = path.reduce((at, key) => at[key], res.body.data);
  return { ids: nodes.map((n: { id: string }) => Number(n.id.split('/').pop())) as number[], pageInfo: pageInfo as PageInfo };
}

/**
 * Walks a whole list forward with `after`, `size` at a time, then back from its last row with
 * `before`: the rows read each way, to compare with the offset answer.
 */
async function walkBothWays(read: (variables: Record<string, unknown>) => Promise<{ ids: number[]; pageInfo: PageInfo }>, size: number) {
  const forward: number[] = [];
  let after: string | null = null;
  for (;;) {
    const { ids, pageInfo } = await read({ first: size, after });
    expect(pageInfo.hasPreviousPage).toBe(after !== null);
    forward.push(...ids);
    if (!pageInfo.hasNextPage) break;
    after = pageInfo.endCursor;
  }
  const backward: number[] = [];
  let before: string | null = (await read({ last: 1 })).pageInfo.startCursor;
  for (;;) {
    const { ids, pageInfo } = await read({ last: size, before });
    expect(pageInfo.hasNextPage).toBe(true);
    backward.unshift(...ids);
    if (!pageInfo.hasPreviousPage) break;
    before = pageInfo.startCursor;
  }
  return { forward, backward };
}

/**
 * The one statement a request sent that reads `table` through Prisma, and the rows its OFFSET
 * skips: Prisma writes `OFFSET $n` after every `take`, bound to 0 where no `skip` is given, so a
 * seek shows as an OFFSET of 0 (the offset read of the same page is the positive control).
 */
async function prismaWindowOf(table: string, run: () => Promise<unknown>) {
  t.queryCounter.reset();
  t.queryCounter.record = true;
  try {
    await run();
  } finally {
    t.queryCounter.record = false;
  }
  const { statements, values } = t.queryCounter;
  const at = statements.flatMap((s, i) => (s.includes(`FROM "public"."${table}"`) && s.includes('LIMIT') ? [i] : []));
  expect(at).toHaveLength(1);
  const sql = statements[at[0]!]!;
  const offset = /OFFSET \$(\d+)/.exec(sql)?.[1];
  return { sql, skipped: offset === undefined ? 0 : Number(values[at[0]!]![Number(offset) - 1]) };
}

beforeAll(async () => {
  t = await createTestApp({ env: { EPICS_ENABLED: 'true' } });
  const res = await t.api('post', '/groups').send({ name: 'Big', path: 'big', visibility: 'public' });
  group = res.body;
  // Names that repeat (the id breaks their ties) and instants that repeat too.
  await t.db.$executeRawUnsafe(
    `INSERT INTO projects (name, path, namespace_id, visibility, created_at, updated_at, last_activity_at)
     SELECT 'p' || (g % 97), 'p' || g, $1, 'public', timestamp '2026-01-01' + (g % 13) * interval '1 hour', now(), now()
     FROM generate_series(1, ${SEEDED}) g`,
    group.id,
  );
}, 120_000);

afterAll(() => t?.close());

describe('REST keyset pagination', () => {
  it('walks 2,500 projects by id with Link rel="next" (id_after), as gitbeaker follows it', async () => {
    const all = (await t.db.project.findMany({ orderBy: { id: 'asc' }, select: { id: true } })).map((p) => p.id);
    expect(all.length).toBe(SEEDED);
    const first = await t.api('get', '/projects?pagination=keyset&order_by=id&sort=asc&per_page=100');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.body.map((p: { id: number }) => p.id)).toEqual(all.slice(0, 100));
    expect(first.headers.link).toBe(`<${EXTERNAL_URL}/api/v4/projects?id_after=${all[99]}&order_by=id&pagination=keyset&per_page=100&sort=asc>; rel="next"`);
    const walked = await walk('/projects?pagination=keyset&order_by=id&sort=asc&per_page=100');
    expect(walked.ids).toEqual(all);
    // GitLab links a next page to a full one: the 25th page is full, the 26th empty without a link.
    expect(walked.pages).toBe(26);
    const client = gitbeaker(t.base, t.root.token);
    const viaGitbeaker = await client.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 100 });
    expect(viaGitbeaker.map((p) => p.id)).toEqual(all);
  });

  it("walks descending by id with id_before, GitLab's default direction", async () => {
    const all = (await t.db.project.findMany({ orderBy: { id: 'desc' }, select: { id: true } })).map((p) => p.id);
    const first = await t.api('get', '/projects?pagination=keyset&order_by=id&per_page=100');
    expect(first.headers.link).toBe(`<${EXTERNAL_URL}/api/v4/projects?id_before=${all[99]}&order_by=id&pagination=keyset&per_page=100>; rel="next"`);
    expect((await walk('/projects?pagination=keyset&order_by=id&per_page=100')).ids).toEqual(all);
  });

  it('seeks: the page after id_after is WHERE (p.id) > $n … LIMIT, no OFFSET (an offset page is the positive control)', async () => {
    const seek = await statementsOf(() => t.api('get', '/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=1500'));
    const page = seek.filter((s) => s.includes('SELECT p.id FROM projects'));
    expect(page).toHaveLength(1);
    expect(page[0]).toMatch(/\(p\.id\) > \(\$\d+\) ORDER BY p\.id ASC LIMIT \$\d+/);
    expect(seek.join('\n')).not.toMatch(/OFFSET/);
    // Keyset pages count nothing past their page: the count reads no row.
    const offset = await statementsOf(() => t.api('get', '/projects?order_by=id&sort=asc&per_page=20&page=75'));
    expect(offset.filter((s) => s.includes('SELECT p.id FROM projects')).join('\n')).toMatch(/OFFSET \$\d+/);
  });

  it("answers GitLab's 405 for orders and lists that do not seek, and 400 for a bad id_after", async () => {
    for (const path of [
      '/projects?pagination=keyset&order_by=created_at',
      '/projects?pagination=keyset',
      '/groups?pagination=keyset&order_by=id',
      `/groups/${group.id}/subgroups?pagination=keyset`,
    ]) {
      const res = await t.api('get', path);
      expect(res.status, path).toBe(405);
      expect(res.body, path).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    }
    const bad = await t.api('get', '/projects?pagination=keyset&order_by=id&sort=asc&id_after=abc');
    expect(bad.status).toBe(400);
  });

  it("walks groups by name with GitLab's cursor (the last row's name and id, _kd n)", async () => {
    for (let i = 0; i < 12; i++) {
      const res = await t.api('post', '/groups').send({ name: `G ${i % 5}`, path: `g-${i}`, visibility: 'public' });
      expect(res.status).toBe(201);
    }
    const all = await t.db.namespace.findMany({ where: { kind: 'group', visibility: 'public' }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
    const first = await t.api('get', '/groups?pagination=keyset&per_page=4', null);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link)![1]!;
    const cursor = new URL(link).searchParams.get('cursor')!;
    expect(fromB64(cursor)).toEqual({ name: all[3]!.name, id: String(all[3]!.id), _kd: 'n' });
    expect(link).toBe(`${EXTERNAL_URL}/api/v4/groups?cursor=${cursor}&pagination=keyset&per_page=4`);
    expect((await walk('/groups?pagination=keyset&order_by=name&sort=asc&per_page=4', null)).ids).toEqual(all.map((g) => g.id));
  });
});

describe('GraphQL cursors that seek', () => {
  const PAGE = `query($first: Int, $last: Int, $after: String, $before: String, $sort: String) {
    projects(first: $first, last: $last, after: $after, before: $before, sort: $sort) {
      nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;
  const ORDERS = { name_asc: [{ name: 'asc' }, { id: 'asc' }], created_at_desc: [{ createdAt: 'desc' }, { id: 'desc' }], id_desc: [{ id: 'desc' }] } as const;

  async function page(variables: Record<string, unknown>) {
    const res = await t.graphql(PAGE, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const { nodes, pageInfo } = res.body.data.projects;
    return { ids: nodes.map((n: { id: string }) => Number(n.id.split('/').pop())), pageInfo };
  }

  it('walks forward with after and back with before, equal to the offset answer, for orders with ties', async () => {
    for (const [sort, orderBy] of Object.entries(ORDERS)) {
      const expected = (await t.db.project.findMany({ orderBy: [...orderBy], select: { id: true }, take: 700 })).map((p) => p.id);
      const forward: number[] = [];
      let after: string | null = null;
      while (forward.length < 700) {
        const { ids, pageInfo } = await page({ first: 100, after, sort });
        expect(pageInfo.hasPreviousPage).toBe(after !== null);
        forward.push(...ids);
        after = pageInfo.endCursor;
      }
      expect(forward, sort).toEqual(expected);
      // Back from the 700th row: the pages before it, `last` at a time.
      const backward: number[] = [];
      let before: string | null = after;
      while (backward.length < 699) {
        const { ids, pageInfo } = await page({ last: 100, before, sort });
        expect(pageInfo.hasNextPage).toBe(true);
        backward.unshift(...ids);
        before = pageInfo.startCursor;
      }
      expect(backward, sort).toEqual(expected.slice(0, 699));
    }
  });

  it('reads the end with last alone, and the cursors carry the sort keys as JSON', async () => {
    const expected = (await t.db.project.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }], select: { id: true, name: true } })).slice(-5);
    const { ids, pageInfo } = await page({ last: 5, sort: 'name_asc' });
    expect(ids).toEqual(expected.map((p) => p.id));
    expect(pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(fromB64(pageInfo.endCursor)).toEqual({ name: expected[4]!.name, id: String(expected[4]!.id) });
  });

  it('seeks in SQL: a page after a cursor compares (name, id), with no OFFSET', async () => {
    const { pageInfo } = await page({ first: 10, sort: 'name_asc' });
    const sent = await statementsOf(() => page({ first: 10, after: pageInfo.endCursor, sort: 'name_asc' }));
    const window = sent.filter((s) => s.includes('SELECT p.id FROM projects'));
    expect(window).toHaveLength(1);
    expect(window[0]).toMatch(/\(p\.name, p\.id\) > \(\$\d+, \$\d+\) ORDER BY p\.name ASC, p\.id ASC LIMIT/);
    expect(sent.join('\n')).not.toMatch(/OFFSET/);
  });

  it('still reads offset cursors, and refuses cursors it did not hand out', async () => {
    const expected = (await t.db.project.findMany({ orderBy: { id: 'desc' }, select: { id: true }, skip: 10, take: 5 })).map((p) => p.id);
    expect((await page({ first: 5, after: b64('OffsetConnection:9') })).ids).toEqual(expected);
    for (const after of [b64('{"id":"abc"}'), b64('{"name":"x","id":"1"}'), b64('{"id":"1","extra":"2"}'), b64('OffsetConnection:1.5'), 'garbage']) {
      const res = await t.graphql(PAGE, { first: 5, after });
      expect(res.body.errors?.[0]?.message, after).toBe('Please provide a valid cursor');
    }
    // A name cursor is valid under the name order only.
    const named = await t.graphql(PAGE, { first: 5, after: b64('{"name":"p1","id":"1"}'), sort: 'name_asc' });
    expect(named.body.errors).toBeUndefined();
  });
});

describe('GraphQL cursors that seek on users', () => {
  const USERS = `query($first: Int, $last: Int, $after: String, $before: String) {
    users(first: $first, last: $last, after: $after, before: $before) { nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
  }`;
  const read = (variables: Record<string, unknown>) => graphqlPage(USERS, ['users'], variables);

  beforeAll(async () => {
    await t.db.$executeRawUnsafe(
      `INSERT INTO users (username, name, email, updated_at) SELECT 'seek-' || g, 'Seek', 'seek-' || g || '@example.com', now() FROM generate_series(1, 230) g`,
    );
  });

  it('walks users (newest first) forward with after and back with before, equal to the offset answer', async () => {
    const expected = (await t.db.user.findMany({ orderBy: { id: 'desc' }, select: { id: true } })).map((u) => u.id);
    expect(expected.length).toBeGreaterThan(230);
    const { forward, backward } = await walkBothWays(read, 50);
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected.slice(0, -1));
    expect(fromB64((await read({ first: 1 })).pageInfo.endCursor!)).toEqual({ id: String(expected[0]) });
  });

  it('seeks in SQL: a page after a cursor compares the id, with no OFFSET; offset cursors still read', async () => {
    const { pageInfo } = await read({ first: 10 });
    const seek = await prismaWindowOf('users', () => read({ first: 10, after: pageInfo.endCursor }));
    expect(seek.sql).toMatch(/WHERE "public"\."users"\."id" < \$\d+ ORDER BY "public"\."users"\."id" DESC LIMIT \$\d+/);
    expect(seek.skipped).toBe(0);
    const expected = (await t.db.user.findMany({ orderBy: { id: 'desc' }, select: { id: true }, skip: 10, take: 5 })).map((u) => u.id);
    const offset = await prismaWindowOf('users', async () => expect((await read({ first: 5, after: b64('OffsetConnection:9') })).ids).toEqual(expected));
    expect(offset.skipped).toBe(10);
    const res = await t.graphql(USERS, { first: 5, after: b64('{"name":"x","id":"1"}') });
    expect(res.body.errors?.[0]?.message).toBe('Please provide a valid cursor');
  });
});

describe('GraphQL cursors that seek on epics', () => {
  const EPICS = `query($first: Int, $last: Int, $after: String, $before: String, $sort: EpicSort) {
    group(fullPath: "big") { epics(first: $first, last: $last, after: $after, before: $before, sort: $sort) {
      nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }
  }`;
  const ORDERS = {
    TITLE_ASC: [{ title: 'asc' }, { id: 'asc' }],
    CREATED_AT_DESC: [{ createdAt: 'desc' }, { id: 'desc' }],
    UPDATED_AT_ASC: [{ updatedAt: 'asc' }, { id: 'asc' }],
  } as const;

  beforeAll(async () => {
    // Titles and instants that repeat: the id breaks their ties.
    await t.db.$executeRawUnsafe(
      `INSERT INTO epics (group_id, iid, title, created_at, updated_at)
       SELECT $1, g, 'e' || (g % 17), timestamp '2026-01-01' + (g % 7) * interval '1 hour', timestamp '2026-02-01' + (g % 5) * interval '1 minute'
       FROM generate_series(1, 230) g`,
      group.id,
    );
  });

  it('walks epics forward with after and back with before, equal to the offset answer, for sorts with ties', async () => {
    for (const [sort, orderBy] of Object.entries(ORDERS)) {
      const expected = (await t.db.epic.findMany({ where: { groupId: group.id }, orderBy: [...orderBy], select: { id: true } })).map((e) => e.id);
      expect(expected).toHaveLength(230);
      const { forward, backward } = await walkBothWays((variables) => graphqlPage(EPICS, ['group', 'epics'], { ...variables, sort }), 40);
      expect(forward, sort).toEqual(expected);
      expect(backward, sort).toEqual(expected.slice(0, -1));
    }
  });

  it('seeks in SQL: a page after a cursor compares (title, id), with no rows skipped; offset cursors still read', async () => {
    const read = (variables: Record<string, unknown>) => graphqlPage(EPICS, ['group', 'epics'], { ...variables, sort: 'TITLE_ASC' });
    const { pageInfo } = await read({ first: 10 });
    const last = fromB64(pageInfo.endCursor!);
    expect(Object.keys(last)).toEqual(['title', 'id']);
    const seek = await prismaWindowOf('epics', () => read({ first: 10, after: pageInfo.endCursor }));
    expect(seek.sql).toMatch(/"public"\."epics"\."title" > \$\d+ OR \("public"\."epics"\."title" = \$\d+ AND "public"\."epics"\."id" > \$\d+\)/);
    expect(seek.sql).toMatch(/ORDER BY "public"\."epics"\."title" ASC, "public"\."epics"\."id" ASC LIMIT \$\d+/);
    expect(seek.skipped).toBe(0);
    const expected = (await t.db.epic.findMany({ where: { groupId: group.id }, orderBy: [{ title: 'asc' }, { id: 'asc' }], skip: 10, take: 5 })).map(
      (e) => e.id,
    );
    const offset = await prismaWindowOf('epics', async () => expect((await read({ first: 5, after: b64('OffsetConnection:9') })).ids).toEqual(expected));
    expect(offset.skipped).toBe(10);
    // A title cursor is no cursor of the creation order.
    const res = await t.graphql(EPICS, { first: 5, after: pageInfo.endCursor, sort: 'CREATED_AT_DESC' });
    expect(res.body.errors?.[0]?.message).toBe('Please provide a valid cursor');
  });
});

describe('GraphQL cursors that seek on alerts', () => {
  const ALERTS = `query($path: ID!, $first: Int, $last: Int, $after: String, $before: String, $sort: AlertManagementAlertSort, $search: String) {
    project(fullPath: $path) { alertManagementAlerts(first: $first, last: $last, after: $after, before: $before, sort: $sort, search: $search) {
      nodes { id: iid } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }
  }`;
  const ORDERS = {
    STARTED_AT_ASC: [{ startedAt: 'asc' }, { id: 'asc' }],
    CREATED_TIME_DESC: [{ createdAt: 'desc' }, { id: 'desc' }],
    EVENT_COUNT_DESC: [{ events: 'desc' }, { id: 'desc' }],
  } as const;
  let project: { id: number; path: string };

  beforeAll(async () => {
    project = await t.db.project.findFirstOrThrow({ where: { namespaceId: group.id }, orderBy: { id: 'asc' } });
    // Instants and event counts that repeat: the id breaks their ties.
    await t.db.$executeRawUnsafe(
      `INSERT INTO alerts (project_id, iid, title, events, started_at, created_at, updated_at)
       SELECT $1, g, CASE WHEN g % 3 = 0 THEN 'disk full' ELSE 'cpu high' END, 1 + g % 4,
              timestamp '2026-03-01' + (g % 9) * interval '1 minute', timestamp '2026-03-02' + (g % 6) * interval '1 second', now()
       FROM generate_series(1, 230) g`,
      project.id,
    );
  });

  const read = (variables: Record<string, unknown>) => graphqlPage(ALERTS, ['project', 'alertManagementAlerts'], { path: `big/${project.path}`, ...variables });

  it('walks alerts forward with after and back with before, equal to the offset answer, for sorts with ties (and within a search)', async () => {
    for (const [sort, orderBy] of Object.entries(ORDERS)) {
      for (const search of [null, 'disk']) {
        const where = { projectId: project.id, ...(search && { title: { contains: search } }) };
        const expected = (await t.db.alert.findMany({ where, orderBy: [...orderBy], select: { iid: true } })).map((a) => a.iid);
        expect(expected.length).toBeGreaterThan(70);
        const { forward, backward } = await walkBothWays((variables) => read({ ...variables, sort, search }), 30);
        expect(forward, `${sort} ${search}`).toEqual(expected);
        expect(backward, `${sort} ${search}`).toEqual(expected.slice(0, -1));
      }
    }
  });

  it('seeks in SQL: a page after a cursor compares (started_at, id), with no OFFSET; offset cursors and the enum sorts still read by offset', async () => {
    const { pageInfo } = await read({ first: 10, sort: 'STARTED_AT_ASC' });
    expect(Object.keys(fromB64(pageInfo.endCursor!))).toEqual(['started_at', 'id']);
    const sent = await statementsOf(() => read({ first: 10, after: pageInfo.endCursor, sort: 'STARTED_AT_ASC' }));
    const window = sent.filter((s) => s.includes('FROM alerts a WHERE a.id IN'));
    expect(window).toHaveLength(1);
    expect(window[0]).toMatch(/\(a\.started_at, a\.id\) > \(\$\d+, \$\d+\) ORDER BY a\.started_at ASC, a\.id ASC LIMIT/);
    expect(sent.join('\n')).not.toMatch(/OFFSET/);
    const expected = (await t.db.alert.findMany({ where: { projectId: project.id }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }], skip: 10, take: 5 })).map(
      (a) => a.iid,
    );
    const offset = await statementsOf(async () =>
      expect((await read({ first: 5, after: b64('OffsetConnection:9'), sort: 'STARTED_AT_ASC' })).ids).toEqual(expected),
    );
    expect(offset.join('\n')).toMatch(/OFFSET \$\d+/);
  });
});

describe('GraphQL cursors that seek on releases', () => {
  const RELEASES = `query($path: ID!, $first: Int, $last: Int, $after: String, $before: String, $sort: ReleaseSort) {
    project(fullPath: $path) { releases(first: $first, last: $last, after: $after, before: $before, sort: $sort) {
      nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }
  }`;
  let project: { id: number; path: string };

  beforeAll(async () => {
    project = await t.db.project.findFirstOrThrow({ where: { namespaceId: group.id }, orderBy: { id: 'desc' } });
    // Release instants that repeat: the id breaks their ties.
    await t.db.$executeRawUnsafe(
      `INSERT INTO releases (project_id, tag, released_at, created_at, updated_at)
       SELECT $1, 'v' || g, timestamp '2026-04-01' + (g % 8) * interval '1 day', now(), now() FROM generate_series(1, 150) g`,
      project.id,
    );
  });

  const read = (variables: Record<string, unknown>) => graphqlPage(RELEASES, ['project', 'releases'], { path: `big/${project.path}`, ...variables });

  it('walks releases forward with after and back with before, equal to the offset answer, with ties in released_at', async () => {
    for (const [sort, direction] of [
      ['RELEASED_AT_DESC', 'desc'],
      ['RELEASED_AT_ASC', 'asc'],
    ] as const) {
      const expected = (
        await t.db.release.findMany({ where: { projectId: project.id }, orderBy: [{ releasedAt: direction }, { id: direction }], select: { id: true } })
      ).map((r) => r.id);
      const { forward, backward } = await walkBothWays((variables) => read({ ...variables, sort }), 40);
      expect(forward, sort).toEqual(expected);
      expect(backward, sort).toEqual(expected.slice(0, -1));
    }
  });

  it('seeks in SQL: a page after a cursor compares (released_at, id), with no OFFSET', async () => {
    const { pageInfo } = await read({ first: 10 });
    expect(Object.keys(fromB64(pageInfo.endCursor!))).toEqual(['released_at', 'id']);
    const sent = await statementsOf(() => read({ first: 10, after: pageInfo.endCursor }));
    const window = sent.filter((s) => s.includes('FROM releases r WHERE'));
    expect(window).toHaveLength(1);
    expect(window[0]).toMatch(/\(r\.released_at, r\.id\) < \(\$\d+, \$\d+\) ORDER BY r\.released_at DESC, r\.id DESC LIMIT/);
    expect(sent.join('\n')).not.toMatch(/OFFSET/);
    const offset = await statementsOf(() => read({ first: 10, after: b64('OffsetConnection:9') }));
    expect(offset.join('\n')).toMatch(/OFFSET \$\d+/);
  });
});

describe('bounded counts', () => {
  it('leave X-Total out past 10,000 rows without counting past 10,001 (10,000 rows is the positive control)', async () => {
    const project = await t.db.project.findFirstOrThrow({ where: { namespaceId: group.id } });
    await t.db.$executeRawUnsafe(
      `INSERT INTO labels (name, color, project_id, created_at, updated_at) SELECT 'l' || g, '#000000', $1, now(), now() FROM generate_series(1, 10000) g`,
      project.id,
    );
    const counted = await t.api('get', `/projects/${project.id}/labels?per_page=1`);
    expect(counted.status).toBe(200);
    expect(counted.headers['x-total']).toBe('10000');
    await t.db.label.create({ data: { name: 'one more', color: '#000000', projectId: project.id } });
    const sent = await statementsOf(async () => {
      const res = await t.api('get', `/projects/${project.id}/labels?per_page=1`);
      expect(res.headers['x-total']).toBeUndefined();
      expect(res.headers['x-total-pages']).toBeUndefined();
      expect(res.headers['x-next-page']).toBe('2');
    });
    const count = sent.filter((s) => /count\(/i.test(s) && s.includes('labels'));
    expect(count).toHaveLength(1);
    expect(count[0]).toMatch(/LIMIT \$\d+/);
  });
});

describe('GraphQL cursors that seek on alerts by severity, status and end (enum orders, ids against them, empty ends)', () => {
  const ALERTS = `query($path: ID!, $first: Int, $last: Int, $after: String, $before: String, $sort: AlertManagementAlertSort) {
    project(fullPath: $path) { alertManagementAlerts(first: $first, last: $last, after: $after, before: $before, sort: $sort) {
      nodes { id: iid } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }
  }`;
  // GitLab: descending severity is most critical first (the enum's order), ties by id in the
  // sort's direction; an open alert has no end, which sorts where PostgreSQL puts NULLs.
  const ORDERS = {
    SEVERITY_DESC: [{ severity: 'asc' }, { id: 'desc' }],
    SEVERITY_ASC: [{ severity: 'desc' }, { id: 'asc' }],
    STATUS_DESC: [{ status: 'asc' }, { id: 'desc' }],
    STATUS_ASC: [{ status: 'desc' }, { id: 'asc' }],
    ENDED_AT_ASC: [{ endedAt: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
    ENDED_AT_DESC: [{ endedAt: { sort: 'desc', nulls: 'first' } }, { id: 'desc' }],
  } as const;
  let project: { id: number; path: string };

  beforeAll(async () => {
    project = await t.db.project.findFirstOrThrow({ where: { namespaceId: group.id }, orderBy: { id: 'asc' }, skip: 2 });
    // Each severity and status many times over, a third of the alerts still open (no end), ends that repeat.
    await t.db.$executeRawUnsafe(
      `INSERT INTO alerts (project_id, iid, title, severity, status, started_at, ended_at, updated_at)
       SELECT $1, g, 'alert ' || g,
              (ARRAY['critical','high','medium','low','info','unknown'])[1 + g % 6]::"AlertSeverity",
              (ARRAY['triggered','acknowledged','resolved','ignored'])[1 + g % 4]::"AlertStatus", timestamp '2026-02-01',
              CASE WHEN g % 3 = 0 THEN NULL ELSE timestamp '2026-03-01' + (g % 7) * interval '1 minute' END, now()
       FROM generate_series(1, 190) g`,
      project.id,
    );
  });

  const read = (variables: Record<string, unknown>) => graphqlPage(ALERTS, ['project', 'alertManagementAlerts'], { path: `big/${project.path}`, ...variables });

  it('walks each order forward with after and back with before, equal to the offset answer', async () => {
    for (const [sort, orderBy] of Object.entries(ORDERS)) {
      const expected = (await t.db.alert.findMany({ where: { projectId: project.id }, orderBy: [...orderBy], select: { iid: true } })).map((a) => a.iid);
      expect(expected).toHaveLength(190);
      const { forward, backward } = await walkBothWays((variables) => read({ ...variables, sort }), 25);
      expect(forward, sort).toEqual(expected);
      expect(backward, sort).toEqual(expected.slice(0, -1));
    }
  });

  it('seeks in SQL: a row comparison past the cursor, no OFFSET; an empty end is null in the cursor; offset cursors still read (by OFFSET)', async () => {
    const severity = await read({ first: 10, sort: 'SEVERITY_DESC' });
    expect(Object.keys(fromB64(severity.pageInfo.endCursor!))).toEqual(['severity', 'id']);
    const sent = await statementsOf(() => read({ first: 10, after: severity.pageInfo.endCursor, sort: 'SEVERITY_DESC' }));
    const window = sent.filter((s) => s.includes('FROM alerts a WHERE a.id IN'));
    expect(window).toHaveLength(1);
    expect(window[0]).toMatch(/\(a\.severity, \(-a\.id\)\) > \(\$\d+, \$\d+\) ORDER BY a\.severity ASC, \(-a\.id\) ASC LIMIT/);
    expect(sent.join('\n')).not.toMatch(/OFFSET/);

    // Newest end first puts the open alerts (no end) first: the cursor carries their null.
    const ended = await read({ first: 10, sort: 'ENDED_AT_DESC' });
    expect(fromB64(ended.pageInfo.endCursor!)).toEqual({ ended_at: null, id: expect.any(String) });
    const past = await statementsOf(() => read({ first: 10, after: ended.pageInfo.endCursor, sort: 'ENDED_AT_DESC' }));
    expect(past.join('\n')).toMatch(/\(COALESCE\(a\.ended_at, 'infinity'\), a\.id\) < \(\$\d+, \$\d+\)/);
    expect(past.join('\n')).not.toMatch(/OFFSET/);

    const offset = await statementsOf(() => read({ first: 10, after: b64('OffsetConnection:9'), sort: 'SEVERITY_DESC' }));
    expect(offset.join('\n')).toMatch(/OFFSET \$\d+/);
    // A severity the enum does not have, or an empty one where the order has none, is no cursor.
    for (const [sort, keys] of [
      ['SEVERITY_DESC', { severity: 'dire', id: '1' }],
      ['SEVERITY_DESC', { severity: null, id: '1' }],
      ['ENDED_AT_DESC', { ended_at: 'yesterday', id: '1' }],
    ] as const) {
      const res = await t.graphql(ALERTS, { path: `big/${project.path}`, first: 5, after: b64(JSON.stringify(keys)), sort });
      expect(res.body.errors?.[0]?.message, JSON.stringify(keys)).toBe('Please provide a valid cursor');
    }
  });
});

describe("REST keyset pagination of a group's projects", () => {
  it('walks the group’s projects by id both ways with Link rel="next", as /projects does; other orders answer 405', async () => {
    const ascending = (await t.db.project.findMany({ where: { namespaceId: group.id }, orderBy: { id: 'asc' }, select: { id: true } })).map((p) => p.id);
    expect(ascending.length).toBe(SEEDED);
    const base = `/groups/${group.id}/projects?pagination=keyset&order_by=id&per_page=100`;
    const first = await t.api('get', `${base}&sort=asc`);
    expect(first.headers.link).toBe(
      `<${EXTERNAL_URL}/api/v4/groups/${group.id}/projects?id_after=${ascending[99]}&order_by=id&pagination=keyset&per_page=100&sort=asc>; rel="next"`,
    );
    const up = await walk(`${base}&sort=asc`);
    expect(up.ids).toEqual(ascending);
    expect(up.pages).toBe(26);
    expect((await walk(base)).ids).toEqual([...ascending].reverse());
    const client = gitbeaker(t.base, t.root.token);
    const viaGitbeaker = await client.Groups.allProjects(group.id, { pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 100 });
    expect(viaGitbeaker.map((p) => p.id)).toEqual(ascending);
    for (const path of [`/groups/${group.id}/projects?pagination=keyset&order_by=name`, `/groups/${group.id}/projects?pagination=keyset`]) {
      const res = await t.api('get', path);
      expect(res.status, path).toBe(405);
      expect(res.body, path).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    }
  });

  it('seeks: the page after id_after is WHERE (p.id) > $n … LIMIT with no OFFSET (an offset page is the positive control)', async () => {
    const seek = await statementsOf(() => t.api('get', `/groups/${group.id}/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=1500`));
    const page = seek.filter((s) => s.includes('SELECT p.id FROM projects'));
    expect(page).toHaveLength(1);
    expect(page[0]).toMatch(/\(p\.id\) > \(\$\d+\) ORDER BY p\.id ASC LIMIT \$\d+/);
    expect(seek.filter((s) => s.includes('FROM projects')).join('\n')).not.toMatch(/OFFSET/);
    const offset = await statementsOf(() => t.api('get', `/groups/${group.id}/projects?order_by=id&sort=asc&per_page=20&page=75`));
    expect(offset.filter((s) => s.includes('SELECT p.id FROM projects')).join('\n')).toMatch(/OFFSET \$\d+/);
  });

  it('orders the offset list as GitLab: created_at desc by default, and by each order_by', async () => {
    const res = await t.api('get', `/groups/${group.id}/projects?per_page=5`).expect(200);
    const newest = await t.db.project.findMany({ where: { namespaceId: group.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 5 });
    expect(res.body.map((p: { id: number }) => p.id)).toEqual(newest.map((p) => p.id));
    const byName = await t.api('get', `/groups/${group.id}/projects?per_page=5&order_by=name&sort=asc`).expect(200);
    const names = await t.db.project.findMany({ where: { namespaceId: group.id }, orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 5 });
    expect(byName.body.map((p: { id: number }) => p.id)).toEqual(names.map((p) => p.id));
  });
});

describe("GraphQL cursors that seek on the roadmap's date sorts", () => {
  const ROADMAP = `query($first: Int, $last: Int, $after: String, $before: String, $sort: EpicSort, $timeframe: Timeframe) {
    group(fullPath: "roadmap") { epics(first: $first, last: $last, after: $after, before: $before, sort: $sort, timeframe: $timeframe) {
      nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    } }
  }`;
  // GitLab's order: the date with epics without one last either way, then the id descending.
  const ORDERS = {
    START_DATE_ASC: [{ startDate: { sort: 'asc', nulls: 'last' } }, { id: 'desc' }],
    START_DATE_DESC: [{ startDate: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }],
    END_DATE_ASC: [{ dueDate: { sort: 'asc', nulls: 'last' } }, { id: 'desc' }],
    END_DATE_DESC: [{ dueDate: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }],
  } as const;
  let roadmap: { id: number };

  beforeAll(async () => {
    roadmap = (await t.api('post', '/groups').send({ name: 'Roadmap', path: 'roadmap', visibility: 'public' }).expect(201)).body;
    // Dates that repeat (the id breaks their ties), and epics without one at either end.
    await t.db.$executeRawUnsafe(
      `INSERT INTO epics (group_id, iid, title, start_date, due_date, updated_at)
       SELECT $1, g, 'r' || g, CASE WHEN g % 4 = 0 THEN NULL ELSE date '2026-01-01' + g % 9 END,
              CASE WHEN g % 3 = 0 THEN NULL ELSE date '2026-03-01' + g % 11 END, now()
       FROM generate_series(1, 230) g`,
      roadmap.id,
    );
  });

  it('walks each date sort forward with after and back with before, equal to the offset answer, through the epics without a date', async () => {
    for (const [sort, orderBy] of Object.entries(ORDERS)) {
      const expected = (await t.db.epic.findMany({ where: { groupId: roadmap.id }, orderBy: [...orderBy], select: { id: true } })).map((e) => e.id);
      expect(expected).toHaveLength(230);
      const { forward, backward } = await walkBothWays((variables) => graphqlPage(ROADMAP, ['group', 'epics'], { ...variables, sort }), 40);
      expect(forward, sort).toEqual(expected);
      expect(backward, sort).toEqual(expected.slice(0, -1));
      // The offset answer, read through the same connection with an offset cursor.
      const offset = await graphqlPage(ROADMAP, ['group', 'epics'], { first: 100, after: b64('OffsetConnection:99'), sort });
      expect(offset.ids, sort).toEqual(expected.slice(100, 200));
    }
  });

  it('walks within a timeframe, which leaves out the epics without any date', async () => {
    const timeframe = { start: '2026-03-04', end: '2026-03-10' };
    const within = {
      AND: [
        { OR: [{ startDate: { not: null } }, { dueDate: { not: null } }] },
        { OR: [{ startDate: null }, { startDate: { lte: new Date('2026-03-10') } }] },
        { OR: [{ dueDate: null }, { dueDate: { gte: new Date('2026-03-04') } }] },
      ],
    };
    const expected = (await t.db.epic.findMany({ where: { groupId: roadmap.id, ...within }, orderBy: [...ORDERS.END_DATE_ASC], select: { id: true } })).map(
      (e) => e.id,
    );
    // Some are left out by the range and some by having no date: the filter is a real one.
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.length).toBeLessThan(230 - 230 / 12);
    const { forward, backward } = await walkBothWays(
      (variables) => graphqlPage(ROADMAP, ['group', 'epics'], { ...variables, sort: 'END_DATE_ASC', timeframe }),
      25,
    );
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected.slice(0, -1));
  });

  it('seeks in SQL: a page after a cursor reads at most three ranges, no OFFSET past 0, whatever the page; cursors carry null dates', async () => {
    const read = (variables: Record<string, unknown>) => graphqlPage(ROADMAP, ['group', 'epics'], { ...variables, sort: 'START_DATE_ASC' });
    const pages = [];
    let after: string | null = null;
    for (let i = 0; i < 6; i++) {
      const { pageInfo } = await read({ first: 40, after });
      after = pageInfo.endCursor;
      pages.push(after);
    }
    // The third cursor sits among dated epics, the last among those without a date.
    expect(Object.keys(fromB64(pages[2]!))).toEqual(['start_date', 'id']);
    expect(fromB64(pages[2]!).start_date).not.toBeNull();
    expect(fromB64(pages[4]!).start_date).toBeNull();
    // Besides its one to three ranges, a page sends the same statements wherever it sits.
    const others = new Set<number>();
    for (const cursor of pages.slice(0, 5)) {
      const sent = await statementsOf(() => read({ first: 40, after: cursor }));
      const values = t.queryCounter.values;
      const windows = sent.flatMap((s, i) => (s.includes('FROM "public"."epics"') && s.includes('LIMIT') ? [{ s, values: values[i]! }] : []));
      expect(windows.length).toBeGreaterThanOrEqual(1);
      expect(windows.length).toBeLessThanOrEqual(3);
      // Prisma binds an OFFSET after every LIMIT: 0 here, no row read to be skipped.
      for (const { s, values: bound } of windows) expect(Number(bound[Number(/OFFSET \$(\d+)/.exec(s)![1]) - 1])).toBe(0);
      others.add(sent.length - windows.length);
    }
    expect(others.size).toBe(1);
    // An offset read of the same page is the positive control: it skips the rows before it.
    const offset = await prismaWindowOf('epics', () => read({ first: 40, after: b64('OffsetConnection:159') }));
    expect(offset.skipped).toBe(160);
    // A cursor of one date sort is none of another's, and a null only where the key may hold none.
    const res = await t.graphql(ROADMAP, { first: 5, after: pages[2], sort: 'END_DATE_ASC' });
    expect(res.body.errors?.[0]?.message).toBe('Please provide a valid cursor');
    const nullId = await t.graphql(ROADMAP, { first: 5, after: b64(JSON.stringify({ start_date: null, id: null })), sort: 'START_DATE_ASC' });
    expect(nullId.body.errors?.[0]?.message).toBe('Please provide a valid cursor');
  });
});
