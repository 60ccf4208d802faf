// Project lists and group release lists are plain SQL over the pool: their pages and counts must be
// the ones Prisma's where clauses give for the same viewer and filters (the rule they replaced),
// for every viewer kind, filter and order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessLevel } from '../src/auth/access-levels.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { createContext } from '../src/core/context.ts';
import { escapeLike } from '../src/core/input.ts';
import type { Prisma, User } from '../src/generated/prisma/client.ts';
import { listProjects, type ProjectFilter } from '../src/modules/projects/service.ts';
import { listGroupReleases, RELEASE_SORTS } from '../src/modules/releases/service.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let viewers: Record<string, User | null>;
/** Each viewer's token (null: anonymous). */
let tokens: Record<string, string | null>;
let group: { id: number };
let sub: { id: number };
let projectIds: number[];

beforeAll(async () => {
  t = await createTestApp();
  const post = async (p: string, body: object, token = t.root.token) => {
    const res = await t.api('post', p, token).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  group = await post('/groups', { name: 'Team', path: 'team', visibility: 'internal' });
  sub = await post('/groups', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' });
  const open = await post('/groups', { name: 'Open', path: 'open', visibility: 'public' });
  const owner = await t.user('owner');
  const groupMember = await t.user('groupie');
  const projectMember = await t.user('single');
  const expired = await t.user('lapsed');
  const outsider = await t.user('outsider');
  // Names and descriptions with LIKE's wildcards in them: a search for `%` or `_` matches those only.
  const specs = [
    ['alpha1', group.id, 'private', 'grew 5%'],
    ['Beta', group.id, 'internal', 'second'],
    ['Gamma Ray', sub.id, 'private', 'under the subgroup'],
    ['delta_x', open.id, 'public', ''],
    ['epsilon', open.id, 'public', 'has 100% coverage'],
    ['zeta', open.id, 'private', 'Sub-second'],
  ] as const;
  const created = [];
  for (const [name, namespaceId, visibility, description] of specs) {
    created.push(await post('/projects', { name, path: name.split(' ')[0].toLowerCase(), namespace_id: namespaceId, visibility, description }));
  }
  created.push(await post('/projects', { name: 'mine', visibility: 'private' }, owner.token));
  projectIds = created.map((p) => p.id);
  // The namespace's owner reaches a personal project as its owner, with or without a member row.
  await t.db.member.deleteMany({ where: { projectId: projectIds[6] } });
  // The same instant for two projects: the id breaks the tie.
  await t.db.project.updateMany({
    where: { id: { in: projectIds.slice(0, 2) } },
    data: { createdAt: new Date('2026-01-01T00:00:00Z'), lastActivityAt: new Date('2026-01-01T00:00:00Z') },
  });
  await t.db.member.create({ data: { userId: groupMember.id, namespaceId: group.id, accessLevel: AccessLevel.REPORTER } });
  await t.db.member.create({ data: { userId: projectMember.id, projectId: projectIds[5], accessLevel: AccessLevel.GUEST } });
  await t.db.member.create({ data: { userId: expired.id, projectId: projectIds[2], accessLevel: AccessLevel.DEVELOPER, expiresAt: new Date('2020-01-01') } });
  const users = await t.db.user.findMany();
  const byName = (username: string) => users.find((u) => u.username === username)!;
  viewers = {
    anonymous: null,
    admin: byName('root'),
    owner: byName('owner'),
    groupMember: byName('groupie'),
    projectMember: byName('single'),
    expired: byName('lapsed'),
    outsider: byName('outsider'),
  };
  tokens = {
    anonymous: null,
    admin: t.root.token,
    owner: owner.token,
    groupMember: groupMember.token,
    projectMember: projectMember.token,
    expired: expired.token,
    outsider: outsider.token,
  };
  for (const [i, id] of [projectIds[0], projectIds[1], projectIds[2]].entries()) {
    await t.db.release.create({
      data: { projectId: id, tag: `v${i}`, sha: '0'.repeat(40), description: '', releasedAt: new Date(Date.UTC(2025, 0, 1 + (i % 2))) },
    });
  }
});
afterAll(() => t.close());

/** The rule the SQL replaced, as Prisma where clauses: what the viewer may read. */
function readableWhere(user: User | null): Prisma.ProjectWhereInput {
  if (user?.isAdmin) return {};
  if (!user) return { visibility: 'public' };
  return {
    OR: [
      { visibility: { in: ['public', 'internal'] } },
      { authorizations: { some: { userId: user.id, accessLevel: { gte: AccessLevel.GUEST } } } },
      { namespace: { ownerId: user.id } },
    ],
  };
}

function prismaWhere(user: User | null, filter: ProjectFilter): Prisma.ProjectWhereInput {
  const insensitive = (text: string) => ({ contains: escapeLike(text), mode: 'insensitive' as const });
  return {
    AND: [
      readableWhere(user),
      ...(filter.membership
        ? [user ? { OR: [{ authorizations: { some: { userId: user.id } } }, { namespace: { ownerId: user.id } }] } : { id: { in: [] } }]
        : []),
      ...(filter.owned ? [{ namespace: { ownerId: user?.id ?? -1 } }] : []),
      ...(filter.visibility ? [{ visibility: filter.visibility }] : []),
      ...(filter.ids ? [{ id: { in: filter.ids } }] : []),
      ...(filter.search
        ? [
            {
              OR: [
                { name: insensitive(filter.search) },
                { path: insensitive(filter.search) },
                { description: insensitive(filter.search) },
                ...(filter.searchNamespaces ? [{ namespace: { fullPath: insensitive(filter.search) } }] : []),
              ],
            },
          ]
        : []),
      ...(filter.namespaceId != null
        ? [filter.includeSubgroups ? { namespace: { traversalIds: { has: filter.namespaceId } } } : { namespaceId: filter.namespaceId }]
        : []),
    ],
  };
}

const ORDER_FIELDS = { id: 'id', name: 'name', path: 'path', created_at: 'createdAt', updated_at: 'updatedAt', last_activity_at: 'lastActivityAt' } as const;
const ORDERS = (Object.keys(ORDER_FIELDS) as (keyof typeof ORDER_FIELDS)[]).flatMap((field) => [[field, 'asc'] as const, [field, 'desc'] as const]);

describe('project lists in SQL', () => {
  it("page and count as Prisma's where clauses do, for every viewer, filter and order", async () => {
    const filters: ProjectFilter[] = [
      {},
      { membership: true },
      { owned: true },
      { visibility: 'public' },
      { visibility: 'internal' },
      { visibility: 'private' },
      { ids: [projectIds[0], projectIds[2], projectIds[4], 2 ** 31 - 1] },
      { ids: [] },
      { search: 'ALPHA' },
      { search: 'RAY' },
      { search: '%' },
      { search: '_' },
      { search: 'sub' },
      { search: 'TEAM/sub', searchNamespaces: true },
      { search: 'team/sub' },
      { namespaceId: group.id },
      { namespaceId: group.id, includeSubgroups: true },
      { namespaceId: sub.id, includeSubgroups: true, search: 'a', membership: true },
    ];
    let compared = 0;
    let nonEmpty = 0;
    for (const [name, user] of Object.entries(viewers)) {
      const ctx = createContext(t.deps, user ? new Viewer(user, null) : Viewer.anonymous());
      for (const filter of filters) {
        // Every order for the unfiltered list; GitLab's default and another for each filter.
        const orders = Object.keys(filter).length
          ? ([
              ['created_at', 'desc'],
              ['name', 'asc'],
            ] as const)
          : ORDERS;
        for (const [orderBy, sort] of orders) {
          const listing = listProjects(ctx, { ...filter, orderBy, sort });
          const where = prismaWhere(user, filter);
          const order = [{ [ORDER_FIELDS[orderBy]]: sort }, { id: sort }];
          const label = `${name} ${JSON.stringify(filter)} ${orderBy} ${sort}`;
          for (const page of [
            { offset: 0, limit: 100 },
            { offset: 1, limit: 2 },
          ]) {
            const expected = await t.db.project.findMany({ where, orderBy: order, skip: page.offset, take: page.limit, include: { namespace: true } });
            expect(await listing.fetch(page), label).toStrictEqual(expected);
            if (expected.length) nonEmpty += 1;
          }
          expect(await listing.count(), label).toBe(await t.db.project.count({ where }));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(7 * (ORDERS.length + (filters.length - 1) * 2));
    expect(nonEmpty).toBeGreaterThan(compared / 2);
  });

  it('answer every viewer the same over REST and GraphQL, with the same totals', async () => {
    const queries = [
      ['order_by=id&sort=asc', ''],
      ['membership=true&order_by=id&sort=asc', 'membership: true'],
      ['search=SUB&order_by=id&sort=asc', 'search: "SUB"'],
      ['visibility=private&order_by=id&sort=asc', 'visibility: private'],
    ];
    let seen = 0;
    for (const [name, token] of Object.entries(tokens)) {
      for (const [rest, args] of queries) {
        const res = await t.api('get', `/projects?${rest}`, token).expect(200);
        const gql = await t.graphql(`{ projects(sort: "id_asc"${args ? `, ${args}` : ''}) { count nodes { id } } }`, {}, token);
        expect(gql.body.errors, `${name} ${rest}`).toBeUndefined();
        const ids = res.body.map((p: { id: number }) => `gid://gitlab/Project/${p.id}`);
        expect(
          gql.body.data.projects.nodes.map((p: { id: string }) => p.id),
          `${name} ${rest}`,
        ).toEqual(ids);
        expect(gql.body.data.projects.count, `${name} ${rest}`).toBe(Number(res.headers['x-total']));
        seen += ids.length;
      }
    }
    expect(seen).toBeGreaterThan(40);
  });

  it('answer the same over REST and GraphQL, LIKE wildcards matching themselves', async () => {
    const rest = async (query: string) => {
      const res = await t.api('get', `/projects?${query}`).expect(200);
      return { names: res.body.map((p: { name: string }) => p.name), total: Number(res.headers['x-total']) };
    };
    expect(await rest('search=%25&order_by=name&sort=asc')).toEqual({ names: ['alpha1', 'epsilon'], total: 2 });
    expect(await rest('search=_&order_by=name&sort=asc')).toEqual({ names: ['delta_x'], total: 1 });
    const gql = await t.graphql('{ projects(search: "%", sort: "name_asc") { nodes { name } } }');
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.projects.nodes.map((p: { name: string }) => p.name)).toEqual(['alpha1', 'epsilon']);
  });
});

describe('group release lists in SQL', () => {
  it('list the releases of the projects the viewer may read, as Prisma does, for every sort', async () => {
    let nonEmpty = 0;
    for (const [name, user] of Object.entries(viewers)) {
      const ctx = createContext(t.deps, user ? new Viewer(user, null) : Viewer.anonymous());
      for (const sort of RELEASE_SORTS) {
        const direction = sort.endsWith('_ASC') ? 'asc' : 'desc';
        const field = sort.startsWith('CREATED') ? 'createdAt' : 'releasedAt';
        for (const namespace of await t.db.namespace.findMany({ where: { id: { in: [group.id, sub.id] } } })) {
          const where = { project: { AND: [readableWhere(user), { namespace: { traversalIds: { has: namespace.id } } }] } };
          const listing = listGroupReleases(ctx, namespace, sort);
          const expected = await t.db.release.findMany({ where, orderBy: [{ [field]: direction }, { id: direction }] });
          expect(await listing.fetch({ offset: 0, limit: 100 }), `${name} ${sort}`).toStrictEqual(expected);
          expect(await listing.count()).toBe(expected.length);
          if (expected.length) nonEmpty += 1;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });
});
