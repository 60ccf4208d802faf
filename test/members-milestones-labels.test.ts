import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withNextIid } from '../src/core/iids.ts';
import { createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';

let t: TestApp;
let group: { id: number };
let sub: { id: number };
let project: { id: number };
beforeAll(async () => {
  t = await createTestApp();
  group = (await t.api('post', '/groups').send({ name: 'Org', path: 'org' }).expect(201)).body;
  sub = (await t.api('post', '/groups').send({ name: 'Team', path: 'team', parent_id: group.id }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'Svc', namespace_id: sub.id }).expect(201)).body;
});
afterAll(() => t.close());

describe('members', () => {
  it('adds, reads, updates and removes project members', async () => {
    const u = await t.user('mem1');
    const added = (await t.api('post', `/projects/${project.id}/members`).send({ user_id: u.id, access_level: 30, expires_at: '2099-01-01' }).expect(201)).body;
    expect(added).toMatchObject({
      id: u.id,
      username: 'mem1',
      access_level: 30,
      expires_at: '2099-01-01',
      created_by: expect.objectContaining({ username: 'root' }),
    });
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: u.id, access_level: 30 }).expect(409, { message: 'Member already exists' });
    await t
      .api('post', `/projects/${project.id}/members`)
      .send({ user_id: u.id, access_level: 31 })
      .expect(400, { error: 'access_level does not have a valid value' });
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: 424242, access_level: 30 }).expect(404, { message: '404 User Not Found' });
    expect((await t.api('get', `/projects/${project.id}/members/${u.id}`).expect(200)).body.access_level).toBe(30);
    expect((await t.api('put', `/projects/${project.id}/members/${u.id}`).send({ access_level: 40 }).expect(200)).body.access_level).toBe(40);
    await t.api('delete', `/projects/${project.id}/members/${u.id}`).expect(204);
    await t.api('get', `/projects/${project.id}/members/${u.id}`).expect(404, { message: '404 Member Not Found' });
  });

  it('adds members by username as well as by id, one of them exactly (projects and groups)', async () => {
    const u = await t.user('byname');
    for (const path of [`/projects/${project.id}/members`, `/groups/${group.id}/members`]) {
      const added = (await t.api('post', path).send({ username: 'ByName', access_level: 20 }).expect(201)).body;
      expect(added).toMatchObject({ id: u.id, username: 'byname', access_level: 20 });
      await t.api('post', path).send({ access_level: 20 }).expect(400, { error: 'user_id, username are missing, exactly one parameter must be provided' });
      await t
        .api('post', path)
        .send({ user_id: u.id, username: 'byname', access_level: 20 })
        .expect(400, { error: 'user_id, username are mutually exclusive' });
      await t.api('post', path).send({ username: 'nobody-here', access_level: 20 }).expect(404, { message: '404 User Not Found' });
    }
    const gql = await t.graphql(
      `mutation { memberCreate(input: { projectId: ${project.id}, accessLevel: 30 }) { member { accessLevel { integerValue } } errors } }`,
    );
    expect(gql.body.data.memberCreate.errors).toEqual(['userId, username are missing, exactly one parameter must be provided']);
  });

  it('lists inherited members once with the highest level under /members/all', async () => {
    const u = await t.user('mem2');
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: u.id, access_level: 20 }).expect(201);
    await t.api('post', `/groups/${sub.id}/members`).send({ user_id: u.id, access_level: 40 }).expect(201);
    const direct = (await t.api('get', `/projects/${project.id}/members`).expect(200)).body;
    expect(direct.map((m: { username: string }) => m.username)).not.toContain('mem2');
    const all = (await t.api('get', `/projects/${project.id}/members/all`).expect(200)).body;
    expect(all.filter((m: { username: string }) => m.username === 'mem2')).toEqual([expect.objectContaining({ access_level: 40 })]);
    expect((await t.api('get', `/projects/${project.id}/members/all/${u.id}`).expect(200)).body.access_level).toBe(40);
  });

  it('keeps managers from granting more than they hold, and non-managers out', async () => {
    const maint = await t.user('maint');
    const dev = await t.user('devx');
    const target = await t.user('target');
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: maint.id, access_level: 40 }).expect(201);
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
    await t.api('post', `/projects/${project.id}/members`, maint.token).send({ user_id: target.id, access_level: 50 }).expect(403);
    await t.api('post', `/projects/${project.id}/members`, dev.token).send({ user_id: target.id, access_level: 10 }).expect(403);
    await t.api('post', `/projects/${project.id}/members`, maint.token).send({ user_id: target.id, access_level: 30 }).expect(201);
    // The group's only owner cannot be removed.
    await t.api('delete', `/groups/${group.id}/members/${t.root.id}`).expect(403);
  });

  it('has GraphQL twins for listing and adding', async () => {
    const u = await t.user('mem3');
    const res = await t.graphql(
      'mutation($g: ID!, $u: UserID!) { memberCreate(input: { groupPath: $g, userId: $u, accessLevel: 20 }) { member { accessLevel { integerValue stringValue } user { username } } errors } }',
      { g: 'org/team', u: `gid://gitlab/User/${u.id}` },
    );
    expect(res.body.data.memberCreate).toEqual({
      member: { accessLevel: { integerValue: 20, stringValue: 'REPORTER' }, user: { username: 'mem3' } },
      errors: [],
    });
    const list = await t.graphql('{ group(fullPath: "org/team") { groupMembers(relations: [DIRECT]) { totalCount nodes { user { username } } } } }');
    expect(list.body.data.group.groupMembers.nodes.map((n: { user: { username: string } }) => n.user.username)).toContain('mem3');
    const again = await t.graphql('mutation($u: UserID!) { memberCreate(input: { groupPath: "org/team", userId: $u, accessLevel: 20 }) { errors } }', {
      u: `gid://gitlab/User/${u.id}`,
    });
    expect(again.body.data.memberCreate.errors).toEqual(['Member already exists']);
  });
});

