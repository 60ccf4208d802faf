import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// Issue 39, groups: sharing a group with another (and the access it grants, through the
// authorization views every permission check and list reads), transfers, descendant groups,
// skip_groups[], the group entity's keys.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type User = Awaited<ReturnType<TestApp['user']>>;
const ids = (list: { id: number }[]) => list.map((x) => x.id);

async function group(path: string, extra: Record<string, unknown> = {}, token = t.root.token) {
  return (
    await t
      .api('post', '/groups', token)
      .send({ name: path, path, ...extra })
      .expect(201)
  ).body;
}
async function member(groupId: number, user: User, level: number) {
  await t.api('post', `/groups/${groupId}/members`).send({ user_id: user.id, access_level: level }).expect(201);
}

describe('group sharing (POST /groups/:id/share, DELETE /groups/:id/share/:group_id)', () => {
  let shared: { id: number };
  let sub: { id: number };
  let project: { id: number };
  let team: { id: number };
  let dev: User;
  let lead: User;
  let elder: User;
  let outsider: User;

  beforeAll(async () => {
    shared = await group('vault');
    sub = await group('inner', { parent_id: shared.id });
    project = (await t.api('post', '/projects').send({ name: 'secret', namespace_id: sub.id, initialize_with_readme: true }).expect(201)).body;
    const elders = await group('elders');
    team = await group('team', { parent_id: elders.id });
    dev = await t.user('share-dev');
    lead = await t.user('share-lead');
    elder = await t.user('share-elder');
    outsider = await t.user('share-outsider');
    await member(team.id, dev, 20);
    await member(team.id, lead, 40);
    await member(elders.id, elder, 50);
  });

  it('grants nothing before sharing', async () => {
    for (const u of [dev, lead, elder]) {
      await t.api('get', `/groups/${shared.id}`, u.token).expect(404);
      await t.api('get', `/projects/${project.id}`, u.token).expect(404);
    }
  });

  it('is for Owners of the shared group, with Grape and GitLab answers for bad input', async () => {
    const owner = await t.user('share-owner');
    const maint = await t.user('share-maint');
    await member(shared.id, owner, 50);
    await member(shared.id, maint, 40);
    const body = { group_id: team.id, group_access: 30 };
    await t.api('post', `/groups/${shared.id}/share`, null).send(body).expect(401);
    await t.api('post', `/groups/${shared.id}/share`, outsider.token).send(body).expect(404, { message: '404 Group Not Found' });
    const open = await group('open-team', { visibility: 'public' });
    await t.api('post', `/groups/${shared.id}/share`, maint.token).send({ group_id: open.id, group_access: 30 }).expect(403);
    await t.api('post', `/groups/${shared.id}/share`, owner.token).send({ group_access: 30 }).expect(400, { error: 'group_id is missing' });
    await t
      .api('post', `/groups/${shared.id}/share`, owner.token)
      .send({ group_id: team.id, group_access: 15 })
      .expect(400, { error: 'group_access does not have a valid value' });
    // The owner cannot see `team` (private, not a member): 404 for it.
    await t.api('post', `/groups/${shared.id}/share`, owner.token).send(body).expect(404, { message: '404 Group Not Found' });
    await t.api('post', `/groups/${shared.id}/share`).send({ group_id: 999999, group_access: 30 }).expect(404, { message: '404 Group Not Found' });
  });

  it('shares: members of the other group (and of groups above it) get min(their level, group_access) here and below', async () => {
    const res = await t.api('post', `/groups/${shared.id}/share`).send({ group_id: team.id, group_access: 30 }).expect(201);
    expect(res.body).toMatchObject({
      id: shared.id,
      shared_with_groups: [{ group_id: team.id, group_name: 'team', group_full_path: 'elders/team', group_access_level: 30, expires_at: null }],
    });
    await t.api('post', `/groups/${shared.id}/share`).send({ group_id: team.id, group_access: 30 }).expect(409);

    // Visible now, the group, its subgroup and the project below.
    for (const u of [dev, lead, elder]) {
      await t.api('get', `/groups/${shared.id}`, u.token).expect(200);
      await t.api('get', `/groups/${sub.id}`, u.token).expect(200);
      await t.api('get', `/projects/${project.id}`, u.token).expect(200);
      expect(ids((await t.api('get', '/groups', u.token).expect(200)).body)).toEqual(expect.arrayContaining([shared.id, sub.id]));
      expect(ids((await t.api('get', '/projects?membership=true', u.token).expect(200)).body)).toContain(project.id);
    }
    await t.api('get', `/projects/${project.id}`, outsider.token).expect(404);

    // Levels: the reporter stays a reporter (reads code, cannot push); the maintainer and the owner
    // above are capped at Developer (push a branch, but not the protected default one).
    await t.api('get', `/projects/${project.id}/repository/files/README.md?ref=main`, dev.token).expect(200);
    await t.api('post', `/projects/${project.id}/repository/branches`, dev.token).send({ branch: 'by-dev', ref: 'main' }).expect(403);
    for (const [u, name] of [
      [lead, 'by-lead'],
      [elder, 'by-elder'],
    ] as const) {
      await t.api('post', `/projects/${project.id}/repository/branches`, u.token).send({ branch: name, ref: 'main' }).expect(201);
      await t
        .api('post', `/projects/${project.id}/repository/files/x-${name}.md`, u.token)
        .send({ branch: 'main', content: 'x', commit_message: 'x' })
        .expect(403);
      await t.api('put', `/groups/${sub.id}`, u.token).send({ description: 'nope' }).expect(403);
    }
    // `/members/all` lists them too, at the level they get here; `/members` does not.
    const all = (await t.api('get', `/projects/${project.id}/members/all`).expect(200)).body as { id: number; access_level: number }[];
    expect(Object.fromEntries(all.map((m) => [m.id, m.access_level]))).toMatchObject({ [dev.id]: 20, [lead.id]: 30, [elder.id]: 30 });
    expect(ids((await t.api('get', `/groups/${sub.id}/members`).expect(200)).body)).not.toContain(lead.id);
    const groupAll = (await t.api('get', `/groups/${shared.id}/members/all?user_ids[]=${lead.id}`).expect(200)).body;
    expect(groupAll).toEqual([expect.objectContaining({ id: lead.id, access_level: 30 })]);
    const gql = await t.graphql(
      `{ project(fullPath: "vault/inner/secret") { id } group(fullPath: "vault") { sharedWithGroups { groupFullPath groupAccessLevel } } }`,
      {},
      lead.token,
    );
    expect(gql.body.data).toEqual({
      project: { id: `gid://gitlab/Project/${project.id}` },
      group: { sharedWithGroups: [{ groupFullPath: 'elders/team', groupAccessLevel: 30 }] },
    });
  });

  it('costs the same statements whatever the number of groups shared with the viewer (the views, not a list of ids)', async () => {
    const list = () => t.api('get', '/projects?membership=true', lead.token).expect(200);
    await expectCounterSees(t, list);
    const before = await countQueries(t, list);
    for (const path of ['more-1', 'more-2', 'more-3']) {
      const g = await group(path);
      await t.api('post', '/projects').send({ name: 'p', namespace_id: g.id }).expect(201);
      await t.api('post', `/groups/${g.id}/share`).send({ group_id: team.id, group_access: 10 }).expect(201);
    }
    expect((await list()).body).toHaveLength(4);
    expect(await countQueries(t, list)).toBe(before);
  });

  it('an expired share grants nothing; unsharing takes the access away', async () => {
    const other = await group('expired-share');
    const p = (await t.api('post', '/projects').send({ name: 'p', namespace_id: other.id }).expect(201)).body;
    await t.api('post', `/groups/${other.id}/share`).send({ group_id: team.id, group_access: 50, expires_at: '2020-01-01' }).expect(201);
    await t.api('get', `/projects/${p.id}`, dev.token).expect(404);

    await t.api('delete', `/groups/${shared.id}/share/${team.id}`, dev.token).expect(403);
    await t.api('delete', `/groups/${shared.id}/share/${team.id}`).expect(204);
    await t.api('delete', `/groups/${shared.id}/share/${team.id}`).expect(404, { message: '404 Group Link Not Found' });
    await t.api('get', `/projects/${project.id}`, lead.token).expect(404);
    await t.api('get', `/groups/${shared.id}`, lead.token).expect(404);
  });

  it('has a GraphQL twin (groupShare / groupShareDelete)', async () => {
    const share = await t.graphql(
      `mutation($g: Int!) { groupShare(input: { fullPath: "vault", sharedWithGroupId: $g, groupAccess: 20 }) { group { fullPath sharedWithGroups { groupId groupAccessLevel } } errors } }`,
      { g: team.id },
    );
    expect(share.body.data.groupShare).toEqual({ group: { fullPath: 'vault', sharedWithGroups: [{ groupId: team.id, groupAccessLevel: 20 }] }, errors: [] });
    await t.api('get', `/projects/${project.id}`, lead.token).expect(200);
    const drop = await t.graphql(`mutation($g: Int!) { groupShareDelete(input: { fullPath: "vault", sharedWithGroupId: $g }) { errors } }`, { g: team.id });
    expect(drop.body.data.groupShareDelete).toEqual({ errors: [] });
    await t.api('get', `/projects/${project.id}`, lead.token).expect(404);
  });
});

