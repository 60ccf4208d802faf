import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';
import { expectTwins } from './helpers/twins.ts';

let t: TestApp;
let group: { id: number; full_path: string };
let project: { id: number };

beforeAll(async () => {
  t = await createTestApp();
  ({ group, project } = await seedProject(t));
});
afterAll(() => t.close());

describe('labels by id or name', () => {
  it('reads, updates and deletes project labels by id or URL-encoded name', async () => {
    const bug = (await t.api('post', `/projects/${project.id}/labels`).send({ name: 'bug', color: '#FF0000', description: 'Broken' }).expect(201)).body;
    await t.api('post', `/projects/${project.id}/labels`).send({ name: 'kind/feature', color: '#00FF00' }).expect(201);
    const inherited = (await t.api('post', `/groups/${group.id}/labels`).send({ name: 'group-wide', color: '#0000FF' }).expect(201)).body;

    const byId = await t.api('get', `/projects/${project.id}/labels/${bug.id}`).expect(200);
    expect(byId.body).toMatchObject({ id: bug.id, name: 'bug', color: '#FF0000', description: 'Broken', is_project_label: true, subscribed: false });
    expect((await t.api('get', `/projects/${project.id}/labels/kind%2Ffeature`).expect(200)).body.name).toBe('kind/feature');
    expect((await t.api('get', `/projects/${project.id}/labels/group-wide`).expect(200)).body).toMatchObject({ id: inherited.id, is_project_label: false });
    await t.api('get', `/projects/${project.id}/labels/group-wide?include_ancestor_groups=false`).expect(404, { message: '404 Label Not Found' });
    await t.api('get', `/projects/${project.id}/labels/nope`).expect(404, { message: '404 Label Not Found' });
    await t.api('get', `/projects/${project.id}/labels/999999`).expect(404, { message: '404 Label Not Found' });

    const updated = await t.api('put', `/projects/${project.id}/labels/bug`).send({ new_name: 'defect', color: '#123', priority: 3 }).expect(200);
    expect(updated.body).toMatchObject({ id: bug.id, name: 'defect', color: '#112233', priority: 3, description: 'Broken' });
    expect((await t.api('put', `/projects/${project.id}/labels/${bug.id}`).send({ priority: null }).expect(200)).body.priority).toBeNull();
    await t
      .api('put', `/projects/${project.id}/labels/${bug.id}`)
      .send({})
      .expect(400, { error: 'new_name, color, description, priority are missing, at least one parameter must be provided' });
    await t
      .api('put', `/projects/${project.id}/labels/${bug.id}`)
      .send({ color: 'nope' })
      .expect(400, { message: { color: ['must be a valid color code'] } });
    await t
      .api('put', `/projects/${project.id}/labels/${bug.id}`)
      .send({ new_name: 'kind/feature' })
      .expect(400, { message: { title: ['has already been taken'] } });
    // A group's label is changed through the group, not through its projects.
    await t.api('put', `/projects/${project.id}/labels/group-wide`).send({ color: '#000000' }).expect(404, { message: '404 Label Not Found' });

    const reporter = await t.user();
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('put', `/projects/${project.id}/labels/${bug.id}`, guest.token).send({ color: '#000000' }).expect(403);
    await t.api('get', `/projects/${project.id}/labels/${bug.id}`, guest.token).expect(200);
    const outsider = await t.user();
    await t.api('get', `/projects/${project.id}/labels/${bug.id}`, outsider.token).expect(404, { message: '404 Project Not Found' });
    await t.api('delete', `/projects/${project.id}/labels/defect`, reporter.token).expect(204);
    await t.api('get', `/projects/${project.id}/labels/${bug.id}`).expect(404, { message: '404 Label Not Found' });
    await t.api('delete', `/projects/${project.id}/labels/defect`).expect(404, { message: '404 Label Not Found' });
  });

  it('takes the older body-named form python-gitlab 3.x uses: PUT and DELETE /labels with label_id or name', async () => {
    const chore = (await t.api('post', `/projects/${project.id}/labels`).send({ name: 'chore', color: '#AAAAAA' }).expect(201)).body;
    const byName = await t.api('put', `/projects/${project.id}/labels`).send({ name: 'chore', description: 'Housekeeping' }).expect(200);
    expect(byName.body).toMatchObject({ id: chore.id, name: 'chore', description: 'Housekeeping' });
    expect((await t.api('put', `/projects/${project.id}/labels`).send({ label_id: chore.id, new_name: 'maintenance' }).expect(200)).body.name).toBe(
      'maintenance',
    );
    await t
      .api('put', `/projects/${project.id}/labels`)
      .send({ color: '#000000' })
      .expect(400, { error: 'label_id, name are missing, exactly one parameter must be provided' });
    await t
      .api('put', `/projects/${project.id}/labels`)
      .send({ label_id: chore.id, name: 'maintenance', color: '#000000' })
      .expect(400, { error: 'label_id, name are mutually exclusive' });
    await t.api('delete', `/projects/${project.id}/labels`).send({ name: 'maintenance' }).expect(204);
    await t.api('get', `/projects/${project.id}/labels/${chore.id}`).expect(404, { message: '404 Label Not Found' });
  });

  it('has the group twins', async () => {
    const label = (await t.api('get', `/groups/${group.id}/labels/group-wide`).expect(200)).body;
    expect(label).toMatchObject({ name: 'group-wide', is_project_label: false });
    expect((await t.api('put', `/groups/${group.id}/labels/${label.id}`).send({ description: 'Everywhere' }).expect(200)).body.description).toBe('Everywhere');
    await t.api('get', `/groups/${group.id}/labels/missing`).expect(404, { message: '404 Label Not Found' });
    await expectTwins(
      t,
      t.root.token,
      {
        rest: `/groups/${group.id}/labels/group-wide`,
        graphql: `query($p: ID!) { group(fullPath: $p) { label(title: "group-wide") { databaseId title color description textColor } } }`,
        variables: { p: group.full_path },
        at: 'group.label',
        fields: { id: 'databaseId', name: 'title', color: 'color', description: 'description', text_color: 'textColor' },
      },
      'visible',
    );
    const updated = await t.graphql(`mutation($input: LabelUpdateInput!) { labelUpdate(input: $input) { label { title color } errors clientMutationId } }`, {
      input: { groupPath: group.full_path, title: 'group-wide', newTitle: 'org-wide', color: '#FFFFFF', clientMutationId: 'x' },
    });
    expect(updated.body.data.labelUpdate).toEqual({ label: { title: 'org-wide', color: '#FFFFFF' }, errors: [], clientMutationId: 'x' });
    const deleted = await t.graphql(`mutation { labelDelete(input: {groupId: ${group.id}, labelId: ${label.id}}) { label { title } errors } }`);
    expect(deleted.body.data.labelDelete).toEqual({ label: { title: 'org-wide' }, errors: [] });
    await t.api('get', `/groups/${group.id}/labels/${label.id}`).expect(404);
  });
});