describe('milestones', () => {
  it('creates, lists, filters, reads and closes project milestones', async () => {
    const m1 = (await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'v1.0', due_date: '2026-12-31', start_date: '2026-12-01' }).expect(201))
      .body;
    expect(m1).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'v1.0',
      state: 'active',
      due_date: '2026-12-31',
      web_url: `${EXTERNAL_URL}/org/team/svc/-/milestones/1`,
    });
    expect(m1.group_id).toBeUndefined();
    const m2 = (await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'v2.0' }).expect(201)).body;
    expect(m2.iid).toBe(2);
    await t
      .api('post', `/projects/${project.id}/milestones`)
      .send({ title: 'v1.0' })
      .expect(400, { message: { title: ['has already been taken'] } });
    await t.api('post', `/projects/${project.id}/milestones`).send({}).expect(400, { error: 'title is missing' });
    await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'bad', due_date: '2026-02-30' }).expect(400, { error: 'due_date is invalid' });
    expect((await t.api('get', `/projects/${project.id}/milestones/${m1.id}`).expect(200)).body.title).toBe('v1.0');
    const closed = (await t.api('put', `/projects/${project.id}/milestones/${m1.id}`).send({ state_event: 'close' }).expect(200)).body;
    expect(closed.state).toBe('closed');
    expect((await t.api('get', `/projects/${project.id}/milestones?state=active`).expect(200)).body.map((m: { title: string }) => m.title)).toEqual(['v2.0']);
    expect((await t.api('get', `/projects/${project.id}/milestones?iids[]=1`).expect(200)).body.map((m: { id: number }) => m.id)).toEqual([m1.id]);
    // A milestone is only found through its own project.
    const other = (await t.api('post', '/projects').send({ name: 'Other' }).expect(201)).body;
    await t.api('get', `/projects/${other.id}/milestones/${m1.id}`).expect(404, { message: '404 Milestone Not Found' });
  });

  it('gives concurrent creates distinct iids', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Race' }).expect(201)).body;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.api('post', `/projects/${p.id}/milestones`).send({ title: `r${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.iid)).size).toBe(8);
  });

  it('creates in two statements, no transaction; a refused create hands its iid back, over REST and GraphQL', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Statements' }).expect(201)).body;
    await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'first' }).expect(201);
    t.queryCounter.record = true;
    t.queryCounter.reset();
    await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'second' }).expect(201);
    const writes = t.queryCounter.statements.filter((sql) => /^\s*(INSERT|UPDATE|BEGIN|COMMIT)/i.test(sql));
    t.queryCounter.record = false;
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/INSERT INTO internal_ids/);
    expect(writes[1]).toMatch(/INSERT INTO "public"\."milestones"/);
    // As in GitLab, a refused create leaves no gap.
    await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'second' }).expect(400);
    expect((await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'third' }).expect(201)).body.iid).toBe(3);
    // GraphQL's milestoneCreate is the same service.
    const create = (title: string) =>
      t.graphql('mutation($input: MilestoneCreateInput!) { milestoneCreate(input: $input) { errors milestone { iid } } }', {
        input: { projectPath: p.path_with_namespace, title },
      });
    expect((await create('third')).body.data.milestoneCreate).toEqual({ errors: ['Title has already been taken'], milestone: null });
    expect((await create('fourth')).body.data.milestoneCreate).toEqual({ errors: [], milestone: { iid: '4' } });
    // A create that took a later iid meanwhile keeps it: the refused iid stays a gap, never reused.
    const refused = withNextIid(t.db, 'milestones:project', p.id, async (iid) => {
      await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'meanwhile' }).expect(201);
      return t.db.milestone.create({ data: { projectId: p.id, iid, title: 'first', description: '' } });
    });
    await expect(refused).rejects.toMatchObject({ code: 'P2002' });
    expect((await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'last' }).expect(201)).body.iid).toBe(7);
    const iids = (await t.api('get', `/projects/${p.id}/milestones`).expect(200)).body.map((m: { iid: number }) => m.iid);
    expect(iids.sort()).toEqual([1, 2, 3, 4, 6, 7]);
  });

  it('lets Reporters manage milestones but not Guests', async () => {
    const reporter = await t.user('rep');
    const guest = await t.user('gue');
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('post', `/projects/${project.id}/milestones`, reporter.token).send({ title: 'by reporter' }).expect(201);
    await t.api('post', `/projects/${project.id}/milestones`, guest.token).send({ title: 'by guest' }).expect(403);
    await t.api('get', `/projects/${project.id}/milestones`, guest.token).expect(200);
  });

  it('supports group milestones over REST and GraphQL', async () => {
    const gm = (await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'Q1' }).expect(201)).body;
    expect(gm).toMatchObject({ group_id: group.id, iid: 1, web_url: `${EXTERNAL_URL}/groups/org/-/milestones/1` });
    const res = await t.graphql('{ group(fullPath: "org") { milestones { totalCount nodes { title groupId } } } }');
    expect(res.body.data.group.milestones).toEqual({ totalCount: 1, nodes: [{ title: 'Q1', groupId: group.id }] });
    const created = await t.graphql(
      'mutation { milestoneCreate(input: { projectPath: "org/team/svc", title: "gql", dueDate: "2027-01-01" }) { milestone { title dueDate state } errors } }',
    );
    expect(created.body.data.milestoneCreate).toEqual({ milestone: { title: 'gql', dueDate: '2027-01-01', state: 'active' }, errors: [] });
  });

  it('lists milestones with a fixed number of SQL statements', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Many' }).expect(201)).body;
    for (let i = 0; i < 10; i++)
      await t
        .api('post', `/projects/${p.id}/milestones`)
        .send({ title: `m${i}` })
        .expect(201);
    const count = async (perPage: number) => {
      t.queryCounter.reset();
      await t.api('get', `/projects/${p.id}/milestones?per_page=${perPage}`).expect(200);
      return t.queryCounter.count;
    };
    await expectCounterSees(t, () => t.api('get', `/projects/${p.id}/milestones?per_page=2`).expect(200));
    const few = await count(2);
    expect(few).toBeGreaterThan(0);
    expect(await count(10)).toBe(few);
  });
});