describe('POST /groups/:id/transfer', () => {
  it('moves a group with its subgroups and projects, and back to the top level', async () => {
    const from = await group('from-here');
    const to = await group('to-there');
    const moving = await group('moving', { parent_id: from.id });
    const below = await group('below', { parent_id: moving.id });
    const p = (await t.api('post', '/projects').send({ name: 'proj', namespace_id: below.id }).expect(201)).body;

    const moved = (await t.api('post', `/groups/${moving.id}/transfer`).send({ group_id: to.id }).expect(201)).body;
    expect(moved).toMatchObject({ id: moving.id, full_path: 'to-there/moving', parent_id: to.id, full_name: 'to-there / moving' });
    expect((await t.api('get', `/groups/${below.id}`).expect(200)).body.full_path).toBe('to-there/moving/below');
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.path_with_namespace).toBe('to-there/moving/below/proj');
    expect(ids((await t.api('get', `/groups/${to.id}/descendant_groups`).expect(200)).body).sort()).toEqual([moving.id, below.id].sort());
    expect((await t.api('get', `/groups/${from.id}/descendant_groups`).expect(200)).body).toEqual([]);

    await t
      .api('post', `/groups/${moving.id}/transfer`)
      .send({ group_id: to.id })
      .expect(400, { message: 'Transfer failed: Group is already associated to the parent group.' });
    await t
      .api('post', `/groups/${moving.id}/transfer`)
      .send({ group_id: below.id })
      .expect(400, { message: 'Transfer failed: Cannot transfer group to one of its subgroup.' });
    const top = (await t.api('post', `/groups/${moving.id}/transfer`).expect(201)).body;
    expect(top).toMatchObject({ full_path: 'moving', parent_id: null });
    await t.api('post', `/groups/${moving.id}/transfer`).expect(400, { message: 'Transfer failed: Group is already a root group.' });
    expect((await t.api('get', `/groups/${below.id}`).expect(200)).body.full_path).toBe('moving/below');
  });

  it('refuses a taken path and a non-owner, lowers the visibility to the new parent', async () => {
    const a = await group('tr-a', { visibility: 'public' });
    const b = await group('tr-b', { visibility: 'private' });
    await group('same', { parent_id: b.id });
    const same = await group('same', { parent_id: a.id, visibility: 'public' });
    await t
      .api('post', `/groups/${same.id}/transfer`)
      .send({ group_id: b.id })
      .expect(400, { message: 'Transfer failed: The parent group already has a subgroup or a project with the same path.' });
    const pub = await group('pub-child', { parent_id: a.id, visibility: 'public' });
    const pp = (await t.api('post', '/projects').send({ name: 'pp', namespace_id: pub.id, visibility: 'public' }).expect(201)).body;
    expect((await t.api('post', `/groups/${pub.id}/transfer`).send({ group_id: b.id }).expect(201)).body.visibility).toBe('private');
    expect((await t.api('get', `/projects/${pp.id}`).expect(200)).body.visibility).toBe('private');

    const owner = await t.user('tr-owner');
    const own = await group('tr-own', {}, owner.token);
    await t
      .api('post', `/groups/${own.id}/transfer`, owner.token)
      .send({ group_id: a.id })
      .expect(400, { message: "Transfer failed: You don't have enough permissions." });
    const maint = await t.user('tr-maint');
    await member(own.id, maint, 40);
    await t.api('post', `/groups/${own.id}/transfer`, maint.token).send({ group_id: a.id }).expect(403);
  });

  it('has a GraphQL twin (groupTransfer)', async () => {
    const g = await group('gql-moving');
    const parent = await group('gql-parent');
    const res = await t.graphql(`mutation($p: Int) { groupTransfer(input: { fullPath: "gql-moving", parentId: $p }) { group { fullPath parentId } errors } }`, {
      p: parent.id,
    });
    expect(res.body.data.groupTransfer).toEqual({ group: { fullPath: 'gql-parent/gql-moving', parentId: parent.id }, errors: [] });
    expect((await t.api('get', `/groups/${g.id}`).expect(200)).body.full_path).toBe('gql-parent/gql-moving');
  });
});

