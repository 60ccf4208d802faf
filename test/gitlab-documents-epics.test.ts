// GitLab's epic screens, as their frontend asks: our own documents selecting the fields, arguments
// and variable types of the documents GitLab's web UI sends for the epics list, the roadmap, the
// epic tree, the epic select dropdown, the epic sidebar (participants, subscription, to-do,
// confidentiality, dates, labels, ancestors, reference) and the epic forms. Each names the screen
// it stands for and asserts the data it gets back; queries run on both executors (compared).
// Two differences from GitLab's own files, until those land with other areas: users are selected
// without `webPath`/`status`, and cursors are passed as null where GitLab's defaults are "".
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationComplexity } from '../src/graphql/operation-checks.ts';
import { schema } from '../src/kernel.ts';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';

type Group = { id: number; full_path: string };
type User = Awaited<ReturnType<TestApp['user']>>;
type RestEpic = { id: number; iid: number; title: string };

let t: TestApp;
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
let roadmap: Group;
let team: Group;
let reporter: User;
let guest: User;
let outsider: User;
const epics = {} as Record<'platform' | 'search' | 'billing' | 'docs' | 'mobile' | 'secret', RestEpic>;
const labels = {} as Record<'frontend' | 'backend', { id: number }>;

/** Runs a document and returns its data; any error fails with its messages. Queries run on both executors. */
async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*(#.*\n\s*)*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const gid = (className: string, id: number) => `gid://gitlab/${className}/${id}`;
const day = (date: string) => `${date}T00:00:00.000Z`;

async function epic(g: Group, body: Record<string, unknown>, token = t.root.token): Promise<RestEpic> {
  return (await t.api('post', `/groups/${g.id}/epics`, token).send(body).expect(201)).body;
}

const fixed = (start: string, due: string) => ({ start_date_is_fixed: true, start_date_fixed: start, due_date_is_fixed: true, due_date_fixed: due });

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  roadmap = (await t.api('post', '/groups').send({ name: 'Roadmap', path: 'roadmap', visibility: 'private' }).expect(201)).body;
  team = (await t.api('post', '/groups').send({ name: 'Team', path: 'team', parent_id: roadmap.id, visibility: 'private' }).expect(201)).body;
  reporter = await t.user('rhea');
  guest = await t.user('gil');
  outsider = await t.user('otto');
  await t.api('post', `/groups/${roadmap.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
  await t.api('post', `/groups/${roadmap.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
  labels.frontend = (await t.api('post', `/groups/${roadmap.id}/labels`).send({ name: 'frontend', color: '#428BCA' }).expect(201)).body;
  labels.backend = (await t.api('post', `/groups/${roadmap.id}/labels`).send({ name: 'backend', color: '#FF0000' }).expect(201)).body;
  epics.platform = await epic(roadmap, { title: 'Platform', description: 'The *platform*', labels: 'frontend', ...fixed('2026-01-01', '2026-06-30') });
  epics.search = await epic(
    roadmap,
    { title: 'Search', labels: 'backend', parent_id: epics.platform.id, ...fixed('2026-02-01', '2026-03-31') },
    reporter.token,
  );
  epics.billing = await epic(roadmap, { title: 'Billing', parent_id: epics.platform.id, ...fixed('2027-01-01', '2027-02-01') });
  epics.docs = await epic(roadmap, { title: 'Docs' });
  epics.mobile = await epic(team, { title: 'Mobile', labels: 'frontend,backend', ...fixed('2025-10-01', '2026-01-15') }, reporter.token);
  epics.secret = await epic(roadmap, { title: 'Secret', confidential: true, ...fixed('2026-04-01', '2026-04-30') });
  await t.api('post', `/groups/${roadmap.id}/epics/${epics.platform.iid}/todo`, reporter.token).expect(201);
});
afterAll(() => t.close());

const USER_FIELDS = 'id avatarUrl name username webUrl';
const LABEL_FRAGMENT = `fragment Label on Label { id title description color textColor }`;

// Epics list page (Group › Epics): GitLab's groupEpics query with every filter of the search bar.
const EPICS_LIST = `
  query groupEpics(
    $groupPath: ID!
    $state: EpicState
    $authorUsername: String
    $labelName: [String!]
    $milestoneTitle: String = ""
    $myReactionEmoji: String
    $confidential: Boolean
    $search: String = ""
    $sortBy: EpicSort
    $firstPageSize: Int
    $lastPageSize: Int
    $prevPageCursor: String
    $nextPageCursor: String
    $not: NegatedEpicFilterInput
    $or: UnionedEpicFilterInput
  ) {
    group(fullPath: $groupPath) {
      id
      epics(
        state: $state
        authorUsername: $authorUsername
        labelName: $labelName
        milestoneTitle: $milestoneTitle
        myReactionEmoji: $myReactionEmoji
        confidential: $confidential
        search: $search
        sort: $sortBy
        first: $firstPageSize
        last: $lastPageSize
        after: $nextPageCursor
        before: $prevPageCursor
        not: $not
        or: $or
      ) {
        nodes {
          id
          iid
          title
          createdAt
          updatedAt
          closedAt
          webUrl
          author { ${USER_FIELDS} }
          labels { nodes { ...Label } }
          group { id fullPath }
          state
          confidential
          upvotes
          downvotes
          userDiscussionsCount
          blockingCount
          startDate
          dueDate
        }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
  ${LABEL_FRAGMENT}`;

// Roadmap (Group › Epics › Roadmap): the epic bars, their fragment and the timeframe of the preset.
const BASE_EPIC = `
  fragment BaseEpic on Epic {
    id
    iid
    title
    description
    state
    confidential
    webUrl
    startDate
    dueDate
    hasChildren
    hasChildrenWithinTimeframe
    hasParent
    color
    textColor
    blocked
    blockedByCount
    parent { id startDate dueDate }
    ancestors { nodes { id } }
    startDateIsFixed
    dueDateIsFixed
    startDateFromInheritedSource
    dueDateFromInheritedSource
    descendantWeightSum { closedIssues openedIssues }
    descendantCounts { openedEpics closedEpics }
    group { id name fullName fullPath }
    labels(first: 100) { nodes { ...Label } }
  }
  ${LABEL_FRAGMENT}`;

const ROADMAP_EPICS = `
  query roadmapGroupEpics(
    $fullPath: ID!
    $state: EpicState
    $sort: EpicSort
    $iid: ID
    $timeframe: Timeframe
    $labelName: [String!] = []
    $authorUsername: String = ""
    $milestoneTitle: String = ""
    $myReactionEmoji: String
    $confidential: Boolean
    $search: String = ""
    $first: Int = 50
    $not: NegatedEpicFilterInput
    $endCursor: String
    $topLevelHierarchyOnly: Boolean
  ) {
    group(fullPath: $fullPath) {
      id
      name
      epics(
        iid: $iid
        state: $state
        sort: $sort
        labelName: $labelName
        authorUsername: $authorUsername
        milestoneTitle: $milestoneTitle
        myReactionEmoji: $myReactionEmoji
        confidential: $confidential
        search: $search
        first: $first
        timeframe: $timeframe
        not: $not
        after: $endCursor
        topLevelHierarchyOnly: $topLevelHierarchyOnly
      ) {
        edges { node { ...BaseEpic } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
  ${BASE_EPIC}`;

describe('epics list page', () => {
  it('lists the group and subgroup epics with authors, labels and counts, newest first', async () => {
    const data = await run(EPICS_LIST, { groupPath: 'roadmap', state: 'opened', sortBy: 'CREATED_AT_DESC', firstPageSize: 20 });
    const nodes = data.group.epics.nodes;
    expect(nodes.map((e: { title: string }) => e.title)).toEqual(['Secret', 'Mobile', 'Docs', 'Billing', 'Search', 'Platform']);
    expect(nodes[1]).toEqual({
      id: gid('Epic', epics.mobile.id),
      iid: String(epics.mobile.iid),
      title: 'Mobile',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      closedAt: null,
      webUrl: `${EXTERNAL_URL}/groups/roadmap/team/-/epics/${epics.mobile.iid}`,
      author: { id: gid('User', reporter.id), avatarUrl: null, name: 'RHEA', username: 'rhea', webUrl: `${EXTERNAL_URL}/rhea` },
      labels: {
        nodes: [
          { id: gid('GroupLabel', labels.backend.id), title: 'backend', description: null, color: '#FF0000', textColor: '#FFFFFF' },
          { id: gid('GroupLabel', labels.frontend.id), title: 'frontend', description: null, color: '#428BCA', textColor: '#FFFFFF' },
        ],
      },
      group: { id: gid('Group', team.id), fullPath: 'roadmap/team' },
      state: 'opened',
      confidential: false,
      upvotes: 0,
      downvotes: 0,
      userDiscussionsCount: 0,
      blockingCount: 0,
      startDate: day('2025-10-01'),
      dueDate: day('2026-01-15'),
    });
    expect(data.group.epics.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('filters with or: (any of the authors, any of the labels), not: and sorts by title', async () => {
    const anyAuthor = await run(EPICS_LIST, { groupPath: 'roadmap', sortBy: 'TITLE_ASC', or: { authorUsernames: ['rhea', 'nobody'] } });
    expect(anyAuthor.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual(['Mobile', 'Search']);
    const anyLabel = await run(EPICS_LIST, {
      groupPath: 'roadmap',
      sortBy: 'TITLE_ASC',
      or: { labelNames: ['backend', 'none-such'] },
      not: { authorUsername: 'rhea' },
    });
    expect(anyLabel.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual([]);
    const deprecated = await run(EPICS_LIST, { groupPath: 'roadmap', sortBy: 'TITLE_DESC', or: { labelName: ['frontend'] } });
    expect(deprecated.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual(['Platform', 'Mobile']);
    // forgegate has no issues, so no epic has one in a milestone.
    const byMilestone = await run(EPICS_LIST, { groupPath: 'roadmap', milestoneTitle: 'v1.0' });
    expect(byMilestone.group.epics.nodes).toEqual([]);
  });

  it('pages with first/after and last/before', async () => {
    const first = await run(EPICS_LIST, { groupPath: 'roadmap', sortBy: 'TITLE_ASC', firstPageSize: 2 });
    expect(first.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual(['Billing', 'Docs']);
    const next = await run(EPICS_LIST, { groupPath: 'roadmap', sortBy: 'TITLE_ASC', firstPageSize: 2, nextPageCursor: first.group.epics.pageInfo.endCursor });
    expect(next.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual(['Mobile', 'Platform']);
    const back = await run(EPICS_LIST, { groupPath: 'roadmap', sortBy: 'TITLE_ASC', lastPageSize: 2, prevPageCursor: next.group.epics.pageInfo.startCursor });
    expect(back.group.epics.nodes.map((e: { title: string }) => e.title)).toEqual(['Billing', 'Docs']);
  });
});

describe('roadmap', () => {
  const timeframe = { start: '2026-01-01', end: '2026-03-31' };

  it('lists the epics overlapping the timeframe by start date, with their bars and child counts', async () => {
    const data = await run(ROADMAP_EPICS, { fullPath: 'roadmap', state: 'all', sort: 'START_DATE_ASC', timeframe, topLevelHierarchyOnly: true });
    const nodes = data.group.epics.edges.map((e: { node: unknown }) => e.node);
    // Billing (2027) and Docs (no dates) are outside; Secret starts in April; Search has a parent.
    expect(nodes.map((e: { title: string }) => e.title)).toEqual(['Mobile', 'Platform']);
    expect(nodes[1]).toEqual({
      id: gid('Epic', epics.platform.id),
      iid: String(epics.platform.iid),
      title: 'Platform',
      description: 'The *platform*',
      state: 'opened',
      confidential: false,
      webUrl: `${EXTERNAL_URL}/groups/roadmap/-/epics/${epics.platform.iid}`,
      startDate: day('2026-01-01'),
      dueDate: day('2026-06-30'),
      hasChildren: true,
      // Search (February) overlaps the quarter, Billing (2027) does not.
      hasChildrenWithinTimeframe: true,
      hasParent: false,
      color: null,
      textColor: null,
      blocked: false,
      blockedByCount: 0,
      parent: null,
      ancestors: { nodes: [] },
      startDateIsFixed: true,
      dueDateIsFixed: true,
      startDateFromInheritedSource: day('2026-02-01'),
      dueDateFromInheritedSource: day('2027-02-01'),
      descendantWeightSum: { closedIssues: 0, openedIssues: 0 },
      descendantCounts: { openedEpics: 2, closedEpics: 0 },
      group: { id: gid('Group', roadmap.id), name: 'Roadmap', fullName: 'Roadmap', fullPath: 'roadmap' },
      labels: { nodes: [{ id: gid('GroupLabel', labels.frontend.id), title: 'frontend', description: null, color: '#428BCA', textColor: '#FFFFFF' }] },
    });
    expect(data.group.epics.pageInfo.hasNextPage).toBe(false);
  });

  it('sorts by due date, newest first, and answers hasChildrenWithinTimeframe false when no child overlaps', async () => {
    const data = await run(ROADMAP_EPICS, { fullPath: 'roadmap', sort: 'END_DATE_DESC', timeframe: { start: '2026-05-01', end: '2026-12-31' } });
    const nodes = data.group.epics.edges.map((e: { node: { title: string; hasChildrenWithinTimeframe: boolean } }) => e.node);
    expect(nodes.map((e: { title: string }) => e.title)).toEqual(['Platform']);
    expect(nodes[0].hasChildrenWithinTimeframe).toBe(false);
  });

  it('takes the older roadmap: deprecated startDate/endDate and lowercase sorts', async () => {
    const document = `
      query groupEpics($fullPath: ID!, $state: EpicState, $sort: EpicSort, $startDate: Time, $dueDate: Time, $labelName: [String!] = [], $authorUsername: String = "", $search: String = "") {
        group(fullPath: $fullPath) {
          id
          name
          epics(state: $state, sort: $sort, startDate: $startDate, endDate: $dueDate, labelName: $labelName, authorUsername: $authorUsername, search: $search) {
            edges { node { id title startDate dueDate hasChildren hasParent group { name fullName } } }
          }
        }
      }`;
    const data = await run(document, {
      fullPath: 'roadmap',
      state: 'opened',
      sort: 'start_date_asc',
      startDate: '2026-01-01T00:00:00Z',
      dueDate: '2026-03-31T00:00:00Z',
    });
    expect(data.group.epics.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Mobile', 'Platform', 'Search']);
    const res = await t.graphql(document, { fullPath: 'roadmap', startDate: '2026-01-01T00:00:00Z' });
    expect(res.body.errors[0].message).toBe('Both startDate and endDate must be present.');
  });

  it("expands an epic's children within the timeframe", async () => {
    // Roadmap: an epic's child epics, asked when its bar is expanded.
    const document = `
      query epicChildEpics($fullPath: ID!, $iid: ID!, $state: EpicState, $sort: EpicSort, $timeframe: Timeframe, $labelName: [String!] = [], $authorUsername: String = "", $milestoneTitle: String = "", $confidential: Boolean, $search: String = "", $first: Int = 50) {
        group(fullPath: $fullPath) {
          id
          name
          epic(iid: $iid) {
            id
            title
            hasChildren
            children(state: $state, sort: $sort, timeframe: $timeframe, labelName: $labelName, authorUsername: $authorUsername, milestoneTitle: $milestoneTitle, confidential: $confidential, search: $search, first: $first) {
              edges { node { ...BaseEpic } }
            }
          }
        }
      }
      ${BASE_EPIC}`;
    const data = await run(document, { fullPath: 'roadmap', iid: String(epics.platform.iid), state: 'all', sort: 'START_DATE_ASC', timeframe });
    const children = data.group.epic.children.edges.map((e: { node: Record<string, unknown> }) => e.node);
    expect(children.map((c: { title: string }) => c.title)).toEqual(['Search']);
    expect(children[0]).toMatchObject({
      hasParent: true,
      parent: { id: gid('Epic', epics.platform.id), startDate: day('2026-01-01'), dueDate: day('2026-06-30') },
      ancestors: { nodes: [{ id: gid('Epic', epics.platform.id) }] },
      hasChildrenWithinTimeframe: false,
    });
    const all = await run(document, { fullPath: 'roadmap', iid: String(epics.platform.iid), sort: 'END_DATE_DESC' });
    expect(all.group.epic.children.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Billing', 'Search']);
  });
});

describe('epic tree', () => {
  it('lists the child epics with their counts and permissions, and no issues', async () => {
    // Epic page › Child issues and epics: the related items tree.
    const document = `
      fragment RelatedEpic on Epic {
        id iid title state createdAt closedAt confidential webPath relationPath
        reference(full: true)
        hasChildren hasIssues
        group { fullPath }
        userPermissions { adminEpic createEpic }
        descendantWeightSum { closedIssues openedIssues }
        descendantCounts { openedEpics closedEpics openedIssues closedIssues }
        healthStatus { issuesAtRisk issuesOnTrack issuesNeedingAttention }
        blocked
      }
      query childItems($fullPath: ID!, $iid: ID, $pageSize: Int = 100, $epicEndCursor: String, $issueEndCursor: String) {
        group(fullPath: $fullPath) {
          id path fullPath
          epic(iid: $iid) {
            id iid title webPath
            userPermissions { adminEpic createEpic }
            children(first: $pageSize, after: $epicEndCursor) {
              edges { node { ...RelatedEpic } }
              pageInfo { hasNextPage endCursor }
            }
            issues(first: $pageSize, after: $issueEndCursor) {
              edges {
                node {
                  iid epicIssueId title blocked closedAt state createdAt confidential dueDate weight webPath
                  reference(full: true) relationPath
                  assignees { edges { node { webUrl name username avatarUrl } } }
                  milestone { title startDate dueDate }
                }
              }
              pageInfo { hasNextPage endCursor }
            }
          }
        }
      }`;
    const data = await run(document, { fullPath: 'roadmap', iid: String(epics.platform.iid) }, reporter.token);
    const epic = data.group.epic;
    expect(epic.userPermissions).toEqual({ adminEpic: true, createEpic: true });
    expect(epic.issues).toMatchObject({ edges: [], pageInfo: { hasNextPage: false } });
    expect(epic.children.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Search', 'Billing']);
    expect(epic.children.edges[0].node).toEqual({
      id: gid('Epic', epics.search.id),
      iid: String(epics.search.iid),
      title: 'Search',
      state: 'opened',
      createdAt: expect.any(String),
      closedAt: null,
      confidential: false,
      webPath: `/groups/roadmap/-/epics/${epics.search.iid}`,
      relationPath: `/groups/roadmap/-/epics/${epics.platform.iid}/links/${epics.search.id}`,
      reference: `roadmap&${epics.search.iid}`,
      hasChildren: false,
      hasIssues: false,
      group: { fullPath: 'roadmap' },
      userPermissions: { adminEpic: true, createEpic: true },
      descendantWeightSum: { closedIssues: 0, openedIssues: 0 },
      descendantCounts: { openedEpics: 0, closedEpics: 0, openedIssues: 0, closedIssues: 0 },
      healthStatus: { issuesAtRisk: 0, issuesOnTrack: 0, issuesNeedingAttention: 0 },
      blocked: false,
    });
    // A Guest reads the tree but may not create or manage epics.
    const asGuest = await run(document, { fullPath: 'roadmap', iid: String(epics.platform.iid) }, guest.token);
    expect(asGuest.group.epic.userPermissions).toEqual({ adminEpic: false, createEpic: false });
  });
});

describe('epic select dropdown', () => {
  it('searches epic titles in the group and its ancestors', async () => {
    // Issue sidebar › Epic: the dropdown's search.
    const document = `
      query issueEpics($fullPath: ID!, $title: String, $state: EpicState, $in: [IssuableSearchableField!]) {
        workspace: group(fullPath: $fullPath) {
          id
          attributes: epics(search: $title, in: $in, state: $state, includeAncestorGroups: true, includeDescendantGroups: false) {
            nodes { id iid title webUrl state }
          }
        }
      }`;
    const fromTeam = await run(document, { fullPath: 'roadmap/team', title: 'o', state: 'opened', in: ['TITLE'] });
    expect(fromTeam.workspace.attributes.nodes.map((e: { title: string }) => e.title).sort()).toEqual(['Docs', 'Mobile', 'Platform']);
    // The description of Platform says "platform", its title too: TITLE alone finds by title only.
    const byDescription = await run(document, { fullPath: 'roadmap', title: '*platform*', in: ['DESCRIPTION'] });
    expect(byDescription.workspace.attributes.nodes).toEqual([
      {
        id: gid('Epic', epics.platform.id),
        iid: String(epics.platform.iid),
        title: 'Platform',
        webUrl: `${EXTERNAL_URL}/groups/roadmap/-/epics/${epics.platform.iid}`,
        state: 'opened',
      },
    ]);
    const byTitleOnly = await run(document, { fullPath: 'roadmap', title: '*platform*', in: ['TITLE'] });
    expect(byTitleOnly.workspace.attributes.nodes).toEqual([]);
  });
});

describe('epic sidebar', () => {
  const iid = () => String(epics.platform.iid);

  it('participants', async () => {
    const document = `
      query epicParticipants($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) {
          id
          issuable: epic(iid: $iid) {
            id
            participants { nodes { ${USER_FIELDS} } }
          }
        }
      }`;
    const data = await run(document, { fullPath: 'roadmap', iid: String(epics.search.iid) });
    expect(data.workspace.issuable.participants.nodes).toEqual([
      { id: gid('User', reporter.id), avatarUrl: null, name: 'RHEA', username: 'rhea', webUrl: `${EXTERNAL_URL}/rhea` },
    ]);
  });

  it('subscription, beside the group’s email setting', async () => {
    const document = `
      query epicSubscribed($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) {
          id
          emailsDisabled
          issuable: epic(iid: $iid) { id subscribed }
        }
      }`;
    const asAuthor = await run(document, { fullPath: 'roadmap', iid: iid() });
    expect(asAuthor.workspace).toEqual({
      id: gid('Group', roadmap.id),
      emailsDisabled: false,
      issuable: { id: gid('Epic', epics.platform.id), subscribed: true },
    });
    const asReporter = await run(document, { fullPath: 'roadmap', iid: iid() }, reporter.token);
    expect(asReporter.workspace.issuable.subscribed).toBe(false);

    // The toggle.
    const toggle = `
      mutation updateEpicSubscription($fullPath: ID!, $iid: ID!, $subscribedState: Boolean!) {
        updateIssuableSubscription: epicSetSubscription(input: { groupPath: $fullPath, iid: $iid, subscribedState: $subscribedState }) {
          issuable: epic { id subscribed }
          errors
        }
      }`;
    const toggled = await run(toggle, { fullPath: 'roadmap', iid: iid(), subscribedState: true }, reporter.token);
    expect(toggled.updateIssuableSubscription).toEqual({ issuable: { id: gid('Epic', epics.platform.id), subscribed: true }, errors: [] });
    expect((await run(document, { fullPath: 'roadmap', iid: iid() }, reporter.token)).workspace.issuable.subscribed).toBe(true);
  });

  it("the viewer's to-do: pending ones, and adding one", async () => {
    const document = `
      query epicTodos($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) {
          id
          issuable: epic(iid: $iid) {
            id
            currentUserTodos(state: pending) { nodes { id } }
          }
        }
      }`;
    const todo = await t.db.todo.findFirstOrThrow({ where: { userId: reporter.id, epicId: epics.platform.id } });
    const asReporter = await run(document, { fullPath: 'roadmap', iid: iid() }, reporter.token);
    expect(asReporter.workspace.issuable.currentUserTodos).toEqual({ nodes: [{ id: gid('Todo', todo.id) }] });
    // Root has none, and an anonymous viewer none either.
    expect((await run(document, { fullPath: 'roadmap', iid: iid() })).workspace.issuable.currentUserTodos).toEqual({ nodes: [] });

    const create = `
      mutation createEpicTodo($input: TodoCreateInput!) {
        todoCreate(input: $input) { todo { id } errors }
      }`;
    const created = await run(create, { input: { targetId: gid('Epic', epics.search.id) } }, reporter.token);
    expect(created.todoCreate).toEqual({ todo: { id: expect.stringMatching(/^gid:\/\/gitlab\/Todo\/\d+$/) }, errors: [] });
    const after = await run(document, { fullPath: 'roadmap', iid: String(epics.search.iid) }, reporter.token);
    expect(after.workspace.issuable.currentUserTodos.nodes).toEqual([{ id: created.todoCreate.todo.id }]);
    await t.db.todo.update({ where: { id: todo.id }, data: { state: 'done' } });
    expect((await run(document, { fullPath: 'roadmap', iid: iid() }, reporter.token)).workspace.issuable.currentUserTodos.nodes).toEqual([]);
    const all = await run(
      `query($fullPath: ID!, $iid: ID) { group(fullPath: $fullPath) { epic(iid: $iid) { currentUserTodos { nodes { id state } } } } }`,
      { fullPath: 'roadmap', iid: iid() },
      reporter.token,
    );
    expect(all.group.epic.currentUserTodos.nodes).toEqual([{ id: gid('Todo', todo.id), state: 'done' }]);
  });

  it('confidentiality, read and set', async () => {
    const document = `
      query epicConfidential($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) { id issuable: epic(iid: $iid) { id confidential } }
      }`;
    expect((await run(document, { fullPath: 'roadmap', iid: String(epics.docs.iid) })).workspace.issuable.confidential).toBe(false);
    const update = `
      mutation updateEpicConfidential($input: UpdateEpicInput!) {
        issuableSetConfidential: updateEpic(input: $input) { issuable: epic { id confidential } errors }
      }`;
    const data = await run(update, { input: { groupPath: 'roadmap', iid: String(epics.docs.iid), confidential: true } }, reporter.token);
    expect(data.issuableSetConfidential).toEqual({ issuable: { id: gid('Epic', epics.docs.id), confidential: true }, errors: [] });
    // A Guest no longer sees it.
    expect((await run(document, { fullPath: 'roadmap', iid: String(epics.docs.iid) }, guest.token)).workspace.issuable).toBeNull();
    await run(update, { input: { groupPath: 'roadmap', iid: String(epics.docs.iid), confidential: false } });
  });

  it('start and due dates, read and set', async () => {
    const dates = `
      query epicDueDate($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) {
          id
          issuable: epic(iid: $iid) { id dueDate dueDateIsFixed dueDateFixed dueDateFromInheritedSource startDate startDateIsFixed startDateFixed startDateFromInheritedSource }
        }
      }`;
    const before = await run(dates, { fullPath: 'roadmap', iid: String(epics.docs.iid) }, reporter.token);
    expect(before.workspace.issuable).toMatchObject({ dueDate: null, dueDateIsFixed: false, dueDateFixed: null, startDateIsFixed: false });
    const update = `
      mutation updateEpicDueDate($input: UpdateEpicInput!) {
        issuableSetDate: updateEpic(input: $input) {
          issuable: epic { id dueDateIsFixed dueDateFixed dueDateFromInheritedSource dueDate }
          errors
        }
      }`;
    const set = await run(
      update,
      { input: { groupPath: 'roadmap', iid: String(epics.docs.iid), dueDateFixed: '2026-09-30', dueDateIsFixed: true } },
      reporter.token,
    );
    expect(set.issuableSetDate).toEqual({
      issuable: {
        id: gid('Epic', epics.docs.id),
        dueDateIsFixed: true,
        dueDateFixed: day('2026-09-30'),
        dueDateFromInheritedSource: null,
        dueDate: day('2026-09-30'),
      },
      errors: [],
    });
    // Those who cannot edit see the dates, not how they are sourced.
    const asGuest = await run(dates, { fullPath: 'roadmap', iid: String(epics.docs.iid) }, guest.token);
    expect(asGuest.workspace.issuable).toMatchObject({
      dueDate: day('2026-09-30'),
      dueDateIsFixed: null,
      dueDateFixed: null,
      dueDateFromInheritedSource: null,
    });
  });

  it('labels, read and set by id', async () => {
    const document = `
      query epicLabels($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) { id issuable: epic(iid: $iid) { id labels { nodes { ...Label } } } }
      }
      ${LABEL_FRAGMENT}`;
    const update = `
      mutation updateEpicLabels($input: UpdateEpicInput!) {
        updateIssuableLabels: updateEpic(input: $input) { issuable: epic { id labels { nodes { ...Label } } } errors }
      }
      ${LABEL_FRAGMENT}`;
    const set = await run(
      update,
      { input: { groupPath: 'roadmap', iid: String(epics.billing.iid), addLabelIds: [gid('GroupLabel', labels.backend.id)], removeLabelIds: [] } },
      reporter.token,
    );
    expect(set.updateIssuableLabels.issuable.labels.nodes.map((l: { title: string }) => l.title)).toEqual(['backend']);
    const read = await run(document, { fullPath: 'roadmap', iid: String(epics.billing.iid) });
    expect(read.workspace.issuable.labels.nodes).toEqual([
      { id: gid('GroupLabel', labels.backend.id), title: 'backend', description: null, color: '#FF0000', textColor: '#FFFFFF' },
    ]);
  });

  it('ancestors', async () => {
    const document = `
      query epicAncestors($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) { id issuable: epic(iid: $iid) { id ancestors { nodes { id title state url: webUrl } } } }
      }`;
    const data = await run(document, { fullPath: 'roadmap', iid: String(epics.search.iid) });
    expect(data.workspace.issuable.ancestors.nodes).toEqual([
      { id: gid('Epic', epics.platform.id), title: 'Platform', state: 'opened', url: `${EXTERNAL_URL}/groups/roadmap/-/epics/${epics.platform.iid}` },
    ]);
  });

  it('reference, short and full', async () => {
    const document = `
      query epicReference($fullPath: ID!, $iid: ID) {
        workspace: group(fullPath: $fullPath) { id issuable: epic(iid: $iid) { id reference(full: true) short: reference } }
      }`;
    const data = await run(document, { fullPath: 'roadmap/team', iid: String(epics.mobile.iid) });
    expect(data.workspace.issuable).toEqual({ id: gid('Epic', epics.mobile.id), reference: `roadmap/team&${epics.mobile.iid}`, short: `&${epics.mobile.iid}` });
  });

  it('a missing iid or none answers null, as a missing epic', async () => {
    const document = `query($fullPath: ID!, $iid: ID) { group(fullPath: $fullPath) { epic(iid: $iid) { id } } }`;
    expect((await run(document, { fullPath: 'roadmap', iid: null })).group.epic).toBeNull();
    expect((await run(document, { fullPath: 'roadmap', iid: '999' })).group.epic).toBeNull();
  });
});

describe('epic page', () => {
  it('shows the header, its blocking state and what the viewer may do', async () => {
    // Epic page: header and body.
    const document = `
      query epicDetails($fullPath: ID!, $iid: ID) {
        group(fullPath: $fullPath) {
          id
          epic(iid: $iid) {
            id iid title titleHtml description descriptionHtml state confidential createdAt
            author { ${USER_FIELDS} }
            blocked blockedByCount blockingCount blockedByEpics { nodes { id } }
            relativePosition relationPath hasChildren hasIssues
            defaultProjectForIssueCreation { id }
            userNotesCount userDiscussionsCount
            awardEmoji { nodes { name emoji user { username } } }
            userPermissions { readEpic readEpicIid updateEpic destroyEpic adminEpic adminEpicRelation createEpic createNote awardEmoji }
          }
        }
      }`;
    const data = await run(document, { fullPath: 'roadmap', iid: String(epics.platform.iid) }, reporter.token);
    expect(data.group.epic).toEqual({
      id: gid('Epic', epics.platform.id),
      iid: String(epics.platform.iid),
      title: 'Platform',
      titleHtml: 'Platform',
      description: 'The *platform*',
      descriptionHtml: '<p>The <em>platform</em></p>\n',
      state: 'opened',
      confidential: false,
      createdAt: expect.any(String),
      author: { id: gid('User', 1), avatarUrl: null, name: expect.any(String), username: 'root', webUrl: `${EXTERNAL_URL}/root` },
      blocked: false,
      blockedByCount: 0,
      blockingCount: 0,
      blockedByEpics: { nodes: [] },
      relativePosition: null,
      relationPath: null,
      hasChildren: true,
      hasIssues: false,
      defaultProjectForIssueCreation: null,
      userNotesCount: 0,
      userDiscussionsCount: 0,
      awardEmoji: { nodes: [] },
      userPermissions: {
        readEpic: true,
        readEpicIid: true,
        updateEpic: true,
        destroyEpic: false,
        adminEpic: true,
        adminEpicRelation: true,
        createEpic: true,
        createNote: true,
        awardEmoji: true,
      },
    });
  });
});

describe('epic forms', () => {
  it('creates an epic from the new epic form', async () => {
    const document = `
      mutation createEpic($input: CreateEpicInput!) {
        createEpic(input: $input) { epic { id webUrl title confidential startDate dueDate labels { nodes { title } } } errors }
      }`;
    const data = await run(
      document,
      {
        input: {
          groupPath: 'roadmap',
          title: 'Onboarding',
          description: 'New hires',
          confidential: false,
          addLabelIds: [gid('GroupLabel', labels.frontend.id)],
          startDateFixed: '2026-07-01',
          startDateIsFixed: true,
          dueDateFixed: '2026-08-31',
          dueDateIsFixed: true,
        },
      },
      reporter.token,
    );
    const created = await t.db.epic.findFirstOrThrow({ where: { title: 'Onboarding' } });
    expect(data.createEpic).toEqual({
      epic: {
        id: gid('Epic', created.id),
        webUrl: `${EXTERNAL_URL}/groups/roadmap/-/epics/${created.iid}`,
        title: 'Onboarding',
        confidential: false,
        startDate: day('2026-07-01'),
        dueDate: day('2026-08-31'),
        labels: { nodes: [{ title: 'frontend' }] },
      },
      errors: [],
    });
    // A Guest may not: GitLab's resource-not-available error, and nothing is created.
    const refused = await t.graphql(document, { input: { groupPath: 'roadmap', title: 'Nope' } }, guest.token);
    expect(refused.body.data.createEpic).toBeNull();
    expect(await t.db.epic.count({ where: { title: 'Nope' } })).toBe(0);
  });
});

describe('epic tree order', () => {
  it('moves a child epic next to a sibling and under a new parent, keeping the order', async () => {
    // Epic page › Child issues and epics: drag and drop.
    const reorder = `
      mutation epicTreeReorder($baseEpicId: EpicID!, $moved: EpicTreeNodeFieldsInputType!) {
        epicTreeReorder(input: { baseEpicId: $baseEpicId, moved: $moved }) { errors }
      }`;
    const children = async () =>
      (
        await run(`query($iid: ID) { group(fullPath: "roadmap") { epic(iid: $iid) { children { nodes { title relativePosition } } } } }`, {
          iid: String(epics.platform.iid),
        })
      ).group.epic.children.nodes;
    expect((await children()).map((c: { title: string }) => c.title)).toEqual(['Search', 'Billing']);
    // `after`: the sibling goes after the moved epic.
    const moved = await run(
      reorder,
      {
        baseEpicId: gid('Epic', epics.platform.id),
        moved: { id: gid('Epic', epics.billing.id), adjacentReferenceId: gid('Epic', epics.search.id), relativePosition: 'after' },
      },
      reporter.token,
    );
    expect(moved.epicTreeReorder).toEqual({ errors: [] });
    expect(await children()).toEqual([
      { title: 'Billing', relativePosition: 1000 },
      { title: 'Search', relativePosition: 2000 },
    ]);
    // Docs, a top-level epic, under Platform, right after Billing (`before`: the sibling goes before it).
    const nested = await run(
      reorder,
      {
        baseEpicId: gid('Epic', epics.platform.id),
        moved: {
          id: gid('Epic', epics.docs.id),
          adjacentReferenceId: gid('Epic', epics.billing.id),
          relativePosition: 'before',
          newParentId: gid('Epic', epics.platform.id),
        },
      },
      reporter.token,
    );
    expect(nested.epicTreeReorder).toEqual({ errors: [] });
    expect((await children()).map((c: { title: string }) => c.title)).toEqual(['Billing', 'Docs', 'Search']);
    // GitLab's refusals, as payload errors.
    const asGuest = await run(reorder, { baseEpicId: gid('Epic', epics.platform.id), moved: { id: gid('Epic', epics.search.id) } }, guest.token);
    expect(asGuest.epicTreeReorder.errors).toEqual(["You don't have permissions to move the objects."]);
    const stranger = await run(
      reorder,
      {
        baseEpicId: gid('Epic', epics.platform.id),
        moved: { id: gid('Epic', epics.search.id), adjacentReferenceId: gid('Epic', epics.mobile.id), relativePosition: 'after' },
      },
      reporter.token,
    );
    expect(stranger.epicTreeReorder.errors).toEqual(["The sibling object's parent must match the current parent epic."]);
    expect((await children()).map((c: { title: string }) => c.title)).toEqual(['Billing', 'Docs', 'Search']);
  });
});

describe('authorization and cost of the new fields', () => {
  it('answers null to an outsider of the private group and hides nothing more from members', async () => {
    const document = `query($fullPath: ID!) { group(fullPath: $fullPath) { id emailsDisabled epics { nodes { id } } epic(iid: "1") { id participants { nodes { id } } } } }`;
    expect((await run(document, { fullPath: 'roadmap' }, outsider.token)).group).toBeNull();
    expect((await run(document, { fullPath: 'roadmap' }, null)).group).toBeNull();
    const asGuest = (await run(document, { fullPath: 'roadmap' }, guest.token)).group;
    // The confidential epic is for Reporters and above.
    expect(asGuest.epics.nodes.map((e: { id: string }) => e.id)).not.toContain(gid('Epic', epics.secret.id));
    expect((await run(document, { fullPath: 'roadmap' }, reporter.token)).group.epics.nodes.map((e: { id: string }) => e.id)).toContain(
      gid('Epic', epics.secret.id),
    );
  });

  it("a confidential parent does not leak through a child's relationPath or ancestors to those who may not read it", async () => {
    const child = await epic(roadmap, { title: 'Secret child', confidential: true, parent_id: epics.secret.id });
    const document = `query($iid: ID) { group(fullPath: "roadmap") { epic(iid: $iid) { id relationPath ancestors { nodes { id } } } } }`;
    expect((await run(document, { iid: String(child.iid) }, guest.token)).group.epic).toBeNull();
    expect((await run(document, { iid: String(child.iid) }, reporter.token)).group.epic).toEqual({
      id: gid('Epic', child.id),
      relationPath: `/groups/roadmap/-/epics/${epics.secret.iid}/links/${child.id}`,
      ancestors: { nodes: [{ id: gid('Epic', epics.secret.id) }] },
    });
  });

  it('counts the new connections in the cost as GitLab counts connections', () => {
    const cost = (selection: string) => operationComplexity(schema, parse(`{ group(fullPath: "roadmap") { epics(first: 100) { nodes { ${selection} } } } }`));
    const connection = (name: string) => cost(`${name}(first: 100) { nodes { id: __typename } }`);
    // A connection of 100 doubles what it holds, below a list of 100 that doubles again: each new
    // connection costs what the children connection costs, more than a plain field.
    for (const name of ['participants', 'currentUserTodos', 'issues', 'blockedByEpics', 'ancestors', 'awardEmoji']) {
      expect(connection(name), name).toBe(connection('children'));
      expect(connection(name), name).toBeGreaterThan(cost('title'));
    }
  });

  it('refuses a document whose nested new connections exceed the limit', async () => {
    const inner = ['participants', 'currentUserTodos', 'issues', 'blockedByEpics', 'ancestors', 'awardEmoji', 'labels']
      .map((name) => `${name}(first: 100) { nodes { id: __typename } }`)
      .join(' ');
    const nested = `{ group(fullPath: "roadmap") { epics(first: 100) { nodes { children(first: 100) { nodes { children(first: 100) { nodes { ${inner} } } } } } } } }`;
    expect(operationComplexity(schema, parse(nested))).toBeGreaterThan(250);
    const res = await t.graphql(nested, {}, reporter.token);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/^Query has complexity of \d+, which exceeds max complexity of \d+$/);
  });
});