describe('labels', () => {
  it('creates project and group labels and lists ancestors with the project', async () => {
    const gl = (await t.api('post', `/groups/${group.id}/labels`).send({ name: 'org-wide', color: '#abc' }).expect(201)).body;
    expect(gl).toMatchObject({ name: 'org-wide', color: '#AABBCC', text_color: '#333333', is_project_label: false });
    const pl = (await t.api('post', `/projects/${project.id}/labels`).send({ name: 'bug', color: 'red', description: 'Broken' }).expect(201)).body;
    expect(pl).toMatchObject({ name: 'bug', color: '#FF0000', text_color: '#FFFFFF', description: 'Broken', is_project_label: true });
    await t.api('post', `/projects/${project.id}/labels`).send({ name: 'bug', color: 'red' }).expect(409, { message: 'Label already exists' });
    await t
      .api('post', `/projects/${project.id}/labels`)
      .send({ name: 'x', color: 'notacolor' })
      .expect(400, { message: { color: ['must be a valid color code'] } });
    await t.api('post', `/projects/${project.id}/labels`).send({ name: 'x' }).expect(400, { error: 'color is missing' });
    const names = (await t.api('get', `/projects/${project.id}/labels`).expect(200)).body.map((l: { name: string }) => l.name);
    expect(names).toEqual(['bug', 'org-wide']);
    const own = (await t.api('get', `/projects/${project.id}/labels?include_ancestor_groups=false`).expect(200)).body.map((l: { name: string }) => l.name);
    expect(own).toEqual(['bug']);
    const gql = await t.graphql(
      'mutation { labelCreate(input: { projectPath: "org/team/svc", title: "feat", color: "#00ff00" }) { label { title color textColor } errors } }',
    );
    expect(gql.body.data.labelCreate).toEqual({ label: { title: 'feat', color: '#00FF00', textColor: '#FFFFFF' }, errors: [] });
  });
});