describe('group lists and the group entity', () => {
  it('skip_groups[] leaves groups out; descendant_groups lists every level, subgroups one', async () => {
    const a = await group('skip-a');
    const b = await group('skip-b');
    const c = await group('skip-c', { parent_id: a.id });
    const d = await group('skip-d', { parent_id: c.id });
    const listed = ids((await t.api('get', `/groups?search=skip-&skip_groups[]=${a.id}&skip_groups[]=${c.id}`).expect(200)).body);
    expect(listed.sort()).toEqual([b.id, d.id].sort());
    expect(ids((await t.api('get', `/groups?search=skip-&skip_groups=${b.id}`).expect(200)).body).sort()).toEqual([a.id, c.id, d.id].sort());
    expect(ids((await t.api('get', `/groups/${a.id}/subgroups`).expect(200)).body)).toEqual([c.id]);
    expect(ids((await t.api('get', `/groups/${a.id}/descendant_groups`).expect(200)).body).sort()).toEqual([c.id, d.id].sort());
    const stranger = await t.user('desc-stranger');
    await t.api('get', `/groups/${a.id}/descendant_groups`, stranger.token).expect(404, { message: '404 Group Not Found' });
  });

  it("answers the keys gitbeaker's GroupSchema declares", async () => {
    const g = (await t.api('get', '/groups/skip-a').expect(200)).body;
    for (const key of [
      'share_with_group_lock',
      'require_two_factor_authentication',
      'two_factor_grace_period',
      'project_creation_level',
      'auto_devops_enabled',
      'subgroup_creation_level',
      'emails_enabled',
      'mentions_disabled',
      'lfs_enabled',
      'default_branch_protection',
      'shared_with_groups',
    ]) {
      expect(g).toHaveProperty(key);
    }
    expect(g).toMatchObject({ lfs_enabled: true, subgroup_creation_level: 'owner', shared_with_groups: [] });
  });
});

describe('@gitbeaker/rest: groups', () => {
  it('drives share, unshare, transfer, allDescendantGroups and all({ skipGroups })', async () => {
    const api = gitbeaker(t.base, t.root.token);
    const g = await group('beaker-shared');
    const w = await group('beaker-with');
    const shared = await api.Groups.share(g.id, w.id, 30, {});
    expect(shared.shared_with_groups).toEqual([expect.objectContaining({ group_id: w.id, group_access_level: 30 })]);
    await api.Groups.unshare(g.id, w.id, {});
    expect((await api.Groups.show(g.id)).shared_with_groups).toEqual([]);
    // gitbeaker types the answer as void; GitLab's (and ours) is the group.
    const moved = (await api.Groups.transfer(w.id, { groupId: g.id })) as unknown as { full_path: string };
    expect(moved.full_path).toBe('beaker-shared/beaker-with');
    expect(ids(await api.Groups.allDescendantGroups(g.id, {}))).toEqual([w.id]);
    const listed = await api.Groups.all({ search: 'beaker-', skipGroups: [w.id] });
    expect(ids(listed)).toEqual([g.id]);
  });
});
