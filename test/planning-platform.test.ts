import type { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// Milestones and labels around issue 39: milestone delete, promote, issues/merge_requests lists
// and date-time dates; label subscriptions and promotion.

let t: TestApp;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ? 'error' : 'silent' } });
  api = gitbeaker(t.base, t.root.token);
});
afterAll(() => t.close());

let groups = 0;
async function groupWithProjects(n = 1) {
  const path = `plan-${++groups}`;
  const group = (await t.api('post', '/groups').send({ name: path, path }).expect(201)).body;
  const projects = [];
  for (let i = 0; i < n; i++)
    projects.push(
      (
        await t
          .api('post', '/projects')
          .send({ name: `p${i}`, namespace_id: group.id })
          .expect(201)
      ).body,
    );
  return { group, projects };
}

async function member(kind: 'projects' | 'groups', id: number, level: number) {
  const u = await t.user();
  await t.api('post', `/${kind}/${id}/members`).send({ user_id: u.id, access_level: level }).expect(201);
  return u;
}

describe('milestones', () => {
  it('casts date-time due and start dates to dates, as Grape does', async () => {
    const { projects } = await groupWithProjects();
    const m = (
      await t
        .api('post', `/projects/${projects[0].id}/milestones`)
        .send({ title: 'v1', start_date: '2020-01-01T00:00:00Z', due_date: '2020-02-03T23:59:59+02:00' })
        .expect(201)
    ).body;
    expect(m).toMatchObject({ start_date: '2020-01-01', due_date: '2020-02-03' });
    const updated = (await t.api('put', `/projects/${projects[0].id}/milestones/${m.id}`).send({ due_date: '2021-05-06 10:00:00' }).expect(200)).body;
    expect(updated.due_date).toBe('2021-05-06');
    await t
      .api('put', `/projects/${projects[0].id}/milestones/${m.id}`)
      .send({ due_date: '2021-13-06T00:00:00Z' })
      .expect(400, { error: 'due_date is invalid' });
  });

  it('deletes project and group milestones (Reporter and above), 404 for invisible ones', async () => {
    const { group, projects } = await groupWithProjects();
    const p = projects[0];
    const pm = (await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'gone' }).expect(201)).body;
    const gm = (await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'group gone' }).expect(201)).body;
    const guest = await member('projects', p.id, 10);
    await t.api('delete', `/projects/${p.id}/milestones/${pm.id}`, guest.token).expect(403);
    const reporter = await member('projects', p.id, 20);
    await t.api('delete', `/projects/${p.id}/milestones/${pm.id}`, reporter.token).expect(204);
    await t.api('get', `/projects/${p.id}/milestones/${pm.id}`).expect(404, { message: '404 Milestone Not Found' });
    await t.api('delete', `/projects/${p.id}/milestones/${pm.id}`).expect(404, { message: '404 Milestone Not Found' });
    // A group milestone is not the project's.
    await t.api('delete', `/projects/${p.id}/milestones/${gm.id}`).expect(404, { message: '404 Milestone Not Found' });
    const stranger = await t.user();
    await t.api('delete', `/groups/${group.id}/milestones/${gm.id}`, stranger.token).expect(404, { message: '404 Group Not Found' });
    await t.api('delete', `/groups/${group.id}/milestones/${gm.id}`).expect(204);
    expect(await t.db.milestone.count({ where: { id: { in: [pm.id, gm.id] } } })).toBe(0);
  });

  it('lists no issues or merge requests of a visible milestone, 404 for an invisible one', async () => {
    const { group, projects } = await groupWithProjects();
    const p = projects[0];
    const pm = (await t.api('post', `/projects/${p.id}/milestones`).send({ title: 'empty' }).expect(201)).body;
    const gm = (await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'empty' }).expect(201)).body;
    for (const list of ['issues', 'merge_requests']) {
      const res = await t.api('get', `/projects/${p.id}/milestones/${pm.id}/${list}`).expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-total']).toBe('0');
      expect((await t.api('get', `/groups/${group.id}/milestones/${gm.id}/${list}`).expect(200)).body).toEqual([]);
      await t.api('get', `/projects/${p.id}/milestones/999999/${list}`).expect(404, { message: '404 Milestone Not Found' });
    }
    const stranger = await t.user();
    await t.api('get', `/projects/${p.id}/milestones/${pm.id}/issues`, stranger.token).expect(404, { message: '404 Project Not Found' });
  });

  it('promotes a project milestone to the group, merging same-titled ones and keeping their releases', async () => {
    const { group, projects } = await groupWithProjects(2);
    const [a, b] = projects;
    await t.api('post', '/projects').send({ name: 'readme', namespace_id: group.id }).expect(201);
    const ma = (await t.api('post', `/projects/${a.id}/milestones`).send({ title: '1.0', description: 'first', due_date: '2030-01-01' }).expect(201)).body;
    const mb = (await t.api('post', `/projects/${b.id}/milestones`).send({ title: '1.0' }).expect(201)).body;
    await t.api('post', `/projects/${b.id}/repository/files/x`).send({ branch: 'main', content: 'x', commit_message: 'x' }).expect(201);
    await t
      .api('post', `/projects/${b.id}/releases`)
      .send({ tag_name: 'v1', ref: 'main', milestones: ['1.0'] })
      .expect(201);

    const developer = await member('groups', group.id, 30);
    await t.api('post', `/projects/${a.id}/milestones/${ma.id}/promote`, developer.token).expect(403);
    const res = await t.api('post', `/projects/${a.id}/milestones/${ma.id}/promote`).expect(200);
    expect(res.body).toBe(200);
    const [promoted] = (await t.api('get', `/groups/${group.id}/milestones?title=1.0`).expect(200)).body;
    expect(promoted).toMatchObject({ title: '1.0', description: 'first', due_date: '2030-01-01', group_id: group.id });
    await t.api('get', `/projects/${a.id}/milestones/${ma.id}`).expect(404);
    await t.api('get', `/projects/${b.id}/milestones/${mb.id}`).expect(404);
    const release = (await t.api('get', `/projects/${b.id}/releases/v1`).expect(200)).body;
    expect(release.milestones.map((m: { id: number }) => m.id)).toEqual([promoted.id]);

    // The group already has that title now.
    const again = (await t.api('post', `/projects/${a.id}/milestones`).send({ title: '1.0' }).expect(201)).body;
    await t.api('post', `/projects/${a.id}/milestones/${again.id}/promote`).expect(400, { message: 'Promotion failed - Title has already been taken' });
    // A personal project has no group to promote to.
    const own = (await t.api('post', '/projects').send({ name: 'mine' }).expect(201)).body;
    const mo = (await t.api('post', `/projects/${own.id}/milestones`).send({ title: 'solo' }).expect(201)).body;
    await t.api('post', `/projects/${own.id}/milestones/${mo.id}/promote`).expect(403);
  });

  it('is driven by @gitbeaker/rest', async () => {
    const { group, projects } = await groupWithProjects();
    const p = projects[0];
    const m = await api.ProjectMilestones.create(p.id, 'beaker', { dueDate: '2031-01-01T00:00:00Z' });
    expect(m.due_date).toBe('2031-01-01');
    expect(await api.ProjectMilestones.allAssignedIssues(p.id, m.id)).toEqual([]);
    expect(await api.ProjectMilestones.allAssignedMergeRequests(p.id, m.id)).toEqual([]);
    await api.ProjectMilestones.promote(p.id, m.id);
    const [gm] = await api.GroupMilestones.all(group.id, { title: 'beaker' });
    expect(gm).toMatchObject({ title: 'beaker', due_date: '2031-01-01' });
    await api.GroupMilestones.remove(group.id, gm!.id);
    expect(await api.GroupMilestones.all(group.id)).toEqual([]);
  });
});

