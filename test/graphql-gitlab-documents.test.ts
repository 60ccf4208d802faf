// GitLab-shaped GraphQL documents, written the way GitLab's frontend writes its own: named
// operations with typed variables, fragments, `__typename`, pagination info, and mutations with
// one `input:` returning `errors` and `clientMutationId`. Each asserts the data it gets back, so a
// schema that drifts from GitLab's names or types fails here (docs/api.md lists the documents).
// Queries also run through graphql-jit and through Yoga's own executor: the same bytes both ways.
import { getNamedType, isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/kernel.ts';
import { createTestApp, EXTERNAL_URL, seedProject, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';

let t: TestApp;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string; default_branch: string };
let dev: Awaited<ReturnType<TestApp['user']>>;
let engines: Awaited<ReturnType<typeof graphqlEngines>>;

/**
 * Runs a document and returns its data; any GraphQL error fails the test with the messages.
 * Queries run on both executors (compared); mutations once, as they change the data.
 */
async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const gid = (className: string, id: number) => `gid://gitlab/${className}/${id}`;

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  ({ group, project } = await seedProject(t));
  dev = await t.user('devon');
  await t.api('post', `/groups/${group.id}/labels`).send({ name: 'group-wide', color: '#428BCA' }).expect(201);
  await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'G1', due_date: '2030-01-01' }).expect(201);
});
afterAll(() => t.close());