describe('PUT /groups/:id', () => {
  it('updates name, path, description and visibility, moving the full paths below it', async () => {
    const sub = (await t.api('post', '/groups').send({ name: 'Sub', path: 'sub', parent_id: group.id }).expect(201)).body;
    const inner = (await t.api('post', '/projects').send({ name: 'Inner', namespace_id: sub.id }).expect(201)).body;
    const res = await t.api('put', `/groups/${group.id}`).send({ name: 'Acme Corp', path: 'acme-corp', description: 'Renamed' }).expect(200);
    expect(res.body).toMatchObject({
      id: group.id,
      name: 'Acme Corp',
      path: 'acme-corp',
      full_path: 'acme-corp',
      description: 'Renamed',
      web_url: 'http://gitlab.test/groups/acme-corp',
    });
    expect((await t.api('get', `/groups/${sub.id}`).expect(200)).body.full_path).toBe('acme-corp/sub');
    expect((await t.api('get', `/projects/${inner.id}`).expect(200)).body.path_with_namespace).toBe('acme-corp/sub/inner');
    expect((await t.api('get', '/projects/acme-corp%2Fapp').expect(200)).body.id).toBe(project.id);

    await t
      .api('put', `/groups/${sub.id}`)
      .send({ visibility: 'public' })
      .expect(400, {
        message: { visibility_level: ['public is not allowed since the parent group has a private visibility.'] },
      });
    await t.api('put', `/groups/${group.id}`).send({ visibility: 'public' }).expect(200);
    await t.api('put', `/groups/${sub.id}`).send({ visibility: 'internal' }).expect(200);
    await t
      .api('put', `/groups/${group.id}`)
      .send({ visibility: 'private' })
      .expect(400, {
        message: { visibility_level: ['private is not allowed since there are sub-groups with higher visibility.'] },
      });
    await t.api('put', `/groups/${group.id}`).send({ visibility: 'secret' }).expect(400, { error: 'visibility does not have a valid value' });
    await t.api('put', `/groups/${group.id}`).send({ path: 'bad path!' }).expect(400);
    const other = (await t.api('post', '/groups').send({ name: 'Other', path: 'other' }).expect(201)).body;
    await t
      .api('put', `/groups/${other.id}`)
      .send({ path: 'acme-corp' })
      .expect(400, { message: { path: ['has already been taken'] } });

    const maintainer = await t.user();
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
    await t.api('put', `/groups/${group.id}`, maintainer.token).send({ description: 'x' }).expect(403);
    await t.api('put', '/groups/999999').send({ description: 'x' }).expect(404, { message: '404 Group Not Found' });

    const gql = await t.graphql(`mutation($input: GroupUpdateInput!) { groupUpdate(input: $input) { group { name fullPath } errors } }`, {
      input: { fullPath: 'other', name: 'Other Name' },
    });
    expect(gql.body.data.groupUpdate).toEqual({ group: { name: 'Other Name', fullPath: 'other' }, errors: [] });
    await t.api('put', `/groups/${group.id}`).send({ path: 'acme' }).expect(200);
  });
});

