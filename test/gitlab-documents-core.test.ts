// Documents shaped as GitLab's own frontend writes them for milestones, labels, members, users and
// the placeholder reassignment page (issue 40): the same fields, arguments and variable types as
// the screen each one names, written here, run against seeded data and checked value by value.
// Queries run through graphql-jit and Yoga's own executor (same bytes); mutations once. Then the
// cross-cutting behaviour those screens rely on: empty cursors, batched requests, cost and access.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
type Seeded = { id: number; full_path?: string; path_with_namespace?: string };
let corp: Seeded;
let sub: Seeded;
let hidden: Seeded;
let app: Seeded;
let lib: Seeded;
let dev: Awaited<ReturnType<TestApp['user']>>;
let outsider: Awaited<ReturnType<TestApp['user']>>;
/** Import source users by source username. */
const sourceUsers: Record<string, number> = {};

const gid = (className: string, id: number) => `gid://gitlab/${className}/${id}`;
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Runs a document and returns its data; any GraphQL error fails the test. Queries on both executors. */
async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*(#[^\n]*\n\s*)*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const post = (body: unknown, token: string | null = t.root.token) => {
  const r = request(t.base).post('/api/graphql').set('Content-Type', 'application/json').send(JSON.stringify(body));
  return token ? r.set('Authorization', `Bearer ${token}`) : r;
};