describe('the schema as GitLab shapes it', () => {
  it('gives every mutation one input: with clientMutationId, and a payload with errors: [String!]! and clientMutationId', () => {
    const problems: string[] = [];
    for (const field of Object.values(schema.getMutationType()!.getFields())) {
      const [arg, ...rest] = field.args;
      const input = arg && getNamedType(arg.type);
      if (!arg || rest.length || arg.name !== 'input' || !isNonNullType(arg.type) || !isInputObjectType(input)) problems.push(`${field.name}: arguments`);
      else if (String(input.getFields().clientMutationId?.type) !== 'String') problems.push(`${field.name}: input clientMutationId`);
      const payload = getNamedType(field.type);
      if (!isObjectType(payload)) problems.push(`${field.name}: payload`);
      else {
        if (String(payload.getFields().errors?.type) !== '[String!]!') problems.push(`${field.name}: errors`);
        if (String(payload.getFields().clientMutationId?.type) !== 'String') problems.push(`${field.name}: payload clientMutationId`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names timestamps Time and takes typed global ids where GitLab does', () => {
    expect(schema.getType('DateTime')).toBeUndefined();
    const query = schema.getQueryType()!.getFields();
    expect(String(query.user!.args.find((a) => a.name === 'id')!.type)).toBe('UserID');
    expect(String(query.currentUser!.type)).toBe('CurrentUser');
    for (const name of ['UserID', 'ProjectID', 'GroupID', 'NamespaceID', 'MilestoneID', 'LabelID', 'ReleasesLinkID'])
      expect(schema.getType(name), name).toBeDefined();
  });

  it('echoes clientMutationId from every mutation, including those that do not keep it themselves', async () => {
    const res = await run(`mutation tag($input: TagCreateInput!) { tagCreate(input: $input) { clientMutationId errors tag { name } } }`, {
      input: { projectPath: project.path_with_namespace, name: 'echo-1', ref: 'main', clientMutationId: 'tag-echo' },
    });
    expect(res.tagCreate).toEqual({ clientMutationId: 'tag-echo', errors: [], tag: { name: 'echo-1' } });
    const aliased = await run(
      `mutation { first: tagDelete(input: { projectPath: "${project.path_with_namespace}", name: "echo-1", clientMutationId: "del" }) { clientMutationId errors } }`,
    );
    expect(aliased.first).toEqual({ clientMutationId: 'del', errors: [] });
  });
});

const MEMBER_ADD = `
  mutation addProjectMember($projectPath: ID!, $userId: UserID!, $accessLevel: Int!, $clientMutationId: String) {
    memberCreate(input: { projectPath: $projectPath, userId: $userId, accessLevel: $accessLevel, clientMutationId: $clientMutationId }) {
      __typename
      clientMutationId
      errors
      member {
        __typename
        id
        accessLevel { integerValue stringValue }
        user { __typename id username }
      }
    }
  }`;

describe('member mutations with input:', () => {
  it('adds, updates and removes a project member, echoing clientMutationId', async () => {
    const vars = { projectPath: project.path_with_namespace, userId: gid('User', dev.id), accessLevel: 30, clientMutationId: 'add-1' };
    const added = (await run(MEMBER_ADD, vars)).memberCreate;
    expect(added).toEqual({
      __typename: 'MemberCreatePayload',
      clientMutationId: 'add-1',
      errors: [],
      member: {
        __typename: 'Member',
        id: expect.stringMatching(/^gid:\/\/gitlab\/ProjectMember\/\d+$/),
        accessLevel: { integerValue: 30, stringValue: 'DEVELOPER' },
        user: { __typename: 'UserCore', id: gid('User', dev.id), username: 'devon' },
      },
    });
    // Validation failures are payload errors, as in GitLab.
    const again = (await run(MEMBER_ADD, { ...vars, clientMutationId: 'add-2' })).memberCreate;
    expect(again).toMatchObject({ clientMutationId: 'add-2', errors: ['Member already exists'], member: null });

    const updated = await run(
      `mutation updateMember($input: MemberUpdateInput!) {
        memberUpdate(input: $input) { errors member { accessLevel { stringValue } expiresAt } }
      }`,
      { input: { projectPath: project.path_with_namespace, userId: gid('User', dev.id), accessLevel: 40, expiresAt: '2031-05-01' } },
    );
    expect(updated.memberUpdate).toEqual({ errors: [], member: { accessLevel: { stringValue: 'MAINTAINER' }, expiresAt: '2031-05-01' } });
    expect((await t.db.member.findFirstOrThrow({ where: { projectId: project.id, userId: dev.id } })).accessLevel).toBe(40);
  });

  it('refuses a global id of the wrong class as a clear argument error, not a 500', async () => {
    const res = await engines.compare(
      MEMBER_ADD,
      { projectPath: project.path_with_namespace, userId: gid('Project', project.id), accessLevel: 30 },
      t.root.token,
      { compiled: false },
    );
    // A variable that does not coerce is a request error (GraphQL over HTTP: 400), never a 500.
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain(`"gid://gitlab/Project/${project.id}" does not represent an instance of User`);
    const garbage = await engines.compare('query($id: UserID!) { user(id: $id) { username } }', { id: '42' }, t.root.token, { compiled: false });
    expect(garbage.body.errors[0].message).toContain('"42" is not a valid Global ID');
    const literal = await engines.compare(`{ user(id: "gid://gitlab/Group/${group.id}") { username } }`, {}, t.root.token, { compiled: false });
    expect(literal.body.errors[0].message).toContain('does not represent an instance of User');
    const rule = await engines.compare(
      `mutation { deletePackagesProtectionRule(input: { id: "gid://gitlab/Project/${project.id}" }) { errors } }`,
      {},
      t.root.token,
      { compiled: false },
    );
    expect(rule.body.errors[0].message).toContain('does not represent an instance of Packages::Protection::Rule');
    // A subclass is accepted where GitLab accepts one: a Group is a Namespace.
    const inGroup = await run(`mutation($ns: NamespaceID) { projectCreate(input: { name: "Typed", namespaceId: $ns }) { errors project { fullPath } } }`, {
      ns: gid('Group', group.id),
    });
    expect(inGroup.projectCreate).toEqual({ errors: [], project: { fullPath: 'acme/typed' } });
  });

  it('lists members with GitLab relation enums', async () => {
    const data = await run(
      `query projectMembers($fullPath: ID!, $relations: [ProjectMemberRelation!]) {
        project(fullPath: $fullPath) {
          __typename
          id
          projectMembers(relations: $relations, first: 20) {
            __typename
            nodes { __typename id accessLevel { integerValue } user { username } }
            pageInfo { hasNextPage endCursor }
          }
        }
      }`,
      { fullPath: project.path_with_namespace, relations: ['DIRECT', 'INVITED_GROUPS'] },
    );
    const usernames = data.project.projectMembers.nodes.map((n: { user: { username: string } }) => n.user.username);
    expect(usernames).toContain('devon');
    const groupData = await run(
      `query groupMembers($fullPath: ID!, $relations: [GroupMemberRelation!] = [DIRECT, INHERITED]) {
        group(fullPath: $fullPath) { id groupMembers(relations: $relations) { nodes { user { username } } } }
      }`,
      { fullPath: group.full_path },
    );
    expect(groupData.group.groupMembers.nodes.map((n: { user: { username: string } }) => n.user.username)).toEqual(['root']);
  });
});

const MILESTONE = `
  fragment MilestoneFragment on Milestone {
    __typename
    id
    iid
    title
    description
    state
    dueDate
    startDate
    expired
    upcoming
    webPath
    webUrl
    stats { __typename totalIssuesCount closedIssuesCount }
  }`;

describe('milestones', () => {
  let milestoneId: string;

  it('creates and updates a milestone with input:', async () => {
    const created = await run(
      `mutation createMilestone($input: MilestoneCreateInput!) {
        milestoneCreate(input: $input) { clientMutationId errors milestone { ...MilestoneFragment } }
      }
      ${MILESTONE}`,
      {
        input: {
          projectPath: project.path_with_namespace,
          title: 'v1.0',
          description: 'first',
          startDate: '2099-01-01',
          dueDate: '2099-02-01',
          clientMutationId: 'm1',
        },
      },
    );
    const milestone = created.milestoneCreate.milestone;
    milestoneId = milestone.id;
    expect(created.milestoneCreate).toMatchObject({ clientMutationId: 'm1', errors: [] });
    expect(milestone).toEqual({
      __typename: 'Milestone',
      id: expect.stringMatching(/^gid:\/\/gitlab\/Milestone\/\d+$/),
      iid: '1',
      title: 'v1.0',
      description: 'first',
      state: 'active',
      dueDate: '2099-02-01',
      startDate: '2099-01-01',
      expired: false,
      upcoming: true,
      webPath: `/${project.path_with_namespace}/-/milestones/1`,
      webUrl: `${EXTERNAL_URL}/${project.path_with_namespace}/-/milestones/1`,
      stats: { __typename: 'MilestoneStats', totalIssuesCount: 0, closedIssuesCount: 0 },
    });
    const invalid = await run(`mutation($input: MilestoneCreateInput!) { milestoneCreate(input: $input) { errors milestone { id } } }`, {
      input: { projectPath: project.path_with_namespace, title: 'bad', startDate: '2099-03-01', dueDate: '2099-02-01' },
    });
    expect(invalid.milestoneCreate).toEqual({ errors: ['Due date must be greater than start date'], milestone: null });

    const closed = await run(
      `mutation closeMilestone($id: MilestoneID!, $projectPath: ID!) {
        milestoneUpdate(input: { id: $id, projectPath: $projectPath, stateEvent: close }) { errors milestone { state } }
      }`,
      { id: milestoneId, projectPath: project.path_with_namespace },
    );
    expect(closed.milestoneUpdate).toEqual({ errors: [], milestone: { state: 'closed' } });
  });

  it('answers the milestone dropdown query with ancestors, sort and ids', async () => {
    const data = await run(
      `query projectMilestones($fullPath: ID!, $title: String, $state: MilestoneStateEnum) {
        workspace: project(fullPath: $fullPath) {
          __typename
          id
          attributes: milestones(searchTitle: $title, state: $state, sort: EXPIRED_LAST_DUE_DATE_ASC, first: 20, includeAncestors: true) {
            nodes { ...MilestoneFragment }
          }
        }
      }
      ${MILESTONE}`,
      { fullPath: project.path_with_namespace },
    );
    expect(data.workspace.attributes.nodes.map((m: { title: string }) => m.title)).toEqual(['G1', 'v1.0']);
    const own = await run(`query($fullPath: ID!) { project(fullPath: $fullPath) { milestones { nodes { title } } } }`, {
      fullPath: project.path_with_namespace,
    });
    expect(own.project.milestones.nodes).toEqual([{ title: 'v1.0' }]);
    const byId = await run(
      `query($fullPath: ID!, $ids: [ID!], $date: Time) { project(fullPath: $fullPath) { milestones(ids: $ids, containingDate: $date) { nodes { title } } } }`,
      { fullPath: project.path_with_namespace, ids: [milestoneId], date: '2099-01-15T00:00:00Z' },
    );
    expect(byId.project.milestones.nodes).toEqual([{ title: 'v1.0' }]);
    const outside = await run(
      `query($fullPath: ID!, $timeframe: Timeframe) { project(fullPath: $fullPath) { milestones(timeframe: $timeframe) { nodes { title } } } }`,
      { fullPath: project.path_with_namespace, timeframe: { start: '2098-01-01', end: '2098-12-31' } },
    );
    expect(outside.project.milestones.nodes).toEqual([]);
  });
});

const LABEL = `
  fragment Label on Label {
    __typename
    id
    title
    description
    color
    textColor
  }`;

describe('labels', () => {
  it('creates a label with input: and finds it as the labels select does', async () => {
    const created = await run(
      `mutation createLabel($title: String!, $color: String, $projectPath: ID) {
        labelCreate(input: { title: $title, color: $color, projectPath: $projectPath }) { errors label { ...Label } }
      }
      ${LABEL}`,
      { title: 'bug', color: '#FF0000', projectPath: project.path_with_namespace },
    );
    expect(created.labelCreate).toEqual({
      errors: [],
      label: {
        __typename: 'Label',
        id: expect.stringMatching(/^gid:\/\/gitlab\/ProjectLabel\/\d+$/),
        title: 'bug',
        description: null,
        color: '#FF0000',
        textColor: '#FFFFFF',
      },
    });
    // GitLab's default colour when none is given.
    const plain = await run(`mutation { labelCreate(input: { title: "plain", projectPath: "${project.path_with_namespace}" }) { label { color } } }`);
    expect(plain.labelCreate.label.color).toBe('#6699CC');

    const labels = (vars: Record<string, unknown>) =>
      run(
        `query projectLabels($fullPath: ID!, $searchTerm: String, $title: String, $includeAncestorGroups: Boolean) {
          workspace: project(fullPath: $fullPath) {
            __typename
            id
            labels(searchTerm: $searchTerm, title: $title, includeAncestorGroups: $includeAncestorGroups) { nodes { ...Label } }
          }
        }
        ${LABEL}`,
        { fullPath: project.path_with_namespace, ...vars },
      ).then((data) => data.workspace.labels.nodes.map((l: { title: string }) => l.title));
    expect(await labels({})).toEqual(['bug', 'plain']);
    expect(await labels({ includeAncestorGroups: true })).toEqual(['bug', 'group-wide', 'plain']);
    expect(await labels({ searchTerm: 'ug', includeAncestorGroups: true })).toEqual(['bug']);
    expect(await labels({ title: 'plain' })).toEqual(['plain']);
    // REST keeps GitLab's REST default: ancestor groups' labels included.
    const rest = await t.api('get', `/projects/${project.id}/labels`).expect(200);
    expect(rest.body.map((l: { name: string }) => l.name)).toEqual(['bug', 'group-wide', 'plain']);
  });
});

describe('lookups by full path', () => {
  it('answers currentUser as CurrentUser', async () => {
    const data = await run(`query getCurrentUser { currentUser { __typename id username name avatarUrl webUrl } }`, {}, dev.token);
    expect(data.currentUser).toEqual({
      __typename: 'CurrentUser',
      id: gid('User', dev.id),
      username: 'devon',
      name: 'DEVON',
      avatarUrl: null,
      webUrl: `${EXTERNAL_URL}/devon`,
    });
    const byId = await run(`query getUser($id: UserID!) { user(id: $id) { __typename id username } }`, { id: gid('User', dev.id) });
    expect(byId.user).toEqual({ __typename: 'UserCore', id: gid('User', dev.id), username: 'devon' });
  });

  it('answers a project by fullPath with userPermissions and repository state', async () => {
    const doc = `query getProject($fullPath: ID!) {
      project(fullPath: $fullPath) {
        __typename
        id
        fullPath
        userPermissions { __typename pushCode forkProject readCode downloadCode adminProject createRelease removeProject }
        repository { __typename empty exists rootRef }
      }
    }`;
    const asRoot = await run(doc, { fullPath: project.path_with_namespace });
    expect(asRoot.project).toEqual({
      __typename: 'Project',
      id: gid('Project', project.id),
      fullPath: project.path_with_namespace,
      userPermissions: {
        __typename: 'ProjectPermissions',
        pushCode: true,
        forkProject: true,
        readCode: true,
        downloadCode: true,
        adminProject: true,
        createRelease: true,
        removeProject: true,
      },
      repository: { __typename: 'Repository', empty: false, exists: true, rootRef: 'main' },
    });
    // devon is a Maintainer now (see the member mutations above): no removal.
    const asDev = await run(doc, { fullPath: project.path_with_namespace }, dev.token);
    expect(asDev.project.userPermissions).toMatchObject({ pushCode: true, adminProject: true, createRelease: true, removeProject: false });
    const outsider = await t.user('outsider');
    expect((await run(doc, { fullPath: project.path_with_namespace }, outsider.token)).project).toBeNull();

    const empty = (await t.api('post', '/projects').send({ name: 'Empty', namespace_id: group.id }).expect(201)).body;
    const emptyData = await run(`query($fullPath: ID!) { project(fullPath: $fullPath) { repository { empty exists } } }`, {
      fullPath: empty.path_with_namespace,
    });
    expect(emptyData.project.repository).toEqual({ empty: true, exists: true });
  });

  it('answers a group by fullPath and lists projects with GitLab arguments', async () => {
    const data = await run(
      `query getGroup($fullPath: ID!) { group(fullPath: $fullPath) { __typename id fullPath name projects(first: 10) { nodes { fullPath } } } }`,
      { fullPath: group.full_path },
    );
    expect(data.group).toMatchObject({ __typename: 'Group', id: gid('Group', group.id), fullPath: 'acme', name: 'Acme' });
    const projects = await run(
      `query searchProjects($search: String, $ids: [ID!], $sort: String, $searchNamespaces: Boolean, $membership: Boolean) {
        projects(search: $search, ids: $ids, sort: $sort, searchNamespaces: $searchNamespaces, membership: $membership, first: 20) {
          nodes { id fullPath }
        }
      }`,
      { search: 'acme', searchNamespaces: true, sort: 'name_asc', membership: true },
    );
    expect(projects.projects.nodes.map((p: { fullPath: string }) => p.fullPath)).toEqual(['acme/app', 'acme/empty', 'acme/typed']);
    const byIds = await run(`query($ids: [ID!]) { projects(ids: $ids) { nodes { fullPath } } }`, { ids: [gid('Project', project.id)] });
    expect(byIds.projects.nodes).toEqual([{ fullPath: 'acme/app' }]);
    const withoutNamespaces = await run(`{ projects(search: "acme") { nodes { fullPath } } }`);
    expect(withoutNamespaces.projects.nodes).toEqual([]);
  });
});

const RELEASE = `
  fragment Release on Release {
    __typename
    id
    name
    tagName
    tagPath
    descriptionHtml
    releasedAt
    createdAt
    upcomingRelease
    assets {
      __typename
      count
      sources { __typename nodes { __typename format url } }
      links { __typename nodes { __typename id name url directAssetUrl linkType external } }
    }
    evidences { __typename nodes { __typename id filepath collectedAt sha } }
    links { __typename editUrl selfUrl openedIssuesUrl closedIssuesUrl openedMergeRequestsUrl mergedMergeRequestsUrl closedMergeRequestsUrl }
    commit { __typename id sha webUrl webPath title fullTitle description authorGravatar author { username } }
    author { __typename id webUrl avatarUrl username }
    milestones { __typename nodes { __typename id title description webPath stats { __typename totalIssuesCount closedIssuesCount } } }
  }`;

describe('releases', () => {
  beforeAll(async () => {
    await t
      .api('post', `/projects/${project.id}/releases`)
      .send({
        tag_name: 'v1.0',
        ref: 'main',
        name: 'One',
        description: 'The **first**',
        released_at: '2026-01-01T00:00:00Z',
        milestones: ['v1.0'],
        assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] },
      })
      .expect(201);
    await t
      .api('post', `/projects/${project.id}/releases`)
      .send({ tag_name: 'v2.0', ref: 'main', name: 'Two', released_at: '2026-02-01T00:00:00Z' })
      .expect(201);
  });

  it('answers the release list query (allReleases style)', async () => {
    const doc = `query allReleases($fullPath: ID!, $first: Int, $last: Int, $before: String, $after: String, $sort: ReleaseSort) {
      project(fullPath: $fullPath) {
        __typename
        id
        releases(first: $first, last: $last, before: $before, after: $after, sort: $sort) {
          __typename
          nodes { ...Release }
          pageInfo { __typename startCursor hasPreviousPage hasNextPage endCursor }
        }
      }
    }
    ${RELEASE}`;
    const data = await run(doc, { fullPath: project.path_with_namespace, first: 1, sort: 'RELEASED_AT_DESC' });
    const { nodes, pageInfo } = data.project.releases;
    expect(nodes.map((r: { tagName: string }) => r.tagName)).toEqual(['v2.0']);
    expect(pageInfo).toMatchObject({ __typename: 'PageInfo', hasNextPage: true, hasPreviousPage: false });
    const next = await run(doc, { fullPath: project.path_with_namespace, first: 1, after: pageInfo.endCursor, sort: 'RELEASED_AT_DESC' });
    const [one] = next.project.releases.nodes;
    const sha = (await t.api('get', `/projects/${project.id}/repository/branches/main`).expect(200)).body.commit.id;
    expect(one).toMatchObject({
      __typename: 'Release',
      id: expect.stringMatching(/^gid:\/\/gitlab\/Release\/\d+$/),
      name: 'One',
      tagName: 'v1.0',
      descriptionHtml: expect.stringContaining('<strong>first</strong>'),
      releasedAt: '2026-01-01T00:00:00.000Z',
      upcomingRelease: false,
      assets: {
        count: 5,
        links: {
          nodes: [
            {
              __typename: 'ReleaseAssetLink',
              id: expect.stringMatching(/^gid:\/\/gitlab\/Releases::Link\/\d+$/),
              name: 'bin',
              url: 'https://example.com/bin',
              linkType: 'OTHER',
              external: true,
              directAssetUrl: 'https://example.com/bin',
            },
          ],
        },
      },
      commit: {
        __typename: 'Commit',
        sha,
        webPath: `/${project.path_with_namespace}/-/commit/${sha}`,
        title: expect.any(String),
        fullTitle: expect.any(String),
        authorGravatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?/),
      },
      author: { __typename: 'UserCore', username: 'root' },
      milestones: {
        nodes: [
          {
            title: 'v1.0',
            webPath: `/${project.path_with_namespace}/-/milestones/1`,
            stats: { __typename: 'MilestoneStats', totalIssuesCount: 0, closedIssuesCount: 0 },
          },
        ],
      },
    });
    expect(one.assets.sources.nodes.map((s: { format: string }) => s.format)).toEqual(['zip', 'tar.gz', 'tar.bz2', 'tar']);
  });

  it('answers the group release list with GroupReleaseSort', async () => {
    const data = await run(
      `query groupReleases($fullPath: ID!, $first: Int, $sort: GroupReleaseSort) {
        group(fullPath: $fullPath) { __typename id releases(first: $first, sort: $sort) { nodes { tagName } } }
      }`,
      { fullPath: group.full_path, first: 10, sort: 'RELEASED_AT_ASC' },
    );
    expect(data.group.releases.nodes).toEqual([{ tagName: 'v1.0' }, { tagName: 'v2.0' }]);
    const wrong = await engines.compare(`{ group(fullPath: "acme") { releases(sort: CREATED_ASC) { nodes { tagName } } } }`, {}, t.root.token, {
      compiled: false,
    });
    expect(wrong.body.errors[0].message).toMatch(/GroupReleaseSort/);
  });
});

describe('branch mutations with input:', () => {
  it('creates and deletes a branch as GitLab integrations do', async () => {
    const created = await run(
      `mutation createBranch($name: String!, $ref: String!, $projectPath: ID!) {
        createBranch(input: { name: $name, ref: $ref, projectPath: $projectPath, clientMutationId: "b1" }) { clientMutationId errors branch { name } }
      }`,
      { name: 'feature', ref: 'main', projectPath: project.path_with_namespace },
    );
    expect(created.createBranch).toEqual({ clientMutationId: 'b1', errors: [], branch: { name: 'feature' } });
    const deleted = await run(`mutation deleteBranch($input: BranchDeleteInput!) { branchDelete(input: $input) { errors } }`, {
      input: { name: 'feature', projectPath: project.path_with_namespace },
    });
    expect(deleted.branchDelete).toEqual({ errors: [] });
    await t.api('get', `/projects/${project.id}/repository/branches/feature`).expect(404);
  });
});