describe('labels', () => {
  it('subscribes and unsubscribes the viewer, 304 when unchanged; subscribed shows per viewer', async () => {
    const { group, projects } = await groupWithProjects();
    const p = projects[0];
    const label = (await t.api('post', `/projects/${p.id}/labels`).send({ name: 'bug', color: '#ff0000' }).expect(201)).body;
    const groupLabel = (await t.api('post', `/groups/${group.id}/labels`).send({ name: 'shared', color: 'red' }).expect(201)).body;
    expect(label.subscribed).toBe(false);
    const guest = await member('projects', p.id, 10);
    const sub = await t.api('post', `/projects/${p.id}/labels/${label.id}/subscribe`, guest.token).expect(201);
    expect(sub.body).toMatchObject({ id: label.id, name: 'bug', subscribed: true });
    const again = await t.api('post', `/projects/${p.id}/labels/${label.id}/subscribe`, guest.token).expect(304);
    expect(again.text).toBe('');
    expect((await t.api('get', `/projects/${p.id}/labels/bug`, guest.token).expect(200)).body.subscribed).toBe(true);
    expect((await t.api('get', `/projects/${p.id}/labels/bug`).expect(200)).body.subscribed).toBe(false);
    // By title, and a group label seen from the project.
    expect((await t.api('post', `/projects/${p.id}/labels/shared/subscribe`, guest.token).expect(201)).body).toMatchObject({
      id: groupLabel.id,
      subscribed: true,
    });
    expect((await t.api('post', `/groups/${group.id}/labels/shared/unsubscribe`).expect(304)).text).toBe('');
    expect((await t.api('post', `/projects/${p.id}/labels/bug/unsubscribe`, guest.token).expect(201)).body.subscribed).toBe(false);
    await t.api('post', `/projects/${p.id}/labels/bug/unsubscribe`, guest.token).expect(304);
    await t.api('post', `/projects/${p.id}/labels/nope/subscribe`).expect(404, { message: '404 Label Not Found' });
    const stranger = await t.user();
    await t.api('post', `/projects/${p.id}/labels/bug/subscribe`, stranger.token).expect(404, { message: '404 Project Not Found' });
    await t.api('post', `/projects/${p.id}/labels/bug/subscribe`, null).expect(401);
  });

  it('reads subscribed for a page of labels in a fixed number of statements (twin over GraphQL)', async () => {
    const { projects } = await groupWithProjects();
    const p = projects[0];
    for (const name of ['a', 'b']) await t.api('post', `/projects/${p.id}/labels`).send({ name, color: '#000000' }).expect(201);
    await t.api('post', `/projects/${p.id}/labels/a/subscribe`).expect(201);
    const list = () => t.api('get', `/projects/${p.id}/labels`).expect(200);
    await expectCounterSees(t, list);
    const before = await countQueries(t, list);
    for (const name of ['c', 'd', 'e']) await t.api('post', `/projects/${p.id}/labels`).send({ name, color: '#000000' }).expect(201);
    await t.api('post', `/projects/${p.id}/labels/d/subscribe`).expect(201);
    expect(await countQueries(t, list)).toBe(before);
    const rest = (await list()).body.map((l: { name: string; subscribed: boolean }) => [l.name, l.subscribed]);
    const gql = await t.graphql(`{ project(id: ${p.id}) { labels { nodes { title subscribed } } } }`);
    expect(gql.body.data.project.labels.nodes.map((l: { title: string; subscribed: boolean }) => [l.title, l.subscribed])).toEqual(rest);
    expect(rest).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
      ['d', true],
      ['e', false],
    ]);
  });

  it('promotes a project label to the group, merging same-titled labels and their subscribers', async () => {
    const { group, projects } = await groupWithProjects(2);
    const [a, b] = projects;
    const la = (await t.api('post', `/projects/${a.id}/labels`).send({ name: 'ux', color: '#00ff00', description: 'design' }).expect(201)).body;
    const lb = (await t.api('post', `/projects/${b.id}/labels`).send({ name: 'ux', color: '#0000ff' }).expect(201)).body;
    const follower = await member('groups', group.id, 10);
    await t.api('post', `/projects/${b.id}/labels/${lb.id}/subscribe`, follower.token).expect(201);
    const reporter = await member('projects', a.id, 20);
    await t.api('put', `/projects/${a.id}/labels/${la.id}/promote`, reporter.token).expect(403);
    const promoted = (await t.api('put', `/projects/${a.id}/labels/ux/promote`).expect(200)).body;
    expect(promoted).toMatchObject({ name: 'ux', color: '#00FF00', description: 'design', is_project_label: false });
    expect((await t.api('get', `/groups/${group.id}/labels`).expect(200)).body.map((l: { name: string }) => l.name)).toEqual(['ux']);
    expect((await t.api('get', `/projects/${b.id}/labels?include_ancestor_groups=false`).expect(200)).body).toEqual([]);
    expect((await t.api('get', `/projects/${b.id}/labels/ux`, follower.token).expect(200)).body).toMatchObject({ id: promoted.id, subscribed: true });
    await t.api('put', `/projects/${a.id}/labels/ux/promote`).expect(404, { message: '404 Label Not Found' });
    const own = (await t.api('post', '/projects').send({ name: 'solo-labels' }).expect(201)).body;
    await t.api('post', `/projects/${own.id}/labels`).send({ name: 'x', color: '#000000' }).expect(201);
    await t.api('put', `/projects/${own.id}/labels/x/promote`).expect(403);
  });

  it('is driven by @gitbeaker/rest', async () => {
    const { group, projects } = await groupWithProjects();
    const p = projects[0];
    await api.ProjectLabels.create(p.id, 'beaker', '#123456');
    // gitbeaker 43.8's ProjectLabels.subscribe/unsubscribe post to `issues/:id/subscribe` (its own bug), so
    // the label subscription routes are driven through REST above only.
    expect(await api.ProjectLabels.promote(p.id, 'beaker')).toMatchObject({ name: 'beaker', is_project_label: false });
    expect((await api.GroupLabels.all(group.id)).map((l) => l.name)).toEqual(['beaker']);
  });
});