async function seedPlaceholders() {
  const rows = [
    { username: 'ada', name: 'Ada', status: 'pending_reassignment' },
    { username: 'bob', name: 'Bob', status: 'pending_reassignment' },
    { username: 'cy', name: 'Cy', status: 'rejected' },
    { username: 'dee', name: 'Dee', status: 'completed' },
  ] as const;
  for (const [i, row] of rows.entries()) {
    const placeholder = await t.db.user.create({
      data: { username: `${row.username}_placeholder_user_${i}`, name: `Placeholder ${row.name}`, email: `${row.username}-p@noreply.test`, state: 'blocked' },
    });
    const created = await t.db.importSourceUser.create({
      data: {
        namespaceId: corp.id,
        sourceHostname: 'https://source.test',
        importType: 'gitlab_migration',
        sourceUserIdentifier: String(100 + i),
        sourceName: row.name,
        sourceUsername: row.username,
        status: row.status,
        placeholderUserId: placeholder.id,
        ...(row.status === 'completed' && { reassignToUserId: dev.id }),
      },
    });
    sourceUsers[row.username] = created.id;
  }
}

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  const group = async (body: Record<string, unknown>) =>
    (
      await t
        .api('post', '/groups')
        .send({ visibility: 'private', ...body })
        .expect(201)
    ).body;
  const project = async (name: string, namespaceId: number) =>
    (await t.api('post', '/projects').send({ name, namespace_id: namespaceId, visibility: 'private', initialize_with_readme: false }).expect(201)).body;
  corp = await group({ name: 'Corp', path: 'corp' });
  sub = await group({ name: 'Sub', path: 'sub', parent_id: corp.id });
  hidden = await group({ name: 'Hidden', path: 'hidden' });
  app = await project('App', corp.id);
  lib = await project('Lib', sub.id);
  dev = await t.user('devon');
  outsider = await t.user('olga');
  // devon: a Developer of corp/app only, so corp is visible to them (a membership below) and corp/sub is not.
  await t.api('post', `/projects/${app.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
  await t.api('post', `/groups/${hidden.id}/members`).send({ user_id: outsider.id, access_level: 50 }).expect(201);

  const milestone = (path: string, body: Record<string, unknown>) => t.api('post', `${path}/milestones`).send(body).expect(201);
  await milestone(`/groups/${corp.id}`, { title: 'G1 group', due_date: '2030-01-01' });
  await milestone(`/groups/${sub.id}`, { title: 'S1 subgroup', due_date: '2030-02-01' });
  await milestone(`/projects/${app.id}`, { title: 'P1 project', due_date: '2030-03-01' });
  await milestone(`/projects/${lib.id}`, { title: 'L1 subproject', due_date: '2030-04-01' });
  await milestone(`/projects/${app.id}`, { title: 'P0 expired', due_date: '2020-01-01' });

  const label = (path: string, body: Record<string, unknown>) => t.api('post', `${path}/labels`).send(body).expect(201);
  await label(`/groups/${corp.id}`, { name: 'group-bug', color: '#FF0000', description: 'Defects everywhere' });
  await label(`/groups/${sub.id}`, { name: 'sub-docs', color: '#00FF00' });
  await label(`/projects/${app.id}`, { name: 'app-ui', color: '#0000FF', description: 'Screens with a bug' });
  await label(`/projects/${lib.id}`, { name: 'lib-api', color: '#EEEEEE' });
  await seedPlaceholders();
});
afterAll(() => t.close());

const USER = `
  fragment User on User {
    id
    avatarUrl
    name
    username
    webUrl
    webPath
  }`;

const PAGE_INFO = `
  fragment PageInfo on PageInfo {
    hasNextPage
    hasPreviousPage
    startCursor
    endCursor
  }`;

const SIDEBAR_MILESTONE = `
  fragment SidebarMilestoneFragment on Milestone {
    id
    title
    webUrl: webPath
    dueDate
    expired
  }`;

type Titled = { title: string };
const titles = (nodes: Titled[]) => nodes.map((n) => n.title);

describe("GitLab's milestone documents", () => {
  it('issue sidebar milestone dropdown, project: ancestors included, expired last', async () => {
    const data = await run(
      `# issue sidebar: milestone dropdown (project)
      query projectMilestones($fullPath: ID!, $title: String, $state: MilestoneStateEnum) {
        workspace: project(fullPath: $fullPath) {
          __typename
          id
          attributes: milestones(searchTitle: $title, state: $state, sort: EXPIRED_LAST_DUE_DATE_ASC, first: 20, includeAncestors: true) {
            nodes { ...SidebarMilestoneFragment state }
          }
        }
      }
      ${SIDEBAR_MILESTONE}`,
      { fullPath: 'corp/app', title: '', state: 'active' },
    );
    expect(data.workspace.__typename).toBe('Project');
    expect(titles(data.workspace.attributes.nodes)).toEqual(['G1 group', 'P1 project', 'P0 expired']);
    const g1 = data.workspace.attributes.nodes[0];
    expect(g1).toMatchObject({ webUrl: '/groups/corp/-/milestones/1', dueDate: '2030-01-01', expired: false, state: 'active' });
    expect(data.workspace.attributes.nodes[2]).toMatchObject({ webUrl: '/corp/app/-/milestones/2', expired: true });
  });

  it('issue sidebar milestone dropdown, group: searched by title', async () => {
    const data = await run(
      `# issue sidebar: milestone dropdown (group)
      query groupMilestones($fullPath: ID!, $title: String, $state: MilestoneStateEnum) {
        workspace: group(fullPath: $fullPath) {
          __typename
          id
          attributes: milestones(searchTitle: $title, state: $state, sort: EXPIRED_LAST_DUE_DATE_ASC, first: 20, includeAncestors: true) {
            nodes { ...SidebarMilestoneFragment state }
          }
        }
      }
      ${SIDEBAR_MILESTONE}`,
      { fullPath: 'corp/sub', title: 'g1', state: 'active' },
    );
    expect(data.workspace).toMatchObject({ __typename: 'Group', id: gid('Group', sub.id) });
    expect(titles(data.workspace.attributes.nodes)).toEqual(['G1 group']);
  });

  it('milestone combobox (release form), group: subgroups and their projects included', async () => {
    const data = await run(
      `# release form: milestone combobox, group milestones
      query searchGroupMilestones($fullPath: ID!, $search: String, $state: MilestoneStateEnum) {
        group(fullPath: $fullPath) {
          __typename
          id
          milestones(searchTitle: $search, state: $state, includeDescendants: true, sort: DUE_DATE_ASC, first: 20) {
            nodes { __typename id title webPath dueDate }
          }
        }
      }`,
      { fullPath: 'corp', search: '', state: 'active' },
    );
    expect(titles(data.group.milestones.nodes)).toEqual(['P0 expired', 'G1 group', 'S1 subgroup', 'P1 project', 'L1 subproject']);
    expect(data.group.milestones.nodes[4]).toMatchObject({ webPath: '/corp/sub/lib/-/milestones/1', dueDate: '2030-04-01' });
  });

  it('issues list filtered search: which level each milestone belongs to', async () => {
    const data = await run(
      `# issues list (group): filtered search milestone token
      query searchMilestones($fullPath: ID!, $search: String, $first: Int) {
        group(fullPath: $fullPath) {
          id
          milestones(searchTitle: $search, includeAncestors: true, includeDescendants: true, first: $first, sort: CREATED_ASC) {
            nodes { id title projectMilestone groupMilestone subgroupMilestone }
          }
        }
      }`,
      { fullPath: 'corp', search: '1', first: 10 },
    );
    expect(data.group.milestones.nodes.map(({ id: _, ...m }: { id: string }) => m)).toEqual([
      { title: 'G1 group', projectMilestone: false, groupMilestone: true, subgroupMilestone: false },
      { title: 'S1 subgroup', projectMilestone: false, groupMilestone: true, subgroupMilestone: true },
      { title: 'P1 project', projectMilestone: true, groupMilestone: false, subgroupMilestone: false },
      { title: 'L1 subproject', projectMilestone: true, groupMilestone: false, subgroupMilestone: false },
    ]);
  });

  it("shows a group's descendants only as far as the viewer may read them", async () => {
    const data = await run(
      `# release form: milestone combobox, as a Developer of one project
      query searchGroupMilestones($fullPath: ID!) {
        group(fullPath: $fullPath) { milestones(includeDescendants: true, sort: DUE_DATE_ASC, first: 20) { nodes { title } } }
      }`,
      { fullPath: 'corp' },
      dev.token,
    );
    // corp/sub is private and devon has no membership there: its milestone and its project's stay out.
    expect(titles(data.group.milestones.nodes)).toEqual(['P0 expired', 'G1 group', 'P1 project']);
  });

  it('milestone page header: one milestone by iid, its stats and state', async () => {
    const data = await run(
      `# milestone page
      query milestone($fullPath: ID!, $iids: [Int!]) {
        project(fullPath: $fullPath) {
          milestones(iids: $iids, first: 1) {
            nodes { id iid title state startDate dueDate upcoming expired webPath stats { totalIssuesCount closedIssuesCount } }
          }
        }
      }`,
      { fullPath: 'corp/app', iids: [1] },
    );
    expect(data.project.milestones.nodes).toEqual([
      expect.objectContaining({ iid: '1', title: 'P1 project', state: 'active', upcoming: false, stats: { totalIssuesCount: 0, closedIssuesCount: 0 } }),
    ]);
  });
});

const LABEL = `
  fragment Label on Label {
    id
    title
    description
    color
    textColor
  }`;

describe("GitLab's label documents", () => {
  it('labels select widget, project: its own and its ancestors', async () => {
    const data = await run(
      `# issue sidebar: labels select widget (project)
      query projectLabels($fullPath: ID!, $searchTerm: String) {
        workspace: project(fullPath: $fullPath) {
          id
          labels(searchTerm: $searchTerm, includeAncestorGroups: true) { nodes { ...Label } }
        }
      }
      ${LABEL}`,
      { fullPath: 'corp/app', searchTerm: '' },
    );
    expect(data.workspace.labels.nodes).toEqual([
      {
        id: expect.stringMatching(/^gid:\/\/gitlab\/ProjectLabel\/\d+$/),
        title: 'app-ui',
        description: 'Screens with a bug',
        color: '#0000FF',
        textColor: '#FFFFFF',
      },
      {
        id: expect.stringMatching(/^gid:\/\/gitlab\/GroupLabel\/\d+$/),
        title: 'group-bug',
        description: 'Defects everywhere',
        color: '#FF0000',
        textColor: '#FFFFFF',
      },
    ]);
  });

  it('labels select widget, group: group labels only', async () => {
    const data = await run(
      `# epic sidebar: labels select widget (group)
      query groupLabels($fullPath: ID!, $searchTerm: String) {
        workspace: group(fullPath: $fullPath) {
          id
          labels(searchTerm: $searchTerm, onlyGroupLabels: true, includeAncestorGroups: true) { nodes { ...Label } }
        }
      }
      ${LABEL}`,
      { fullPath: 'corp/sub', searchTerm: null },
    );
    expect(titles(data.workspace.labels.nodes)).toEqual(['group-bug', 'sub-docs']);
  });

  it("group labels list: the group's projects' labels unless onlyGroupLabels, subgroups with includeDescendantGroups", async () => {
    const document = `# group labels page / filtered search label token
      query searchLabels($fullPath: ID!, $search: String, $descendants: Boolean, $only: Boolean) {
        group(fullPath: $fullPath) {
          id
          labels(searchTerm: $search, includeAncestorGroups: true, includeDescendantGroups: $descendants, onlyGroupLabels: $only) {
            nodes { id title color textColor }
          }
        }
      }`;
    const all = await run(document, { fullPath: 'corp', descendants: true, only: false });
    expect(titles(all.group.labels.nodes)).toEqual(['app-ui', 'group-bug', 'sub-docs']);
    const own = await run(document, { fullPath: 'corp', descendants: false, only: false });
    expect(titles(own.group.labels.nodes)).toEqual(['app-ui', 'group-bug']);
    const groupsOnly = await run(document, { fullPath: 'corp', descendants: true, only: true });
    expect(titles(groupsOnly.group.labels.nodes)).toEqual(['group-bug', 'sub-docs']);
    // devon cannot read corp/sub: its labels stay out.
    const asDev = await run(document, { fullPath: 'corp', descendants: true, only: false }, dev.token);
    expect(titles(asDev.group.labels.nodes)).toEqual(['app-ui', 'group-bug']);
  });

  it('work item labels widget: searchIn chooses the fields the search reads', async () => {
    const document = `# work item labels widget
      query searchLabels($fullPath: ID!, $search: String, $searchIn: [LabelSearchFieldList!]!) {
        workspace: project(fullPath: $fullPath) {
          labels(searchTerm: $search, searchIn: $searchIn, includeAncestorGroups: true) { nodes { ...Label } }
        }
      }
      ${LABEL}`;
    const both = await run(document, { fullPath: 'corp/app', search: 'bug', searchIn: ['TITLE', 'DESCRIPTION'] });
    expect(titles(both.workspace.labels.nodes)).toEqual(['app-ui', 'group-bug']);
    const title = await run(document, { fullPath: 'corp/app', search: 'bug', searchIn: ['TITLE'] });
    expect(titles(title.workspace.labels.nodes)).toEqual(['group-bug']);
  });

  it('create label from the labels dropdown', async () => {
    const data = await run(
      `mutation createLabel($title: String!, $color: String, $projectPath: ID) {
        labelCreate(input: { title: $title, color: $color, projectPath: $projectPath }) {
          label { id color description title textColor }
          errors
        }
      }`,
      { title: 'from-dropdown', color: '#FFFFFF', projectPath: 'corp/app' },
    );
    expect(data.labelCreate).toEqual({
      label: {
        id: expect.stringMatching(/^gid:\/\/gitlab\/ProjectLabel\//),
        color: '#FFFFFF',
        description: null,
        title: 'from-dropdown',
        textColor: '#333333',
      },
      errors: [],
    });
  });
});

const MEMBER = `
  fragment MemberAccess on AccessLevel {
    integerValue
    stringValue
    humanAccess
  }`;

describe("GitLab's member documents", () => {
  it('project members page: direct and inherited, with the role as it is shown', async () => {
    const data = await run(
      `# project members page
      query projectMembers($fullPath: ID!, $relations: [ProjectMemberRelation!], $search: String, $first: Int, $after: String) {
        project(fullPath: $fullPath) {
          id
          projectMembers(relations: $relations, search: $search, first: $first, after: $after) {
            nodes {
              id
              createdAt
              expiresAt
              accessLevel { ...MemberAccess }
              user { ...User status { availability message emoji } }
            }
            pageInfo { ...PageInfo }
          }
        }
      }
      ${MEMBER}
      ${USER}
      ${PAGE_INFO}`,
      { fullPath: 'corp/app', relations: ['DIRECT', 'INHERITED'], search: null, first: 20, after: '' },
    );
    const byName = Object.fromEntries(
      data.project.projectMembers.nodes.map((m: { user: { username: string }; accessLevel: unknown }) => [m.user.username, m.accessLevel]),
    );
    expect(byName).toEqual({
      devon: { integerValue: 30, stringValue: 'DEVELOPER', humanAccess: 'Developer' },
      root: { integerValue: 50, stringValue: 'OWNER', humanAccess: 'Owner' },
    });
    const devon = data.project.projectMembers.nodes.find((m: { user: { username: string } }) => m.user.username === 'devon');
    expect(devon.user).toEqual({
      id: gid('User', dev.id),
      avatarUrl: null,
      name: 'DEVON',
      username: 'devon',
      webUrl: expect.stringMatching(/\/devon$/),
      webPath: '/devon',
      status: null,
    });
    expect(data.project.projectMembers.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('group members page: direct members of a subgroup, inherited ones', async () => {
    const document = `# group members page
      query groupMembers($fullPath: ID!, $relations: [GroupMemberRelation!], $first: Int) {
        group(fullPath: $fullPath) {
          id
          groupMembers(relations: $relations, first: $first) {
            nodes { id accessLevel { ...MemberAccess } user { ...User } }
          }
        }
      }
      ${MEMBER}
      ${USER}`;
    const inherited = await run(document, { fullPath: 'corp/sub', relations: ['INHERITED'], first: 20 });
    expect(inherited.group.groupMembers.nodes).toEqual([
      expect.objectContaining({
        accessLevel: { integerValue: 50, stringValue: 'OWNER', humanAccess: 'Owner' },
        user: expect.objectContaining({ webPath: '/root' }),
      }),
    ]);
    // The subgroup's creator is its Owner too, directly.
    const direct = await run(document, { fullPath: 'corp/sub', relations: ['DIRECT'], first: 20 });
    expect(direct.group.groupMembers.nodes).toEqual([
      expect.objectContaining({ accessLevel: expect.objectContaining({ humanAccess: 'Owner' }), user: expect.objectContaining({ username: 'root' }) }),
    ]);
  });
});

describe("GitLab's user documents", () => {
  it('user popover: the profile and the status (null: none set)', async () => {
    const data = await run(
      `# user popover
      query userPopover($userId: UserID!) {
        user(id: $userId) {
          ...User
          bio
          bot
          state
          status { availability emoji message messageHtml }
        }
      }
      ${USER}`,
      { userId: gid('User', dev.id) },
    );
    expect(data.user).toEqual({
      id: gid('User', dev.id),
      avatarUrl: null,
      name: 'DEVON',
      username: 'devon',
      webUrl: expect.stringMatching(/^http.*\/devon$/),
      webPath: '/devon',
      bio: '',
      bot: false,
      state: 'active',
      status: null,
    });
  });

  it('user autocomplete: users by search, the shared user fragment', async () => {
    const data = await run(
      `# user select / autocomplete
      query usersSearch($search: String!, $first: Int = 20) {
        users(search: $search, first: $first) { nodes { ...User } pageInfo { ...PageInfo } }
      }
      ${USER}
      ${PAGE_INFO}`,
      { search: 'dev' },
    );
    expect(data.users.nodes).toEqual([expect.objectContaining({ username: 'devon', webPath: '/devon' })]);
  });

  it('top bar: the current user with status and paths', async () => {
    const data = await run(
      `# top bar user menu
      query currentUser { currentUser { id username name webPath webUrl avatarUrl status { availability message emoji } } }`,
      {},
      dev.token,
    );
    expect(data.currentUser).toEqual({
      id: gid('User', dev.id),
      username: 'devon',
      name: 'DEVON',
      webPath: '/devon',
      webUrl: expect.stringMatching(/\/devon$/),
      avatarUrl: null,
      status: null,
    });
  });
});

const IMPORT_SOURCE_USER = `
  fragment ImportSourceUser on ImportSourceUser {
    id
    sourceUsername
    sourceName
    sourceHostname
    status
    placeholderUser { ...User }
    reassignToUser { ...User }
  }
  ${USER}`;

const IMPORT_SOURCE_USERS = `# placeholder user reassignment page: the table
  query importSourceUsers(
    $fullPath: ID!
    $before: String
    $after: String
    $first: Int
    $last: Int
    $statuses: [ImportSourceUserStatus!]
    $search: String
    $sort: SourceUserSort
  ) {
    namespace(fullPath: $fullPath) {
      id
      importSourceUsers(before: $before, after: $after, first: $first, last: $last, statuses: $statuses, search: $search, sort: $sort) {
        nodes { ...ImportSourceUser }
        pageInfo { ...PageInfo }
      }
    }
  }
  ${IMPORT_SOURCE_USER}
  ${PAGE_INFO}`;

/** One placeholder mutation as GitLab's page sends it, returning its payload. */
async function placeholderMutation(name: string, document: string, variables: Record<string, unknown>, token = t.root.token) {
  return (await run(document, variables, token))[name];
}

const SOURCE_USER_MUTATION = (operation: string, field: string) => `# placeholder user reassignment page: ${operation}
  mutation ${operation}($id: ImportSourceUserID!) {
    ${field}(input: { id: $id }) {
      errors
      importSourceUser { ...ImportSourceUser }
    }
  }
  ${IMPORT_SOURCE_USER}`;

describe("GitLab's placeholder user reassignment documents", () => {
  it('lists the awaiting tab by source name, descending, from an empty cursor', async () => {
    const data = await run(IMPORT_SOURCE_USERS, {
      fullPath: 'corp',
      after: '',
      before: '',
      first: 20,
      statuses: ['PENDING_REASSIGNMENT', 'REJECTED'],
      sort: 'SOURCE_NAME_DESC',
    });
    expect(data.namespace.id).toBe(gid('Group', corp.id));
    const nodes = data.namespace.importSourceUsers.nodes;
    expect(nodes.map((n: { sourceName: string; status: string }) => [n.sourceName, n.status])).toEqual([
      ['Cy', 'REJECTED'],
      ['Bob', 'PENDING_REASSIGNMENT'],
      ['Ada', 'PENDING_REASSIGNMENT'],
    ]);
    expect(nodes[2]).toEqual({
      id: gid('Import::SourceUser', sourceUsers.ada!),
      sourceUsername: 'ada',
      sourceName: 'Ada',
      sourceHostname: 'https://source.test',
      status: 'PENDING_REASSIGNMENT',
      placeholderUser: expect.objectContaining({ username: 'ada_placeholder_user_0', webPath: '/ada_placeholder_user_0' }),
      reassignToUser: null,
    });
    const reassigned = await run(IMPORT_SOURCE_USERS, { fullPath: 'corp', first: 20, statuses: ['COMPLETED'], search: 'de' });
    expect(reassigned.namespace.importSourceUsers.nodes).toEqual([
      expect.objectContaining({ sourceName: 'Dee', reassignToUser: expect.objectContaining({ username: 'devon' }) }),
    ]);
  });

  it('pages with the cursors it hands out, sorted by status', async () => {
    const first = await run(IMPORT_SOURCE_USERS, { fullPath: 'corp', first: 2, sort: 'STATUS_ASC' });
    const page = first.namespace.importSourceUsers;
    expect(page.nodes.map((n: { status: string }) => n.status)).toEqual(['PENDING_REASSIGNMENT', 'PENDING_REASSIGNMENT']);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await run(IMPORT_SOURCE_USERS, { fullPath: 'corp', first: 2, after: page.pageInfo.endCursor, sort: 'STATUS_ASC' });
    expect(next.namespace.importSourceUsers.nodes.map((n: { status: string }) => n.status)).toEqual(['REJECTED', 'COMPLETED']);
  });

  it("the assignee select: the group's human members", async () => {
    const data = await run(
      `# placeholder user reassignment page: assignee select
      query groupNonEnterpriseMembers($groupId: GroupID!, $search: String, $first: Int, $after: String, $active: Boolean, $humans: Boolean) {
        users(groupId: $groupId, search: $search, first: $first, after: $after, active: $active, humans: $humans) {
          nodes { ...User }
          pageInfo { ...PageInfo }
        }
      }
      ${USER}
      ${PAGE_INFO}`,
      { groupId: gid('Group', corp.id), first: 20, after: '', active: true, humans: true },
    );
    expect(data.users.nodes.map((u: { username: string }) => u.username).sort()).toEqual(['devon', 'root']);
  });

  it('reassigns, resends, cancels, keeps as placeholder, undoes it, and keeps all', async () => {
    const reassigned = await placeholderMutation(
      'importSourceUserReassign',
      `# placeholder user reassignment page: reassign
      mutation reassignPlaceholder($id: ImportSourceUserID!, $userId: UserID!) {
        importSourceUserReassign(input: { id: $id, assigneeUserId: $userId }) {
          errors
          importSourceUser { ...ImportSourceUser }
        }
      }
      ${IMPORT_SOURCE_USER}`,
      { id: gid('Import::SourceUser', sourceUsers.ada!), userId: gid('User', dev.id) },
    );
    expect(reassigned).toMatchObject({
      errors: [],
      importSourceUser: { status: 'AWAITING_APPROVAL', reassignToUser: { username: 'devon', webPath: '/devon' } },
    });

    const resent = await placeholderMutation(
      'importSourceUserResendNotification',
      SOURCE_USER_MUTATION('resendNotification', 'importSourceUserResendNotification'),
      {
        id: gid('Import::SourceUser', sourceUsers.ada!),
      },
    );
    expect(resent).toMatchObject({ errors: [], importSourceUser: { status: 'AWAITING_APPROVAL' } });

    const cancelled = await placeholderMutation(
      'importSourceUserCancelReassignment',
      SOURCE_USER_MUTATION('cancelReassignment', 'importSourceUserCancelReassignment'),
      { id: gid('Import::SourceUser', sourceUsers.ada!) },
    );
    expect(cancelled).toMatchObject({ errors: [], importSourceUser: { status: 'PENDING_REASSIGNMENT', reassignToUser: null } });

    const kept = await placeholderMutation(
      'importSourceUserKeepAsPlaceholder',
      SOURCE_USER_MUTATION('keepAsPlaceholder', 'importSourceUserKeepAsPlaceholder'),
      {
        id: gid('Import::SourceUser', sourceUsers.bob!),
      },
    );
    expect(kept).toMatchObject({ errors: [], importSourceUser: { sourceName: 'Bob', status: 'KEEP_AS_PLACEHOLDER' } });
    const row = await t.db.importSourceUser.findUniqueOrThrow({ where: { id: sourceUsers.bob! } });
    expect(row.reassignedByUserId).toBe(t.root.id);
    // Kept already: not again.
    const again = await placeholderMutation(
      'importSourceUserKeepAsPlaceholder',
      SOURCE_USER_MUTATION('keepAsPlaceholder', 'importSourceUserKeepAsPlaceholder'),
      {
        id: gid('Import::SourceUser', sourceUsers.bob!),
      },
    );
    expect(again).toEqual({ errors: ['Import source user has an invalid status for this operation'], importSourceUser: null });

    const undone = await placeholderMutation(
      'importSourceUserUndoKeepAsPlaceholder',
      SOURCE_USER_MUTATION('undoKeepAsPlaceholder', 'importSourceUserUndoKeepAsPlaceholder'),
      { id: gid('Import::SourceUser', sourceUsers.bob!) },
    );
    expect(undone).toMatchObject({ errors: [], importSourceUser: { status: 'PENDING_REASSIGNMENT' } });

    const all = await placeholderMutation(
      'importSourceUserKeepAllAsPlaceholder',
      `# placeholder user reassignment page: keep all as placeholders
      mutation keepAllAsPlaceholder($namespaceId: NamespaceID!) {
        importSourceUserKeepAllAsPlaceholder(input: { namespaceId: $namespaceId }) {
          errors
          updatedImportSourceUserCount
        }
      }`,
      { namespaceId: gid('Group', corp.id) },
    );
    // Ada and Bob (pending) and Cy (rejected); Dee is completed.
    expect(all).toEqual({ errors: [], updatedImportSourceUserCount: 3 });
    const statuses = await t.db.importSourceUser.findMany({ where: { namespaceId: corp.id }, orderBy: { id: 'asc' }, select: { status: true } });
    expect(statuses.map((s) => s.status)).toEqual(['keep_as_placeholder', 'keep_as_placeholder', 'keep_as_placeholder', 'completed']);
  });
});

/** Ten aliases of one placeholder list: past the administrator's ceiling (300) at 100 a page, far below it at 1. */
const ALIASES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

describe('the REST twins of the group lists', () => {
  const names = (items: { name?: string; title?: string }[]) => items.map((i) => i.name ?? i.title).sort();

  it("lists a group's labels below it as GraphQL does: only_group_labels and include_descendant_groups", async () => {
    const rest = async (query: string, token = t.root.token) => names((await t.api('get', `/groups/${corp.id}/labels?${query}`, token).expect(200)).body);
    const graphql = async (args: string, token = t.root.token) =>
      names((await run(`{ group(fullPath: "corp") { labels(includeAncestorGroups: true, ${args}) { nodes { title } } } }`, {}, token)).group.labels.nodes);
    // GitLab's REST default leaves the projects' labels out.
    expect(await rest('')).toEqual(['group-bug']);
    expect(await rest('include_descendant_groups=true')).toEqual(await graphql('includeDescendantGroups: true, onlyGroupLabels: true'));
    const everything = await rest('include_descendant_groups=true&only_group_labels=false');
    expect(everything).toEqual(['app-ui', 'from-dropdown', 'group-bug', 'sub-docs']);
    expect(everything).toEqual(await graphql('includeDescendantGroups: true'));
    expect(await rest('include_descendant_groups=true&only_group_labels=false', dev.token)).toEqual(await graphql('includeDescendantGroups: true', dev.token));
    // gitbeaker's types lack these GitLab options (`as never`); it sends them as query parameters all the same.
    const api = gitbeaker(t.base, t.root.token);
    expect(names((await api.GroupLabels.all(corp.id, { includeDescendantGroups: true, onlyGroupLabels: false } as never)) as { name: string }[])).toEqual(
      everything,
    );
  });

  it("lists a group's milestones with its descendants' as GraphQL does: include_descendants", async () => {
    const rest = async (query: string, token = t.root.token) => names((await t.api('get', `/groups/${corp.id}/milestones?${query}`, token).expect(200)).body);
    expect(await rest('')).toEqual(['G1 group']);
    const below = await rest('include_descendants=true');
    expect(below).toEqual(['G1 group', 'L1 subproject', 'P0 expired', 'P1 project', 'S1 subgroup']);
    const graphql = await run('{ group(fullPath: "corp") { milestones(includeDescendants: true) { nodes { title } } } }');
    expect(names(graphql.group.milestones.nodes)).toEqual(below);
    expect(await rest('include_descendants=true', dev.token)).toEqual(['G1 group', 'P0 expired', 'P1 project']);
    expect(await rest(`include_ancestors=true`)).toEqual(['G1 group']);
    const api = gitbeaker(t.base, t.root.token);
    expect(names((await api.GroupMilestones.all(corp.id, { includeDescendants: true } as never)) as { title: string }[])).toEqual(below);
  });
});

describe('access on the new fields', () => {
  it('answers null for a namespace the viewer cannot see, and refuses the placeholder list to non-owners', async () => {
    const unseen = await t.graphql('query($p: ID!) { namespace(fullPath: $p) { id } }', { p: 'corp' }, outsider.token);
    expect(unseen.body).toEqual({ data: { namespace: null } });
    const asDev = await t.graphql(IMPORT_SOURCE_USERS, { fullPath: 'corp', first: 5 }, dev.token);
    expect(asDev.body.data.namespace).toEqual({ id: gid('Group', corp.id), importSourceUsers: null });
    expect(asDev.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await t.graphql('query($p: ID!) { namespace(fullPath: $p) { fullPath } }', { p: 'olga' }, outsider.token);
    expect(own.body).toEqual({ data: { namespace: { fullPath: 'olga' } } });
  });

  it('refuses the placeholder mutations to a viewer who does not own the group', async () => {
    for (const field of ['importSourceUserKeepAsPlaceholder', 'importSourceUserUndoKeepAsPlaceholder']) {
      const res = await t.graphql(
        `mutation($id: ImportSourceUserID!) { ${field}(input: { id: $id }) { errors } }`,
        { id: gid('Import::SourceUser', sourceUsers.dee!) },
        dev.token,
      );
      expect(res.body.errors[0].extensions.code, field).toBe('FORBIDDEN');
    }
    const hiddenToOutsider = await t.graphql(
      `mutation($id: ImportSourceUserID!) { importSourceUserKeepAsPlaceholder(input: { id: $id }) { errors } }`,
      { id: gid('Import::SourceUser', sourceUsers.dee!) },
      outsider.token,
    );
    expect(hiddenToOutsider.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const all = await t.graphql(
      `mutation($ns: NamespaceID!) { importSourceUserKeepAllAsPlaceholder(input: { namespaceId: $ns }) { errors updatedImportSourceUserCount } }`,
      { ns: gid('Group', corp.id) },
      dev.token,
    );
    expect(all.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // A source user id of another class is an argument error, not a lookup.
    const wrong = await t.graphql(`mutation { importSourceUserKeepAsPlaceholder(input: { id: "gid://gitlab/User/1" }) { errors } }`);
    expect(wrong.body.errors[0].message).toContain('does not represent an instance of Import::SourceUser');
  });

  it("lists a group's members only to those who can see the group", async () => {
    const res = await t.graphql('query($g: GroupID!) { users(groupId: $g) { nodes { username } } }', { g: gid('Group', hidden.id) }, dev.token);
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const owner = await t.graphql('query($g: GroupID!) { users(groupId: $g) { nodes { username } } }', { g: gid('Group', hidden.id) }, outsider.token);
    expect(owner.body.data.users.nodes.map((u: { username: string }) => u.username).sort()).toEqual(['olga', 'root']);
  });

  it('counts the new connections in the cost of a query', async () => {
    const document = (n: number) => `query($p: ID!) { namespace(fullPath: $p) {
      ${ALIASES.map(
        (alias) =>
          `${alias}: importSourceUsers(first: ${n}, search: "") { nodes { placeholderUser { id webPath status { availability message emoji messageHtml } } } }`,
      ).join('\n')}
    } }`;
    const small = await t.graphql(document(1), { p: 'corp' });
    expect(small.body.errors).toBeUndefined();
    const large = await t.graphql(document(100), { p: 'corp' });
    expect(large.body.data).toBeUndefined();
    expect(large.body.errors[0].message).toMatch(/^Query has complexity of \d+, which exceeds max complexity of 300$/);
  });
});

describe('statements per page', () => {
  it("reads a page of a group's milestones below it, with their levels and paths, in as many statements for 2 as for 5", async () => {
    const document = (n: number) =>
      `{ group(fullPath: "corp") { milestones(includeDescendants: true, sort: DUE_DATE_ASC, first: ${n}) { nodes { title webPath subgroupMilestone } } } }`;
    await expectCounterSees(t, () => t.graphql(document(2)));
    const two = await countQueries(t, () => t.graphql(document(2)));
    const five = await countQueries(t, () => t.graphql(document(5)));
    expect((await t.graphql(document(5))).body.data.group.milestones.nodes).toHaveLength(5);
    expect(five).toBe(two);
  });

  it('reads a page of import source users with their people and namespace in as many statements for 1 as for 4', async () => {
    const document = (n: number) =>
      `{ namespace(fullPath: "corp") { importSourceUsers(first: ${n}, sort: ID_DESC) { nodes { namespace { fullPath } placeholderUser { username webPath status { availability } } reassignToUser { username } reassignedByUser { username } } } } }`;
    await expectCounterSees(t, () => t.graphql(document(1)));
    const one = await countQueries(t, () => t.graphql(document(1)));
    const four = await countQueries(t, () => t.graphql(document(4)));
    expect((await t.graphql(document(4))).body.data.namespace.importSourceUsers.nodes).toHaveLength(4);
    expect(four).toBe(one);
  });
});

describe('cursors', () => {
  const MILESTONES =
    'query($after: String, $before: String) { project(fullPath: "corp/app") { milestones(first: 1, after: $after, before: $before, sort: CREATED_ASC) { nodes { title } } } }';

  it('reads an empty after or before as no cursor', async () => {
    for (const variables of [{ after: '' }, { before: '' }, { after: '', before: '' }]) {
      const res = await t.graphql(MILESTONES, variables);
      expect(res.body, JSON.stringify(variables)).toEqual({ data: { project: { milestones: { nodes: [{ title: 'P1 project' }] } } } });
    }
  });

  it('refuses a cursor this server did not hand out, never reading a page from it', async () => {
    for (const after of [base64('OffsetConnection:1.5'), base64('OffsetConnection:-1'), base64('OffsetConnection:1e3'), base64('Other:1'), 'bogus']) {
      const res = await t.graphql(MILESTONES, { after });
      expect(res.status, after).toBeLessThan(500);
      expect(res.body.errors?.[0]?.message, after).toBe('Please provide a valid cursor');
      expect(res.body.data.project.milestones, after).toBeNull();
    }
    const handedOut = await t.graphql(MILESTONES, { after: base64('OffsetConnection:0') });
    expect(handedOut.body.data.project.milestones.nodes).toEqual([{ title: 'P0 expired' }]);
  });
});

describe('batched requests (a JSON array of operations, as Apollo batches them)', () => {
  it('answers an array of results, each operation with its own variables and errors', async () => {
    const res = await post([
      { query: 'query($u: String!) { user(username: $u) { webPath } }', variables: { u: 'devon' } },
      { operationName: 'me', query: 'query me { currentUser { username } }' },
      { query: '{ nope }' },
    ]).expect(200);
    expect(res.body).toEqual([
      { data: { user: { webPath: '/devon' } } },
      { data: { currentUser: { username: 'root' } } },
      { errors: [expect.objectContaining({ message: 'Cannot query field "nope" on type "Query".' })] },
    ]);
  });

  it('keeps the cost ceiling per operation', async () => {
    const costly = `query { namespace(fullPath: "corp") { ${ALIASES.map(
      (alias) =>
        `${alias}: importSourceUsers(first: 100, search: "") { nodes { placeholderUser { id webPath status { availability message emoji messageHtml } } } }`,
    ).join(' ')} } }`;
    const res = await post([{ query: '{ currentUser { username } }' }, { query: costly }]);
    expect(res.body[0]).toEqual({ data: { currentUser: { username: 'root' } } });
    expect(res.body[1].errors[0].message).toMatch(/exceeds max complexity of 300$/);
  });

  it('takes at most 10 operations: a 400 beyond them, and for an empty batch', async () => {
    const ten = Array.from({ length: 10 }, () => ({ query: '{ currentUser { username } }' }));
    expect((await post(ten).expect(200)).body).toHaveLength(10);
    const eleven = await post([...ten, ten[0]]).expect(400);
    expect(eleven.body.errors[0].message).toBe('Batching is limited to 10 operations per request.');
    expect((await post([]).expect(400)).body.errors[0].message).toBe('A batched request needs at least one operation.');
  });

  it('answers batches of things that are not requests with a 4xx, never a 500', async () => {
    for (const body of [
      [1],
      [null],
      ['{ currentUser { username } }'],
      [[{ query: '{ currentUser { username } }' }]],
      [{ query: '{ currentUser { username } }' }, null],
    ]) {
      const res = await post(body);
      expect([res.status, res.body.errors?.[0]?.message], JSON.stringify(body)).toEqual([400, 'Each operation of a batched request must be a JSON object.']);
    }
    const empty = await post([{}]);
    expect(empty.status).toBeLessThan(500);
    expect(JSON.stringify(empty.body)).toContain('Must provide query string.');
  });
});