describe('GET /metadata', () => {
  it("answers GitLab's metadata shape to signed-in users", async () => {
    const res = await t.api('get', '/metadata').expect(200);
    expect(res.body).toEqual({
      version: expect.any(String),
      revision: expect.any(String),
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: true,
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.version).toBe((await t.api('get', '/version').expect(200)).body.version);
    const gql = await t.graphql('{ metadata { version revision kas { enabled externalUrl externalK8sProxyUrl version } enterprise } }');
    expect(gql.body.data.metadata).toEqual(res.body);
    await t.api('get', '/metadata', null).expect(401);
  });
});

describe('GET /users/:id/projects', () => {
  it("lists a user's personal projects visible to the viewer, with filters and pagination", async () => {
    const owner = await t.user('owner1');
    const viewer = await t.user('viewer1');
    for (const [name, visibility] of [
      ['Alpha', 'public'],
      ['Beta', 'private'],
      ['Gamma', 'internal'],
      ['Delta', 'public'],
    ]) {
      await t.api('post', '/projects', owner.token).send({ name, visibility }).expect(201);
    }
    const asRoot = await t.api('get', `/users/${owner.id}/projects?order_by=name&sort=asc`).expect(200);
    expect(asRoot.body.map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
    expect(asRoot.body[0].namespace).toMatchObject({ path: 'owner1', kind: 'user' });
    const asViewer = await t.api('get', `/users/owner1/projects?order_by=name&sort=asc`, viewer.token).expect(200);
    expect(asViewer.body.map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Delta', 'Gamma']);
    const anonymous = await t.api('get', `/users/${owner.id}/projects?order_by=name&sort=asc`, null).expect(200);
    expect(anonymous.body.map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Delta']);
    const paged = await t.api('get', `/users/${owner.id}/projects?order_by=name&sort=asc&per_page=1&page=2&visibility=public`).expect(200);
    expect(paged.body.map((p: { name: string }) => p.name)).toEqual(['Delta']);
    expect(paged.headers).toMatchObject({ 'x-total': '2', 'x-page': '2', 'x-prev-page': '1' });
    expect((await t.api('get', `/users/${owner.id}/projects?search=gam`).expect(200)).body).toHaveLength(1);
    expect((await t.api('get', `/users/${viewer.id}/projects`).expect(200)).body).toEqual([]);
    const gql = await t.graphql(
      `query($id: UserID) { user(id: $id) { namespace { fullPath projects(sort: "name_asc") { count nodes { name } } } } }`,
      { id: `gid://gitlab/User/${owner.id}` },
      viewer.token,
    );
    expect(gql.body.data.user.namespace).toEqual({
      fullPath: 'owner1',
      projects: { count: 3, nodes: asViewer.body.map((p: { name: string }) => ({ name: p.name })) },
    });
    await t.api('get', '/users/999999/projects').expect(404, { message: '404 User Not Found' });
    await t.api('get', '/users/nobody-here/projects').expect(404, { message: '404 User Not Found' });
    await t.api('get', `/users/${owner.id}/projects?order_by=stars`).expect(400, { error: 'order_by does not have a valid value' });
  });

  it('costs the same queries for 1 project as for 4', async () => {
    const owner = await t.db.user.findUniqueOrThrow({ where: { username: 'owner1' } });
    await expectCounterSees(t, () => t.api('get', `/users/${owner.id}/projects?per_page=1`).expect(200));
    const one = await countQueries(t, () => t.api('get', `/users/${owner.id}/projects?per_page=1`).expect(200));
    const four = await countQueries(t, () => t.api('get', `/users/${owner.id}/projects?per_page=4`).expect(200));
    expect(four).toBe(one);
  });
});

describe('gitbeaker', () => {
  it('drives ProjectLabels.show/edit/remove, GroupLabels.show, Groups.edit, Metadata.show and Users.allProjects', async () => {
    const api = gitbeaker(t.base, t.root.token);
    await api.ProjectLabels.create(project.id, 'gb-label', '#AA0000');
    const shown = await api.ProjectLabels.show(project.id, 'gb-label');
    expect(shown).toMatchObject({ name: 'gb-label', color: '#AA0000' });
    const edited = await api.ProjectLabels.edit(project.id, shown.id as number, { newName: 'gb-renamed', description: 'via gitbeaker' });
    expect(edited).toMatchObject({ id: shown.id, name: 'gb-renamed', description: 'via gitbeaker' });
    await api.ProjectLabels.remove(project.id, 'gb-renamed');
    await expect(api.ProjectLabels.show(project.id, 'gb-renamed')).rejects.toThrow('404 Label Not Found');
    await api.GroupLabels.create(group.id, 'gb-group', '#00AA00');
    expect(await api.GroupLabels.show(group.id, 'gb-group')).toMatchObject({ name: 'gb-group', is_project_label: false });

    const group2 = await api.Groups.edit(group.id, { description: 'Edited by gitbeaker' });
    expect(group2).toMatchObject({ id: group.id, description: 'Edited by gitbeaker' });

    const metadata = await api.Metadata.show();
    expect(metadata).toMatchObject({ enterprise: true, kas: { enabled: false } });

    const owner = await t.db.user.findUniqueOrThrow({ where: { username: 'owner1' } });
    const projects = await api.Users.allProjects(owner.id, { orderBy: 'name', sort: 'asc', perPage: 2 });
    expect(projects.map((p) => p.name)).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
  });
});
