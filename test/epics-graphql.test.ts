import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeDates } from '../src/modules/epics/store.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
type Group = { id: number; full_path: string };
type EpicNode = {
  databaseId: number;
  iid: string;
  title: string;
  confidential: boolean;
  parent: { databaseId: number } | null;
  labels: { nodes: { title: string }[] };
  startDate: string | null;
  dueDate: string | null;
  startDateFixed: string | null;
  upvotes: number;
  references: { relative: string };
};
type RestEpic = {
  id: number;
  iid: number;
  title: string;
  confidential: boolean;
  parent_id: number | null;
  labels: string[];
  start_date: string | null;
  due_date: string | null;
  start_date_fixed?: string | null;
  upvotes: number;
  references: { relative: string };
};
let acme: Group;
let guest: Awaited<ReturnType<TestApp['user']>>;
let reporter: Awaited<ReturnType<TestApp['user']>>;

async function member(group: Group, level: number, name: string) {
  const user = await t.user(name);
  await t.api('post', `/groups/${group.id}/members`).send({ user_id: user.id, access_level: level }).expect(201);
  return user;
}

/** Runs a GraphQL request and returns `data`, failing on any error. */
async function gql(query: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = await t.graphql(query, variables, token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const EPIC_FIELDS = `id iid title confidential state description
  author { username } parent { iid } labels { nodes { title } }
  startDate dueDate startDateIsFixed startDateFixed upvotes downvotes
  references { short relative full } webUrl`;

beforeAll(async () => {
  t = await createTestApp();
  acme = (await t.api('post', '/groups').send({ name: 'acme', path: 'acme', visibility: 'public' }).expect(201)).body;
  await t.api('post', '/groups').send({ name: 'sub', path: 'sub', parent_id: acme.id, visibility: 'public' }).expect(201);
  guest = await member(acme, 10, 'gus');
  reporter = await member(acme, 20, 'alice');
  await t.api('post', `/groups/${acme.id}/labels`).send({ name: 'bug', color: '#FF0000' }).expect(201);
});
afterAll(() => t.close());

describe('mutations', () => {
  it('createEpic: one input, clientMutationId back, typed global ids, errors in the payload', async () => {
    const data = await gql(`mutation($input: CreateEpicInput!) { createEpic(input: $input) { clientMutationId errors epic { ${EPIC_FIELDS} } } }`, {
      input: {
        groupPath: 'acme',
        title: 'Roadmap',
        description: 'Plan',
        addLabels: ['bug'],
        startDateIsFixed: true,
        startDateFixed: '2025-01-01',
        clientMutationId: 'abc',
      },
    });
    expect(data.createEpic).toMatchObject({
      clientMutationId: 'abc',
      errors: [],
      epic: {
        id: expect.stringMatching(/^gid:\/\/gitlab\/Epic\/\d+$/),
        iid: '1',
        title: 'Roadmap',
        confidential: false,
        state: 'opened',
        author: { username: 'root' },
        parent: null,
        labels: { nodes: [{ title: 'bug' }] },
        startDate: '2025-01-01T00:00:00.000Z',
        startDateIsFixed: true,
        references: { short: '&1', relative: '&1', full: 'acme&1' },
        webUrl: 'http://gitlab.test/groups/acme/-/epics/1',
      },
    });
    const invalid = await gql(`mutation { createEpic(input: { groupPath: "acme", title: " " }) { errors epic { id } } }`);
    expect(invalid.createEpic).toEqual({ errors: ["Title can't be blank"], epic: null });
  });

  it('updateEpic with stateEvent, labels and parentId; destroyEpic', async () => {
    const parent = (await gql(`mutation { createEpic(input: { groupPath: "acme", title: "Parent" }) { epic { id iid } } }`)).createEpic.epic;
    const child = (await gql(`mutation { createEpic(input: { groupPath: "acme/sub", title: "Child" }) { epic { id iid } } }`)).createEpic.epic;
    const updated = await gql(
      `mutation($input: UpdateEpicInput!) { updateEpic(input: $input) { errors epic { state closedAt parent { id } labels { nodes { title } } references { relative } } } }`,
      { input: { groupPath: 'acme/sub', iid: child.iid, stateEvent: 'CLOSE', addLabels: ['bug'], parentId: parent.id } },
    );
    expect(updated.updateEpic).toMatchObject({
      errors: [],
      epic: {
        state: 'closed',
        closedAt: expect.any(String),
        parent: { id: parent.id },
        labels: { nodes: [{ title: 'bug' }] },
        references: { relative: `&${child.iid}` },
      },
    });
    const tree = await gql(`{ group(fullPath: "acme") { epic(iid: "${parent.iid}") {
      hasChildren descendantCounts { openedEpics closedEpics }
      children { totalCount nodes { iid references { relative } ancestors { nodes { iid } } } } } } }`);
    expect(tree.group.epic).toEqual({
      hasChildren: true,
      descendantCounts: { openedEpics: 0, closedEpics: 1 },
      children: { totalCount: 1, nodes: [{ iid: child.iid, references: { relative: `acme/sub&${child.iid}` }, ancestors: { nodes: [{ iid: parent.iid }] } }] },
    });
    const empty = await gql(`mutation { updateEpic(input: { groupPath: "acme", iid: "${parent.iid}" }) { errors epic { id } } }`);
    expect(empty.updateEpic).toEqual({ errors: ['The list of epic attributes is empty'], epic: null });
    const removed = await gql(
      `mutation { destroyEpic(input: { groupPath: "acme", iid: "${parent.iid}", clientMutationId: "d" }) { clientMutationId errors epic { title } } }`,
    );
    expect(removed.destroyEpic).toEqual({ clientMutationId: 'd', errors: [], epic: { title: 'Parent' } });
    expect((await gql(`{ group(fullPath: "acme/sub") { epic(iid: "${child.iid}") { parent { id } } } }`)).group.epic.parent).toBeNull();
  });

  it('epicAddChild and epicMoveChild nest and un-nest, with the hierarchy rules', async () => {
    const make = async (title: string) =>
      (await gql(`mutation { createEpic(input: { groupPath: "acme", title: "${title}" }) { epic { id iid } } }`)).createEpic.epic;
    const [a, b] = [await make('Tree A'), await make('Tree B')];
    const added = await gql(
      `mutation { epicAddChild(input: { groupPath: "acme", iid: "${a.iid}", childId: "${b.id}" }) { errors epic { children { nodes { id } } } } }`,
    );
    expect(added.epicAddChild).toEqual({ errors: [], epic: { children: { nodes: [{ id: b.id }] } } });
    const again = await gql(`mutation { epicAddChild(input: { groupPath: "acme", iid: "${a.iid}", childId: "${b.id}" }) { errors } }`);
    expect(again.epicAddChild.errors).toEqual(['Parent This epic cannot be added. It is already assigned to the parent epic.']);
    const cycle = await gql(`mutation { epicMoveChild(input: { id: "${a.id}", newParentId: "${b.id}" }) { errors epic { id } } }`);
    expect(cycle.epicMoveChild).toEqual({ errors: ['Parent This epic cannot be added. It is already an ancestor of the parent epic.'], epic: null });
    const top = await gql(`mutation { epicMoveChild(input: { id: "${b.id}", newParentId: null }) { errors epic { parent { id } } } }`);
    expect(top.epicMoveChild).toEqual({ errors: [], epic: { parent: null } });
    const bad = await gql(`mutation { epicMoveChild(input: { id: "gid://gitlab/Project/1" }) { errors } }`);
    expect(bad.epicMoveChild.errors).toEqual(['id: "gid://gitlab/Project/1" is not a valid Global ID of type Epic']);
  });

  it('epicSetSubscription, todoCreate (null when pending), awardEmojiAdd and awardEmojiRemove', async () => {
    const epic = (await gql(`mutation { createEpic(input: { groupPath: "acme", title: "Social" }) { epic { id iid } } }`)).createEpic.epic;
    const subscribed = `{ group(fullPath: "acme") { epic(iid: "${epic.iid}") { subscribed } } }`;
    expect((await gql(subscribed, {}, guest.token)).group.epic.subscribed).toBe(false);
    expect((await gql(subscribed)).group.epic.subscribed).toBe(true);
    await gql(`mutation { epicSetSubscription(input: { groupPath: "acme", iid: "${epic.iid}", subscribedState: true }) { errors } }`, {}, guest.token);
    expect((await gql(subscribed, {}, guest.token)).group.epic.subscribed).toBe(true);
    await gql(`mutation { epicSetSubscription(input: { groupPath: "acme", iid: "${epic.iid}", subscribedState: false }) { errors } }`);
    expect((await gql(subscribed)).group.epic.subscribed).toBe(false);

    const todo = `mutation { todoCreate(input: { targetId: "${epic.id}" }) { errors todo { id action state targetType body target { id } author { username } } } }`;
    expect((await gql(todo, {}, guest.token)).todoCreate).toEqual({
      errors: [],
      todo: {
        id: expect.stringMatching(/^gid:\/\/gitlab\/Todo\/\d+$/),
        action: 'marked',
        state: 'pending',
        targetType: 'EPIC',
        body: 'Social',
        target: { id: epic.id },
        author: { username: 'gus' },
      },
    });
    expect((await gql(todo, {}, guest.token)).todoCreate).toEqual({ errors: [], todo: null });

    const award = await gql(
      `mutation { awardEmojiAdd(input: { awardableId: "${epic.id}", name: "thumbsdown" }) { errors awardEmoji { name emoji user { username } } } }`,
      {},
      guest.token,
    );
    expect(award.awardEmojiAdd).toEqual({ errors: [], awardEmoji: { name: 'thumbsdown', emoji: '👎', user: { username: 'gus' } } });
    expect((await gql(`{ group(fullPath: "acme") { epic(iid: "${epic.iid}") { downvotes awardEmoji { nodes { name } } } } }`)).group.epic).toEqual({
      downvotes: 1,
      awardEmoji: { nodes: [{ name: 'thumbsdown' }] },
    });
    const removed = await gql(`mutation { awardEmojiRemove(input: { awardableId: "${epic.id}", name: "thumbsdown" }) { errors } }`, {}, guest.token);
    expect(removed.awardEmojiRemove.errors).toEqual([]);
    const missing = await gql(`mutation { awardEmojiRemove(input: { awardableId: "${epic.id}", name: "thumbsdown" }) { errors } }`, {}, guest.token);
    expect(missing.awardEmojiRemove.errors).toEqual(['User has not awarded emoji of type thumbsdown on the awardable']);
  });

  it('refuses writes the way REST does: anonymous, too low a role, invisible group', async () => {
    const anonymous = await t.graphql(`mutation { createEpic(input: { groupPath: "acme", title: "x" }) { errors } }`, {}, null);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const low = await t.graphql(`mutation { createEpic(input: { groupPath: "acme", title: "x" }) { errors } }`, {}, guest.token);
    expect(low.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const missing = await t.graphql(`mutation { createEpic(input: { groupPath: "nowhere", title: "x" }) { errors } }`, {}, guest.token);
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('Group.epics arguments', () => {
  it('refuses authorId with authorUsername, as REST refuses author_id with author_username', async () => {
    const res = await t.graphql(`{ group(fullPath: "acme") { epics(authorId: 1, authorUsername: "root") { nodes { iid } } } }`);
    expect(res.body.errors[0]).toMatchObject({ message: 'authorId, authorUsername are mutually exclusive', extensions: { code: 'BAD_PARAMETER' } });
    await t.api('post', '/groups').send({ name: 'iids', path: 'iids', visibility: 'public' }).expect(201);
    for (const title of ['First', 'Second', 'Third']) await t.api('post', '/groups/iids/epics').send({ title }).expect(201);
    const one = await gql(`{ group(fullPath: "iids") { epics(iid: "2") { nodes { iid title } } } }`);
    expect(one.group.epics.nodes).toEqual([{ iid: '2', title: 'Second' }]);
    const some = await gql(`{ group(fullPath: "iids") { epics(iids: ["1", "3"], sort: CREATED_AT_ASC) { nodes { title } } } }`);
    expect(some.group.epics.nodes).toEqual([{ title: 'First' }, { title: 'Third' }]);
  });
});

describe('twins: the same viewer gets the same epics over REST and GraphQL', () => {
  beforeAll(async () => {
    const create = (path: string, title: string, extra = {}) =>
      t
        .api('post', `/groups/${encodeURIComponent(path)}/epics`)
        .send({ title, ...extra })
        .expect(201);
    const top = (await create('acme', 'Twin top', { labels: 'bug', due_date_is_fixed: true, due_date_fixed: '2026-01-31' })).body;
    await create('acme', 'Twin secret', { confidential: true });
    await create('acme/sub', 'Twin child', { parent_id: top.id, start_date_is_fixed: true, start_date_fixed: '2025-12-01' });
    const reacted = (await create('acme', 'Twin reacted')).body;
    await t.api('post', `/groups/${acme.id}/epics/${reacted.iid}/award_emoji`, guest.token).send({ name: 'thumbsup' }).expect(201);
  });

  const viewers = () =>
    [
      ['anonymous', null],
      ['guest', guest.token],
      ['reporter', reporter.token],
    ] as const;

  const cases: [string, string, Record<string, unknown>][] = [
    ['everything', '', {}],
    ['labels', 'labels=bug', { labelName: ['bug'] }],
    ['search and sort', 'search=twin&order_by=title&sort=asc', { search: 'twin', sort: 'TITLE_ASC' }],
    ['state', 'state=opened', { state: 'opened' }],
    ['reaction', 'my_reaction_emoji=thumbsup', { myReactionEmoji: 'thumbsup' }],
    ['not', 'not[labels]=bug', { not: { labelName: ['bug'] } }],
    ['subgroup only', 'include_descendant_groups=false', { includeDescendantGroups: false }],
  ];

  for (const [name, query, args] of cases) {
    it(name, async () => {
      let seen = 0;
      for (const [who, token] of viewers()) {
        const rest = (await t.api('get', `/groups/${acme.id}/epics?per_page=100&${query}`, token).expect(200)).body;
        const data = await gql(
          `query($args: NegatedEpicFilterInput, $labelName: [String!], $search: String, $sort: EpicSort, $state: EpicState, $myReactionEmoji: String, $includeDescendantGroups: Boolean) {
            group(fullPath: "acme") { epics(first: 100, not: $args, labelName: $labelName, search: $search, sort: $sort, state: $state, myReactionEmoji: $myReactionEmoji, includeDescendantGroups: $includeDescendantGroups) {
              nodes { databaseId iid title confidential parent { databaseId } labels { nodes { title } } startDate dueDate startDateFixed upvotes references { relative } } } } }`,
          { ...args, args: args.not },
          token,
        );
        const graph = data.group.epics.nodes.map((e: EpicNode) => ({
          id: e.databaseId,
          iid: Number(e.iid),
          title: e.title,
          confidential: String(e.confidential),
          parent_id: e.parent?.databaseId ?? null,
          labels: e.labels.nodes.map((l: { title: string }) => l.title),
          start_date: e.startDate?.slice(0, 10) ?? null,
          due_date: e.dueDate?.slice(0, 10) ?? null,
          ...(e.startDateFixed !== null || who === 'reporter' ? { start_date_fixed: e.startDateFixed?.slice(0, 10) ?? null } : {}),
          upvotes: e.upvotes,
          relative: e.references.relative,
        }));
        const shaped = rest.map((e: RestEpic) => ({
          id: e.id,
          iid: e.iid,
          title: e.title,
          confidential: e.confidential,
          parent_id: e.parent_id,
          labels: e.labels,
          start_date: e.start_date,
          due_date: e.due_date,
          ...('start_date_fixed' in e ? { start_date_fixed: e.start_date_fixed } : {}),
          upvotes: e.upvotes,
          relative: e.references.relative,
        }));
        expect(graph, `${name} as ${who}`).toEqual(shaped);
        seen += shaped.length;
      }
      // Comparing empty lists would prove nothing.
      expect(seen).toBeGreaterThan(0);
    });
  }

  it('the confidential epic is in the reporter twin and not in the guest twin', async () => {
    const names = async (token: string | null) =>
      (await t.api('get', `/groups/${acme.id}/epics?per_page=100`, token).expect(200)).body.map((e: { title: string }) => e.title);
    expect(await names(reporter.token)).toContain('Twin secret');
    expect(await names(guest.token)).not.toContain('Twin secret');
  });
});

describe('query count', () => {
  /** A group with `count` epics, each with two labels, an author out of ten, and (after the first) a parent. */
  async function groupWithEpics(path: string, count: number) {
    const group = (await t.api('post', '/groups').send({ name: path, path, visibility: 'public' }).expect(201)).body;
    const labels = await Promise.all(['l1', 'l2'].map((name) => t.db.label.create({ data: { groupId: group.id, name, color: '#123456' } })));
    const authors = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.db.user.create({ data: { username: `${path}-a${i}`, name: `A${i}`, email: `${path}-a${i}@example.com` } })),
    );
    let parentId: number | null = null;
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const created: { id: number } = await t.db.epic.create({
        data: {
          groupId: group.id,
          iid: i + 1,
          title: `Epic ${i}`,
          authorId: authors[i % 10].id,
          // Chains of three, so parents and inherited dates have something to find.
          parentId: i % 3 === 0 ? null : parentId,
          startDateIsFixed: i % 2 === 0,
          startDateFixed: new Date(Date.UTC(2025, 0, 1 + i)),
          labels: { create: labels.map((l) => ({ labelId: l.id })) },
        },
      });
      parentId = created.id;
      ids.push(created.id);
    }
    // Rows written past the service: their stored composite dates as the service would keep them.
    await recomputeDates(t.db, ids);
    return group as Group;
  }

  /** SQL statements of one request, after a warm-up that settles token bookkeeping. */
  async function sqlOf(run: () => Promise<unknown>) {
    await run();
    await new Promise((r) => setTimeout(r, 50));
    t.queryCounter.reset();
    await run();
    return t.queryCounter.count;
  }

  it('is the same for 5 and 100 epics with parents, labels and authors, over REST and GraphQL', async () => {
    const few = await groupWithEpics('few', 5);
    const many = await groupWithEpics('many', 100);
    const rest = (g: Group, size: number) => async () => {
      const res = await t.api('get', `/groups/${g.id}/epics?per_page=100&with_labels_details=true`).expect(200);
      expect(res.body).toHaveLength(size);
      expect(res.body.filter((e: { parent_id: number | null }) => e.parent_id != null).length).toBeGreaterThan(size / 2);
      expect(res.body[0].labels).toHaveLength(2);
    };
    const graphql = (g: Group, size: number) => async () => {
      const data = await gql(`{ group(fullPath: "${g.full_path}") { epics(first: 100) { nodes {
        iid title author { username } parent { iid title author { username } } labels { nodes { title } }
        ancestors { nodes { iid } } children { nodes { iid } } startDate dueDate upvotes downvotes subscribed
        descendantCounts { openedEpics } references { full } webUrl userPermissions { adminEpic createEpic }
        participants { nodes { username } } currentUserTodos { nodes { id } } hasChildrenWithinTimeframe relationPath
        blocked blockedByCount blockingCount issues { nodes { id } } hasIssues descendantWeightSum { openedIssues }
        healthStatus { issuesAtRisk } userDiscussionsCount } } } }`);
      expect(data.group.epics.nodes).toHaveLength(size);
    };
    // The roadmap's list: by the composite dates, within a timeframe, each epic's children within it too.
    const roadmap = (g: Group, size: number) => async () => {
      const data = await gql(`{ group(fullPath: "${g.full_path}") {
        epics(first: 100, sort: START_DATE_ASC, timeframe: { start: "2025-01-01", end: "2026-12-31" }) { count nodes {
          iid startDate dueDate hasChildren hasChildrenWithinTimeframe parent { iid } descendantCounts { openedEpics } } } } }`);
      // Epics without any date are outside every timeframe.
      expect(data.group.epics.nodes).toHaveLength(data.group.epics.count);
      expect(data.group.epics.count).toBeGreaterThan(size / 2);
    };
    const restFew = await sqlOf(rest(few, 5));
    const restMany = await sqlOf(rest(many, 100));
    const gqlFew = await sqlOf(graphql(few, 5));
    const gqlMany = await sqlOf(graphql(many, 100));
    const roadmapFew = await sqlOf(roadmap(few, 5));
    const roadmapMany = await sqlOf(roadmap(many, 100));
    expect(restMany).toBe(restFew);
    expect(gqlMany).toBe(gqlFew);
    expect(roadmapMany).toBe(roadmapFew);
    // Positive control: the counter sees every statement, so a lookup per epic would show.
    t.queryCounter.reset();
    for (const e of await t.db.epic.findMany({ where: { groupId: many.id }, select: { id: true } })) await t.db.epic.findUnique({ where: { id: e.id } });
    expect(t.queryCounter.count).toBeGreaterThanOrEqual(100);
    expect(restFew).toBeGreaterThanOrEqual(8);
  });
});

describe('epicTreeReorder under concurrency', () => {
  it('renumbers the siblings under the tree lock: concurrent moves leave each child once, at distinct positions', async () => {
    const make = async (title: string, parentId?: number) =>
      (
        await t
          .api('post', `/groups/${acme.id}/epics`)
          .send({ title, ...(parentId && { parent_id: parentId }) })
          .expect(201)
      ).body as { id: number; iid: number };
    const parent = await make('Tree root');
    const children = [];
    for (const title of ['First', 'Second', 'Third', 'Fourth']) children.push(await make(title, parent.id));
    const reorder = `mutation($input: EpicTreeReorderInput!) { epicTreeReorder(input: $input) { errors } }`;
    const move = (moved: number, adjacent: number, relativePosition: 'before' | 'after') =>
      gql(reorder, {
        input: {
          baseEpicId: `gid://gitlab/Epic/${parent.id}`,
          moved: { id: `gid://gitlab/Epic/${moved}`, adjacentReferenceId: `gid://gitlab/Epic/${adjacent}`, relativePosition },
        },
      });
    const answers = await Promise.all([
      move(children[3].id, children[0].id, 'after'),
      move(children[2].id, children[1].id, 'before'),
      move(children[0].id, children[3].id, 'before'),
    ]);
    for (const answer of answers) expect(answer.epicTreeReorder.errors).toEqual([]);
    const rows = await t.db.epic.findMany({ where: { parentId: parent.id }, orderBy: { relativePosition: 'asc' } });
    expect(rows.map((r) => r.id).sort()).toEqual(children.map((c) => c.id).sort());
    expect(rows.map((r) => r.relativePosition)).toEqual([1000, 2000, 3000, 4000]);
    // GraphQL lists them in that order.
    const data = await gql(`query($iid: ID) { group(fullPath: "acme") { epic(iid: $iid) { children { nodes { databaseId relativePosition } } } } }`, {
      iid: String(parent.iid),
    });
    expect(data.group.epic.children.nodes).toEqual(rows.map((r) => ({ databaseId: r.id, relativePosition: r.relativePosition })));
  });
});
