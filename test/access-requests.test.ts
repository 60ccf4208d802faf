import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

type User = { id: number; token: string; username: string };
type AccessRequestNode = {
  user: { databaseId: number; username: string; name: string; state: string; locked: boolean; avatarUrl: string | null; webUrl: string };
  createdAt: string;
  requestedAt: string;
};

let t: TestApp;
let owner: User;
let maintainer: User;
let developer: User;
let privateGroup: { id: number };
let privateProject: { id: number };
let publicGroup: { id: number; full_path: string };
let publicProject: { id: number; path_with_namespace: string };

const REQUESTER_KEYS = ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'created_at', 'requested_at'];

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.user('owner');
  maintainer = await t.user('maintainer');
  developer = await t.user('developer');
  publicGroup = (await t.api('post', '/groups').send({ name: 'Open', path: 'open', visibility: 'public' }).expect(201)).body;
  publicProject = (await t.api('post', '/projects').send({ name: 'App', namespace_id: publicGroup.id, visibility: 'public' }).expect(201)).body;
  privateGroup = (await t.api('post', '/groups').send({ name: 'Closed', path: 'closed', visibility: 'private' }).expect(201)).body;
  privateProject = (await t.api('post', '/projects').send({ name: 'Secret', namespace_id: privateGroup.id, visibility: 'private' }).expect(201)).body;
  // Group members hold the same level in the group's projects, by inheritance.
  for (const id of [publicGroup.id, privateGroup.id]) {
    await t.api('post', `/groups/${id}/members`).send({ user_id: owner.id, access_level: 50 }).expect(201);
    await t.api('post', `/groups/${id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
    await t.api('post', `/groups/${id}/members`).send({ user_id: developer.id, access_level: 30 }).expect(201);
  }
});
afterAll(async () => {
  await t.close();
});

const sources = () =>
  [
    { kind: 'groups', id: publicGroup.id, privateId: privateGroup.id, resource: 'Group' },
    { kind: 'projects', id: publicProject.id, privateId: privateProject.id, resource: 'Project' },
  ] as const;

describe.each(['groups', 'projects'] as const)('access requests on %s', (kind) => {
  const source = () => sources().find((s) => s.kind === kind)!;
  const url = (suffix = '') => `/${kind}/${source().id}/access_requests${suffix}`;
  /** Who answers requests: the group's Owners, the project's Maintainers (and Owners). */
  const manager = () => (kind === 'groups' ? owner : maintainer);

  it('lets a stranger ask once; members, anonymous callers and invisible sources are refused', async () => {
    const stranger = await t.user();
    const res = await t.api('post', url(), stranger.token).expect(201);
    expect(Object.keys(res.body)).toEqual(REQUESTER_KEYS);
    expect(res.body).toMatchObject({ id: stranger.id, username: stranger.username, state: 'active', requested_at: expect.any(String) });
    await t.api('post', url(), stranger.token).expect(400, { message: { user_id: ['already exists in source'] } });
    await t.api('post', url(), developer.token).expect(403, { message: '403 Forbidden' });
    await t.api('post', url(), maintainer.token).expect(403);
    await t.api('post', url()).expect(403); // an administrator counts as a member
    await t.api('post', url(), null).expect(401, { message: '401 Unauthorized' });
    await t.api('post', `/${kind}/${source().privateId}/access_requests`, stranger.token).expect(404, { message: `404 ${source().resource} Not Found` });
    await t.api('post', `/${kind}/${source().privateId}/access_requests`, null).expect(401);
  });

  it('lists requests to the managers of the members only, paginated', async () => {
    const a = await t.user();
    const b = await t.user();
    await t.api('post', url(), a.token).expect(201);
    await t.api('post', url(), b.token).expect(201);
    const list = await t.api('get', `${url()}?per_page=100`, manager().token).expect(200);
    const ids = list.body.map((r: { id: number }) => r.id);
    expect(ids.slice(-2)).toEqual([a.id, b.id]);
    expect(list.headers['x-total']).toBe(String(ids.length));
    expect(Object.keys(list.body[0])).toEqual(REQUESTER_KEYS);
    const page = await t.api('get', `${url()}?per_page=1&page=2`).expect(200);
    expect(page.body).toHaveLength(1);
    expect(page.headers['x-next-page']).toBe(ids.length > 2 ? '3' : '');
    await t.api('get', url(), developer.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', url(), maintainer.token).expect(kind === 'groups' ? 403 : 200);
    await t.api('get', url(), a.token).expect(403);
    await t.api('get', url(), null).expect(401);
    await t.api('get', `/${kind}/${source().privateId}/access_requests`, a.token).expect(404);
  });

  it("approves at Developer by default, never above the approver's own level", async () => {
    const asker = await t.user();
    await t.api('post', url(), asker.token).expect(201);
    await t.api('put', url(`/${asker.id}/approve`), developer.token).expect(403);
    // Above a project Maintainer's own level; a group Maintainer may not approve at all.
    await t
      .api('put', url(`/${asker.id}/approve`), maintainer.token)
      .send({ access_level: 50 })
      .expect(403, { message: '403 Forbidden' });
    await t
      .api('put', url(`/${asker.id}/approve`), manager().token)
      .send({ access_level: 35 })
      .expect(400, { error: 'access_level does not have a valid value' });
    const approved = await t.api('put', url(`/${asker.id}/approve`), manager().token).expect(201);
    expect(approved.body).toMatchObject({ id: asker.id, username: asker.username, access_level: 30, created_by: { username: manager().username } });
    expect((await t.api('get', `/${kind}/${source().id}/members/${asker.id}`).expect(200)).body.access_level).toBe(30);
    // The request is gone: approving again finds nothing.
    await t.api('put', url(`/${asker.id}/approve`), manager().token).expect(404, { message: '404 Not found' });
    await t.api('put', url(`/999999/approve`), manager().token).expect(404, { message: '404 Not found' });
    // An owner (here the administrator) may grant Maintainer and above.
    const second = await t.user();
    await t.api('post', url(), second.token).expect(201);
    expect(
      (
        await t
          .api('put', url(`/${second.id}/approve`))
          .send({ access_level: 40 })
          .expect(201)
      ).body.access_level,
    ).toBe(40);
    await t.api('put', url(`/${second.id}/approve`), null).expect(401);
  });

  it('lets the managers deny and requesters withdraw; others are refused', async () => {
    const denied = await t.user();
    const withdrawn = await t.user();
    await t.api('post', url(), denied.token).expect(201);
    await t.api('post', url(), withdrawn.token).expect(201);
    await t.api('delete', url(`/${denied.id}`), developer.token).expect(403);
    await t.api('delete', url(`/${denied.id}`), withdrawn.token).expect(403);
    if (kind === 'groups') await t.api('delete', url(`/${denied.id}`), maintainer.token).expect(403);
    await t.api('delete', url(`/${denied.id}`), manager().token).expect(204);
    await t.api('delete', url(`/${withdrawn.id}`), withdrawn.token).expect(204);
    const left = (await t.api('get', `${url()}?per_page=100`).expect(200)).body.map((r: { id: number }) => r.id);
    expect(left).not.toContain(denied.id);
    expect(left).not.toContain(withdrawn.id);
    // A full member is not a requester; nobody at all is not either.
    await t.api('delete', url(`/${developer.id}`), manager().token).expect(404, { message: '404 Not found' });
    await t.api('delete', url('/999999'), manager().token).expect(404);
    // Denied users may ask again.
    await t.api('post', url(), denied.token).expect(201);
  });

  it('turns concurrent approvals of one request into one membership', async () => {
    const asker = await t.user();
    await t.api('post', url(), asker.token).expect(201);
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.api('put', url(`/${asker.id}/approve`), manager().token)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 404, 404, 404, 404, 404]);
    const scope = kind === 'groups' ? { namespaceId: source().id } : { projectId: source().id };
    expect(await t.db.member.count({ where: { ...scope, userId: asker.id } })).toBe(1);
    expect(await t.db.accessRequest.count({ where: { ...scope, userId: asker.id } })).toBe(0);
  });

  it('is driven by @gitbeaker/rest (ProjectAccessRequests / GroupAccessRequests)', async () => {
    const asker = await t.user();
    const resource = kind === 'groups' ? 'GroupAccessRequests' : 'ProjectAccessRequests';
    const mine = gitbeaker(t.base, asker.token)[resource];
    const theirs = gitbeaker(t.base, manager().token)[resource];
    expect(await mine.request(source().id)).toMatchObject({ id: asker.id, username: asker.username });
    expect((await theirs.all(source().id)).map((r) => r.id)).toContain(asker.id);
    expect(await theirs.approve(source().id, asker.id, { accessLevel: 20 })).toMatchObject({ id: asker.id, access_level: 20 });
    const other = await t.user();
    await gitbeaker(t.base, other.token)[resource].request(source().id);
    await theirs.deny(source().id, other.id);
    expect((await theirs.all(source().id)).map((r) => r.id)).not.toContain(other.id);
    await expect(mine.all(source().id)).rejects.toMatchObject({ cause: { response: { status: 403 } } });
  });
});

describe('speed', () => {
  it('lists requests with a fixed number of SQL statements, whatever the page size (REST and GraphQL)', async () => {
    const group = (await t.api('post', '/groups').send({ name: 'Busy', path: 'busy', visibility: 'public' }).expect(201)).body;
    for (let i = 0; i < 12; i++) await t.api('post', `/groups/${group.id}/access_requests`, (await t.user()).token).expect(201);
    const measure = async (perPage: number) => {
      t.queryCounter.reset();
      expect((await t.api('get', `/groups/${group.id}/access_requests?per_page=${perPage}`).expect(200)).body).toHaveLength(perPage);
      const gql = await t.graphql(`{ group(id: ${group.id}) { accessRequests(first: ${perPage}) { nodes { user { username } requestedAt } } } }`);
      expect(gql.body.data.group.accessRequests.nodes).toHaveLength(perPage);
      return t.queryCounter.count;
    };
    await expectCounterSees(t, () => t.api('get', `/groups/${group.id}/access_requests?per_page=2`).expect(200));
    const small = await measure(2);
    expect(small).toBeGreaterThan(0);
    expect(await measure(12)).toBe(small);
  });
});

describe('access requests beyond the routes', () => {
  it('are refused where the group turned them off, and for members of a parent group', async () => {
    const closedDoor = (
      await t.api('post', '/groups').send({ name: 'NoDoor', path: 'nodoor', visibility: 'public', request_access_enabled: false }).expect(201)
    ).body;
    const stranger = await t.user();
    await t.api('post', `/groups/${closedDoor.id}/access_requests`, stranger.token).expect(403);
    // Developer of the public group is a member of its project by inheritance.
    await t.api('post', `/projects/${publicProject.id}/access_requests`, developer.token).expect(403);
  });

  it('has GraphQL twins: same list, same refusals, GitLab payloads', async () => {
    const asker = await t.user();
    const create = await t.graphql(
      `mutation($input: AccessRequestCreateInput!) { accessRequestCreate(input: $input) { accessRequest { user { username } requestedAt } errors clientMutationId } }`,
      { input: { groupPath: publicGroup.full_path, clientMutationId: 'x1' } },
      asker.token,
    );
    expect(create.body.data.accessRequestCreate).toMatchObject({ accessRequest: { user: { username: asker.username } }, errors: [], clientMutationId: 'x1' });
    const again = await t.graphql(
      `mutation { accessRequestCreate(input: {groupId: ${publicGroup.id}}) { accessRequest { requestedAt } errors } }`,
      {},
      asker.token,
    );
    expect(again.body.data.accessRequestCreate).toEqual({ accessRequest: null, errors: ['User id already exists in source'] });

    for (const viewer of [owner.token, t.root.token]) {
      const rest = (await t.api('get', `/groups/${publicGroup.id}/access_requests?per_page=100`, viewer).expect(200)).body;
      const gql = await t.graphql(
        `{ group(fullPath: "${publicGroup.full_path}") { accessRequests(first: 100) { nodes { user { databaseId username name state locked avatarUrl webUrl } createdAt requestedAt } } } }`,
        {},
        viewer,
      );
      const nodes = gql.body.data.group.accessRequests.nodes.map((n: AccessRequestNode) => ({
        id: n.user.databaseId,
        username: n.user.username,
        name: n.user.name,
        state: n.user.state,
        locked: n.user.locked,
        avatar_url: n.user.avatarUrl,
        web_url: n.user.webUrl,
        created_at: n.createdAt,
        requested_at: n.requestedAt,
      }));
      expect(nodes).toEqual(rest);
    }
    const forbidden = await t.graphql(`{ group(fullPath: "${publicGroup.full_path}") { accessRequests { nodes { requestedAt } } } }`, {}, developer.token);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const capped = await t.graphql(
      `mutation { accessRequestApprove(input: {groupId: ${publicGroup.id}, userId: ${asker.id}, accessLevel: 50}) { member { accessLevel { integerValue } } errors } }`,
      {},
      maintainer.token,
    );
    expect(capped.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const approve = await t.graphql(
      `mutation { accessRequestApprove(input: {groupPath: "${publicGroup.full_path}", userId: ${asker.id}}) { member { accessLevel { integerValue } user { username } } errors } }`,
      {},
      owner.token,
    );
    expect(approve.body.data.accessRequestApprove).toEqual({ member: { accessLevel: { integerValue: 30 }, user: { username: asker.username } }, errors: [] });
    const deny = await t.graphql(`mutation { accessRequestDeny(input: {groupId: ${publicGroup.id}, userId: ${asker.id}}) { errors } }`, {}, owner.token);
    expect(deny.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

// GitLab: a group's requests are for `admin_group_member` (Owners), a project's for
// `admin_project_member` (Maintainers and Owners); administrators answer both.
describe.each([
  { kind: 'groups', answers: ['Owner', 'administrator'] },
  { kind: 'projects', answers: ['Maintainer', 'Owner', 'administrator'] },
] as const)('who answers access requests to $kind, over REST and GraphQL alike', ({ kind, answers }) => {
  const ROLES = [
    ['Guest', 10],
    ['Reporter', 20],
    ['Developer', 30],
    ['Maintainer', 40],
    ['Owner', 50],
    ['administrator', null],
  ] as const;
  let source: { id: number; full_path?: string; path_with_namespace?: string };
  const path = () => source.full_path ?? source.path_with_namespace!;
  const input = (extra: string) => (kind === 'groups' ? `{groupPath: "${path()}", ${extra}}` : `{projectPath: "${path()}", ${extra}}`);
  const field = kind === 'groups' ? 'group' : 'project';

  beforeAll(async () => {
    const group = (
      await t
        .api('post', '/groups')
        .send({ name: `Matrix ${kind}`, path: `matrix-${kind}`, visibility: 'public' })
        .expect(201)
    ).body;
    source =
      kind === 'groups' ? group : (await t.api('post', '/projects').send({ name: 'Matrix', namespace_id: group.id, visibility: 'public' }).expect(201)).body;
  });

  it.each(ROLES)('%s', async (role, level) => {
    const viewer = level === null ? t.root : await t.user();
    if (level !== null) await t.api('post', `/${kind}/${source.id}/members`).send({ user_id: viewer.id, access_level: level }).expect(201);
    const askers = [await t.user(), await t.user(), await t.user(), await t.user()];
    for (const asker of askers) await t.api('post', `/${kind}/${source.id}/access_requests`, asker.token).expect(201);
    const allowed = (answers as readonly string[]).includes(role);
    const graphqlCode = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;
    const url = `/${kind}/${source.id}/access_requests`;

    const list = await t.api('get', `${url}?per_page=100`, viewer.token).expect(allowed ? 200 : 403);
    const listed = await t.graphql(`{ ${field}(fullPath: "${path()}") { accessRequests(first: 100) { nodes { user { databaseId } } } } }`, {}, viewer.token);
    expect(graphqlCode(listed)).toBe(allowed ? undefined : 'FORBIDDEN');
    if (allowed) {
      expect(list.body.map((r: { id: number }) => r.id)).toEqual(expect.arrayContaining(askers.map((a) => a.id)));
      expect(listed.body.data[field].accessRequests.nodes.map((n: { user: { databaseId: number } }) => n.user.databaseId)).toEqual(
        list.body.map((r: { id: number }) => r.id),
      );
    }

    await t.api('put', `${url}/${askers[0].id}/approve`, viewer.token).expect(allowed ? 201 : 403);
    const approved = await t.graphql(
      `mutation { accessRequestApprove(input: ${input(`userId: ${askers[1].id}`)}) { member { accessLevel { integerValue } } errors } }`,
      {},
      viewer.token,
    );
    expect(graphqlCode(approved)).toBe(allowed ? undefined : 'FORBIDDEN');
    await t.api('delete', `${url}/${askers[2].id}`, viewer.token).expect(allowed ? 204 : 403);
    const denied = await t.graphql(`mutation { accessRequestDeny(input: ${input(`userId: ${askers[3].id}`)}) { errors } }`, {}, viewer.token);
    expect(graphqlCode(denied)).toBe(allowed ? undefined : 'FORBIDDEN');

    const scope = kind === 'groups' ? { namespaceId: source.id } : { projectId: source.id };
    const ids = askers.map((a) => a.id);
    expect(await t.db.accessRequest.count({ where: { ...scope, userId: { in: ids } } })).toBe(allowed ? 0 : 4);
    expect(await t.db.member.count({ where: { ...scope, userId: { in: ids } } })).toBe(allowed ? 2 : 0);
  });
});
