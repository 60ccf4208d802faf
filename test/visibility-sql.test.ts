// Visibility is SQL (EXISTS over project_authorizations), not a list of the viewer's membership
// ids: listing projects costs the same statements for a member of 10 projects as of 1,000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessLevel } from '../src/auth/access-levels.ts';
import { createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';

let t: TestApp;
let few: { id: number; token: string };
let many: { id: number; token: string };
let groupMember: { id: number; token: string };
let expired: { id: number; token: string };
let projectIds: number[];

beforeAll(async () => {
  t = await createTestApp();
  few = await t.user('member-of-few');
  many = await t.user('member-of-many');
  groupMember = await t.user('group-member');
  expired = await t.user('expired-member');
  const group = (await t.api('post', '/groups').send({ name: 'Big', path: 'big', visibility: 'private' }).expect(201)).body;
  const sub = (await t.api('post', '/groups').send({ name: 'Deep', path: 'deep', parent_id: group.id, visibility: 'private' }).expect(201)).body;
  await t.db.project.createMany({ data: Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}`, path: `p${i}`, namespaceId: i % 2 ? group.id : sub.id })) });
  projectIds = (await t.db.project.findMany({ where: { namespaceId: { in: [group.id, sub.id] } }, select: { id: true }, orderBy: { id: 'asc' } })).map(
    (p) => p.id,
  );
  const member = (userId: number, projectId: number, expiresAt: Date | null = null) => ({ userId, projectId, accessLevel: AccessLevel.DEVELOPER, expiresAt });
  await t.db.member.createMany({ data: projectIds.slice(-10).map((id) => member(few.id, id)) });
  await t.db.member.createMany({ data: projectIds.map((id) => member(many.id, id)) });
  await t.db.member.createMany({ data: projectIds.slice(0, 5).map((id) => member(expired.id, id, new Date('2020-01-01'))) });
  await t.db.member.create({ data: { userId: groupMember.id, namespaceId: group.id, accessLevel: AccessLevel.GUEST } });
});
afterAll(() => t.close());

/** The statements one request sends, after a warm-up that settles once-per-token bookkeeping. */
async function statementsOf(path: string, token: string) {
  await t.api('get', path, token).expect(200);
  await new Promise((r) => setTimeout(r, 50));
  t.queryCounter.reset();
  t.queryCounter.record = true;
  const res = await t.api('get', path, token).expect(200);
  t.queryCounter.record = false;
  return { statements: t.queryCounter.statements, count: t.queryCounter.count, total: Number(res.headers['x-total']), body: res.body };
}

/** The rows the statements of one request return (after the same warm-up). */
async function rowsOf(request: () => Promise<unknown>) {
  await request();
  await new Promise((r) => setTimeout(r, 50));
  t.queryCounter.reset();
  t.queryCounter.record = true;
  await request();
  t.queryCounter.record = false;
  return t.queryCounter.rows;
}

describe('project visibility in SQL', () => {
  it('lists projects with the same SQL for a member of 10 and of 1,000 projects', async () => {
    await expectCounterSees(t, () => t.api('get', '/projects', many.token).expect(200));
    for (const path of ['/projects?per_page=10', '/projects?membership=true&per_page=10', '/projects?simple=true&order_by=id&sort=desc&per_page=10']) {
      const a = await statementsOf(path, few.token);
      const b = await statementsOf(path, many.token);
      expect(a.total, path).toBe(10);
      expect(b.total, path).toBe(1000);
      expect(b.count, path).toBe(a.count);
      expect(
        b.body.map((p: { id: number }) => p.id),
        path,
      ).toEqual(a.body.map((p: { id: number }) => p.id));
      // The loaders' `IN ($1, …)` lists are keys of the page's rows (batched per tick), not memberships.
      const shape = (statements: string[]) => statements.map((s) => s.replace(/IN \((\$\d+,?)+\)/g, 'IN (…)').replace(/\$\d+/g, '$'));
      expect(shape(b.statements), path).toEqual(shape(a.statements));
      // No statement names the memberships one by one.
      expect(Math.max(...b.statements.map((s) => (s.match(/\$\d+/g) ?? []).length)), path).toBeLessThan(30);
    }
  });

  it('still grants through groups, not through expired memberships', async () => {
    expect((await statementsOf('/projects?per_page=1', groupMember.token)).total).toBe(1000);
    expect((await statementsOf('/projects?membership=true&per_page=1', groupMember.token)).total).toBe(1000);
    expect((await statementsOf('/projects', expired.token)).total).toBe(0);
    expect((await statementsOf('/projects?membership=true', expired.token)).total).toBe(0);
    expect((await t.api('get', `/projects/${projectIds[0]}`, groupMember.token)).status).toBe(200);
    expect((await t.api('get', `/projects/${projectIds[0]}`, expired.token)).status).toBe(404);
  });
});

describe('permission checks on one resource', () => {
  it('read the memberships they need, the same rows for a member of 10 and of 1,000 projects, and so do group lists', async () => {
    const id = projectIds.at(-1)!;
    const path = (await t.db.project.findUniqueOrThrow({ where: { id }, include: { namespace: true } })).namespace.fullPath + `/p${projectIds.length - 1}`;
    const rest = (token: string) => () => t.api('get', `/projects/${id}`, token).expect(200);
    const graphql = (token: string) => async () =>
      expect((await t.graphql(`{ project(fullPath: "${path}") { id userPermissions { pushCode } } }`, {}, token)).body.data.project.userPermissions).toEqual({
        pushCode: true,
      });
    // Positive control: the counter sees the rows (the project with its namespace, the memberships).
    expect(await rowsOf(rest(few.token))).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(rest(many.token))).toBe(await rowsOf(rest(few.token)));
    expect(await rowsOf(graphql(many.token))).toBe(await rowsOf(graphql(few.token)));
    // The private parent groups, seen through a membership below them.
    for (const group of ['big', 'big/deep']) {
      const read = (token: string) => () => t.api('get', `/groups/${encodeURIComponent(group)}`, token).expect(200);
      expect(await rowsOf(read(many.token)), group).toBe(await rowsOf(read(few.token)));
    }
    // Group lists: the same statements, with the same rows.
    const listed = { '/groups': [], '/groups?all_available=true': ['big', 'big/deep'], '/groups?all_available=true&search=dee': ['big/deep'] };
    for (const [path, expected] of Object.entries(listed)) {
      const a = await statementsOf(path, few.token);
      const b = await statementsOf(path, many.token);
      // Project members see the groups above their projects, and are members of none.
      expect(b.body.map((g: { full_path: string }) => g.full_path).sort(), path).toEqual(expected);
      expect(b.body, path).toEqual(a.body);
      expect(b.statements, path).toEqual(a.statements);
      const read = (token: string) => () => t.api('get', path, token).expect(200);
      expect(await rowsOf(read(many.token)), path).toBe(await rowsOf(read(few.token)));
    }
    // The same viewers through GraphQL: the same groups, the same rows.
    const gqlGroups = (token: string) => async () => {
      const res = await t.graphql('{ groups(allAvailable: true) { nodes { fullPath } } }', {}, token);
      return res.body.data.groups.nodes.map((g: { fullPath: string }) => g.fullPath).sort();
    };
    expect(await gqlGroups(many.token)()).toEqual(['big', 'big/deep']);
    expect(await gqlGroups(few.token)()).toEqual(['big', 'big/deep']);
    expect(await rowsOf(gqlGroups(many.token))).toBe(await rowsOf(gqlGroups(few.token)));
    const outsider = await t.user('outsider');
    expect((await t.api('get', '/groups?all_available=true', outsider.token).expect(200)).body).toEqual([]);
    expect(await gqlGroups(outsider.token)()).toEqual([]);
    // A group member's own list: the group and the subgroup below it.
    expect((await t.api('get', '/groups', groupMember.token).expect(200)).body.map((g: { full_path: string }) => g.full_path).sort()).toEqual([
      'big',
      'big/deep',
    ]);
    await t.api('get', `/groups/big`, outsider.token).expect(404);
    await t.api('get', `/projects/${id}`, outsider.token).expect(404);
  });
});
