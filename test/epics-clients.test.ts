import { EpicAwardEmojis, Epics } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let host: string;
let groupId: number;

beforeAll(async () => {
  t = await createTestApp();
  host = t.base;
  groupId = (await t.api('post', '/groups').send({ name: 'Planning', path: 'planning', visibility: 'public' }).expect(201)).body.id;
});
afterAll(async () => {
  await t.close();
});

/** The status of a request gitbeaker rejected. */
const statusOf = async (request: Promise<unknown>) => {
  try {
    await request;
  } catch (error) {
    return (error as { cause?: { response?: { status: number } } }).cause?.response?.status;
  }
  throw new Error('the request succeeded');
};

describe('@gitbeaker/rest Epics', () => {
  it('creates, lists with filters, shows, edits and removes epics', async () => {
    const epics = new Epics({ host, token: t.root.token });
    const roadmap = await epics.create(groupId, 'Roadmap', { labels: 'plan', description: 'Q1 goals' });
    expect(roadmap).toMatchObject({ iid: 1, title: 'Roadmap', labels: ['plan'], confidential: 'false', group_id: groupId });
    const child = await epics.create(groupId, 'Milestone one', { parentId: roadmap.id, confidential: false });
    expect(child).toMatchObject({ parent_id: roadmap.id, parent_iid: 1 });

    expect((await epics.all(groupId)).map((e) => e.title)).toEqual(['Milestone one', 'Roadmap']);
    expect((await epics.all(groupId, { labels: 'plan' })).map((e) => e.title)).toEqual(['Roadmap']);
    expect((await epics.all(groupId, { search: 'milestone', orderBy: 'title', sort: 'asc' })).map((e) => e.title)).toEqual(['Milestone one']);
    // gitbeaker follows the Link header across pages.
    expect((await epics.all(groupId, { perPage: 1 })).map((e) => e.iid)).toEqual([2, 1]);

    const shown = await epics.show(groupId, roadmap.iid);
    expect(shown).toMatchObject({ title: 'Roadmap', subscribed: true });
    const closed = await epics.edit(groupId, roadmap.iid, { stateEvent: 'close', addLabels: 'done' });
    expect(closed).toMatchObject({ state: 'closed', labels: ['done', 'plan'] });
    expect(closed.closed_at).toEqual(expect.any(String));

    expect(await epics.remove(groupId, roadmap.iid)).toBeNull();
    expect(await statusOf(epics.show(groupId, roadmap.iid))).toBe(403);
    expect((await epics.show(groupId, child.iid)).parent_id).toBeNull();
  });

  it('reports errors with their status: missing token, bad parameters', async () => {
    expect(await statusOf(new Epics({ host, token: 'glpat-not-a-real-token-000' }).all(groupId))).toBe(401);
    const epics = new Epics({ host, token: t.root.token });
    expect(await statusOf(epics.all(groupId, { authorId: 1, authorUsername: 'root' }))).toBe(400);
    expect(await statusOf(epics.edit(groupId, 999, {}))).toBe(400);
  });

  it("createTodo goes to GitLab's non-existent /todos path (a client bug) and gets GitLab's 404", async () => {
    const epics = new Epics({ host, token: t.root.token });
    const epic = await epics.create(groupId, 'Todo target');
    expect(await statusOf(epics.createTodo(groupId, epic.iid))).toBe(404);
    // The real route is singular.
    const res = await fetch(`${host}/api/v4/groups/${groupId}/epics/${epic.iid}/todo`, { method: 'POST', headers: { 'PRIVATE-TOKEN': t.root.token } });
    expect(res.status).toBe(201);
  });
});

describe('@gitbeaker/rest EpicAwardEmojis', () => {
  it('awards, lists and removes through the award emoji resource', async () => {
    const epic = await new Epics({ host, token: t.root.token }).create(groupId, 'Reactions');
    // gitbeaker 43.8 builds `epics/:id/issues/:iid/award_emoji`, which is no GitLab route; pointed
    // at GitLab's `groups/:id/epics/:iid/award_emoji`, the same resource code drives it.
    const awards = new EpicAwardEmojis({ host, token: t.root.token, prefixUrl: 'groups' });
    (awards as unknown as { resourceType2: string }).resourceType2 = 'epics';
    const up = await awards.award(groupId, epic.iid, 'thumbsup');
    expect(up).toMatchObject({ name: 'thumbsup', awardable_id: epic.id, awardable_type: 'Epic' });
    await awards.award(groupId, epic.iid, 'rocket');
    expect((await awards.all(groupId, epic.iid)).map((a) => a.name)).toEqual(['thumbsup', 'rocket']);
    expect(await statusOf(awards.award(groupId, epic.iid, 'thumbsup'))).toBe(400);
    await awards.remove(groupId, epic.iid, up.id);
    expect((await awards.all(groupId, epic.iid)).map((a) => a.name)).toEqual(['rocket']);
    expect((await new Epics({ host, token: t.root.token }).show(groupId, epic.iid)).upvotes).toBe(0);
  });
});
