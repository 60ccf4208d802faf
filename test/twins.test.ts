// Every area read through REST and GraphQL by the same viewer: the same outcome, and the same
// value for every field both interfaces expose. One seeded app for the whole file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { at, expectTwins, type Json, listAt, type Outcome, type Twin } from './helpers/twins.ts';

type Viewer = 'owner' | 'developer' | 'guest' | 'outsider';
const VIEWERS: Viewer[] = ['owner', 'developer', 'guest', 'outsider'];

let t: TestApp;
const tokens = {} as Record<Viewer, string>;
const ids = {} as Record<Viewer, number>;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let milestone: { id: number };
let link: { id: number };

beforeAll(async () => {
  t = await createTestApp();
  for (const viewer of VIEWERS) {
    const user = await t.user(`twin-${viewer}`);
    tokens[viewer] = user.token;
    ids[viewer] = user.id;
  }
  const as = (method: 'post' | 'put', path: string, body: object) => t.api(method, path, tokens.owner).send(body).expect(201);
  group = (await as('post', '/groups', { name: 'Twins', path: 'twins', description: 'both ways' })).body;
  await as('post', `/groups/${group.id}/members`, { user_id: ids.developer, access_level: 30 });
  await as('post', `/groups/${group.id}/members`, { user_id: ids.guest, access_level: 10 });
  project = (await as('post', '/projects', { name: 'Mirror', namespace_id: group.id, description: 'one model', initialize_with_readme: true })).body;
  const base = `/projects/${project.id}`;
  milestone = (await as('post', `${base}/milestones`, { title: 'M1', description: 'first', due_date: '2031-01-31' })).body;
  await as('post', `${base}/labels`, { name: 'bug', color: '#d9534f', description: 'broken', priority: 1 });
  await as('post', `${base}/repository/branches`, { branch: 'feature', ref: 'main' });
  await as('post', `${base}/repository/tags`, { tag_name: 'v1', ref: 'main', message: 'Version one' });
  await as('post', `${base}/releases`, { tag_name: 'v1', name: 'One', description: 'The **first**', milestones: ['M1'] });
  link = (await as('post', `${base}/releases/v1/assets/links`, { name: 'linux', url: 'https://cdn.test/linux', direct_asset_path: '/bin/linux' })).body;
  await as('post', `${base}/statuses/main`, { state: 'success', name: 'twin-ci', description: 'green', target_url: 'https://ci.test/1' });
  await as('post', `${base}/packages/protection/rules`, { package_name_pattern: '@twins/*', package_type: 'npm', minimum_access_level_for_push: 'maintainer' });
  // A private project is invisible to non-members, who cannot ask through the API; the row is seeded.
  const requester = await t.user('twin-requester');
  await t.db.accessRequest.create({ data: { projectId: project.id, userId: requester.id } });
});
afterAll(() => t.close());

const userFields = {
  id: 'databaseId',
  username: 'username',
  name: 'name',
  state: 'state',
  locked: 'locked',
  avatar_url: 'avatarUrl',
  web_url: 'webUrl',
  created_at: 'createdAt',
  bio: 'bio',
  public_email: 'publicEmail',
  bot: 'bot',
  email: 'email',
  is_admin: 'isAdmin',
  can_create_group: 'canCreateGroup',
  projects_limit: 'projectsLimit',
  confirmed_at: 'confirmedAt',
};
const USER = `databaseId username name state locked avatarUrl webUrl createdAt bio publicEmail bot email isAdmin canCreateGroup projectsLimit confirmedAt`;

const commitFields = (prefix = '', rest = '') => ({
  [`${rest}id`]: `${prefix}sha`,
  [`${rest}short_id`]: `${prefix}shortId`,
  [`${rest}title`]: `${prefix}title`,
  [`${rest}message`]: `${prefix}message`,
  [`${rest}parent_ids`]: `${prefix}parentIds`,
  [`${rest}author_name`]: `${prefix}authorName`,
  [`${rest}author_email`]: `${prefix}authorEmail`,
  [`${rest}authored_date`]: `${prefix}authoredDate`,
  [`${rest}committer_name`]: `${prefix}committerName`,
  [`${rest}committer_email`]: `${prefix}committerEmail`,
  [`${rest}committed_date`]: `${prefix}committedDate`,
  [`${rest}created_at`]: `${prefix}committedDate`,
  [`${rest}web_url`]: `${prefix}webUrl`,
});
const COMMIT = 'sha shortId title message parentIds authorName authorEmail authoredDate committerName committerEmail committedDate webUrl';

const inProject = (selection: string) => `query($id: Int!) { project(id: $id) { ${selection} } }`;

/** Each area: the twin to read, and what each viewer gets (both outcomes where GitLab's interfaces differ). */
const AREAS: Record<string, { twin: () => Twin; outcomes: Record<Viewer, Outcome | { rest: Outcome; graphql: Outcome }> }> = {
  users: {
    twin: () => ({
      rest: `/users/${ids.developer}`,
      graphql: `query($id: UserID!) { user(id: $id) { ${USER} } }`,
      variables: { id: `gid://gitlab/User/${ids.developer}` },
      at: 'user',
      fields: userFields,
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'visible' },
  },
  groups: {
    twin: () => ({
      rest: `/groups/${group.id}`,
      graphql: `query($id: Int!) { group(id: $id) { databaseId webUrl name path description visibility avatarUrl requestAccessEnabled fullName fullPath createdAt parentId } }`,
      variables: { id: group.id },
      at: 'group',
      fields: {
        id: 'databaseId',
        web_url: 'webUrl',
        name: 'name',
        path: 'path',
        description: 'description',
        visibility: 'visibility',
        avatar_url: 'avatarUrl',
        request_access_enabled: 'requestAccessEnabled',
        full_name: 'fullName',
        full_path: 'fullPath',
        created_at: 'createdAt',
        parent_id: 'parentId',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  projects: {
    twin: () => ({
      rest: `/projects/${project.id}`,
      graphql: inProject(`databaseId description name nameWithNamespace path fullPath createdAt updatedAt defaultBranch topics sshUrlToRepo httpUrlToRepo
        webUrl avatarUrl forksCount starCount lastActivityAt visibility archived creatorId namespace { databaseId name path kind fullPath parentId webUrl }
        openIssuesCount emptyRepo readmeUrl forkedFrom { databaseId } apiSettings
        viewerAccess { projectAccess { accessLevel } groupAccess { accessLevel } }`),
      variables: { id: project.id },
      at: 'project',
      fields: {
        id: 'databaseId',
        description: 'description',
        name: 'name',
        name_with_namespace: 'nameWithNamespace',
        path: 'path',
        path_with_namespace: 'fullPath',
        created_at: 'createdAt',
        updated_at: 'updatedAt',
        default_branch: 'defaultBranch',
        topics: 'topics',
        tag_list: 'topics',
        ssh_url_to_repo: 'sshUrlToRepo',
        http_url_to_repo: 'httpUrlToRepo',
        web_url: 'webUrl',
        avatar_url: 'avatarUrl',
        forks_count: 'forksCount',
        star_count: 'starCount',
        last_activity_at: 'lastActivityAt',
        visibility: 'visibility',
        archived: 'archived',
        creator_id: 'creatorId',
        'namespace.id': 'namespace.databaseId',
        'namespace.name': 'namespace.name',
        'namespace.path': 'namespace.path',
        'namespace.kind': 'namespace.kind',
        'namespace.full_path': 'namespace.fullPath',
        'namespace.parent_id': 'namespace.parentId',
        'namespace.web_url': 'namespace.webUrl',
        open_issues_count: 'openIssuesCount',
        empty_repo: 'emptyRepo',
        readme_url: 'readmeUrl',
        // Not a fork: REST leaves the key out, GraphQL answers null.
        'forked_from_project.id': (node) => at(node, 'forkedFrom.databaseId') ?? null,
        lfs_enabled: 'apiSettings.lfs_enabled',
        snippets_enabled: 'apiSettings.snippets_enabled',
        snippets_access_level: 'apiSettings.snippets_access_level',
        merge_method: 'apiSettings.merge_method',
        build_timeout: 'apiSettings.build_timeout',
        ci_config_path: 'apiSettings.ci_config_path',
        // Null where the viewer has no such membership, through both.
        'permissions.project_access.access_level': (node) => at(node, 'viewerAccess.projectAccess.accessLevel') ?? null,
        'permissions.group_access.access_level': (node) => at(node, 'viewerAccess.groupAccess.accessLevel') ?? null,
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  members: {
    twin: () => ({
      rest: `/projects/${project.id}/members/all/${ids.developer}`,
      graphql: inProject(`member(userId: ${ids.developer}, inherited: true) {
        accessLevel { integerValue } createdAt expiresAt membershipState user { databaseId username name state webUrl } createdBy { username } }`),
      variables: { id: project.id },
      at: 'project.member',
      fields: {
        id: 'user.databaseId',
        username: 'user.username',
        name: 'user.name',
        state: 'user.state',
        web_url: 'user.webUrl',
        access_level: 'accessLevel.integerValue',
        created_at: 'createdAt',
        expires_at: 'expiresAt',
        membership_state: 'membershipState',
        'created_by.username': 'createdBy.username',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  milestones: {
    twin: () => ({
      rest: `/projects/${project.id}/milestones/${milestone.id}`,
      graphql: inProject(
        `milestone(id: ${milestone.id}) { databaseId iid projectId title description state createdAt updatedAt dueDate startDate expired webUrl }`,
      ),
      variables: { id: project.id },
      at: 'project.milestone',
      fields: {
        // GraphQL types iid as GitLab does (ID, a string); REST answers the number.
        id: 'databaseId',
        iid: (m) => Number(m.iid),
        project_id: 'projectId',
        title: 'title',
        description: 'description',
        state: 'state',
        created_at: 'createdAt',
        updated_at: 'updatedAt',
        due_date: 'dueDate',
        start_date: 'startDate',
        expired: 'expired',
        web_url: 'webUrl',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  labels: {
    twin: () => ({
      rest: `/projects/${project.id}/labels`,
      restPick: (body) => (body as { name: string }[]).find((l) => l.name === 'bug'),
      graphql: inProject('labels { nodes { databaseId title color textColor description priority isProjectLabel subscribed } }'),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.labels.nodes')?.find((l) => l.title === 'bug'),
      fields: {
        id: 'databaseId',
        name: 'title',
        color: 'color',
        text_color: 'textColor',
        description: 'description',
        priority: 'priority',
        is_project_label: 'isProjectLabel',
        subscribed: 'subscribed',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  releases: {
    twin: () => ({
      rest: `/projects/${project.id}/releases/v1`,
      graphql: inProject(`release(tagName: "v1") { name tagName description createdAt releasedAt upcomingRelease author { username }
        commit { sha title } commitPath tagPath milestones { nodes { title } } assets { count links { nodes { name } } sources { nodes { format url } } }
        evidences { nodes { sha } } links { selfUrl editUrl openedIssuesUrl } }`),
      variables: { id: project.id },
      at: 'project.release',
      fields: {
        name: 'name',
        tag_name: 'tagName',
        description: 'description',
        created_at: 'createdAt',
        released_at: 'releasedAt',
        upcoming_release: 'upcomingRelease',
        'author.username': 'author.username',
        'commit.id': 'commit.sha',
        'commit.title': 'commit.title',
        commit_path: 'commitPath',
        tag_path: 'tagPath',
        'assets.count': 'assets.count',
        milestones: (r) => listAt(r, 'milestones.nodes')?.map((m) => expect.objectContaining({ title: m.title })),
        'assets.links': (r) => listAt(r, 'assets.links.nodes')?.map((l) => expect.objectContaining({ name: l.name })),
        'assets.sources': (r) => at(r, 'assets.sources.nodes'),
        evidences: (r) => listAt(r, 'evidences.nodes')?.map((e) => expect.objectContaining({ sha: e.sha })),
        '_links.self': 'links.selfUrl',
        '_links.edit_url': 'links.editUrl',
        '_links.opened_issues_url': 'links.openedIssuesUrl',
      },
    }),
    // GitLab's REST API answers a Guest 403 for one release; its GraphQL API gives the release without code.
    outcomes: { owner: 'visible', developer: 'visible', guest: { rest: 'forbidden', graphql: 'visible' }, outsider: 'not-found' },
  },
  // The list, whose resolver reads the page's relations before its fields (preloadReleases): the
  // fields the preload serves (author, commit, milestones with their web URLs, links with their
  // URLs, the release's URLs) compared with REST's list, for the release of v1.
  releaseList: {
    twin: () => ({
      rest: `/projects/${project.id}/releases`,
      restPick: (body) => (body as { tag_name: string }[]).find((r) => r.tag_name === 'v1'),
      graphql: inProject(`releases { nodes { tagName name releasedAt author { username } commit { sha title } commitPath tagPath
        milestones { nodes { title webUrl } } assets { count links { nodes { name url directAssetUrl external } } sources { nodes { format url } } }
        evidences { nodes { sha } } links { selfUrl editUrl closedMergeRequestsUrl } } }`),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.releases.nodes')?.find((r) => r.tagName === 'v1'),
      fields: {
        name: 'name',
        tag_name: 'tagName',
        released_at: 'releasedAt',
        'author.username': 'author.username',
        // Null for a Guest, who may not read the code (REST leaves the commit out).
        'commit.id': (r) => at(r, 'commit.sha') ?? null,
        'commit.title': (r) => at(r, 'commit.title') ?? null,
        commit_path: 'commitPath',
        tag_path: 'tagPath',
        'assets.count': 'assets.count',
        milestones: (r) => listAt(r, 'milestones.nodes')?.map((m) => expect.objectContaining({ title: m.title, web_url: m.webUrl })),
        'assets.links': (r) =>
          listAt(r, 'assets.links.nodes')?.map((l) =>
            expect.objectContaining({ name: l.name, url: l.url, direct_asset_url: l.directAssetUrl, external: l.external }),
          ),
        // Null for a Guest too (REST leaves them out, or lists none).
        'assets.sources': (r) => at(r, 'assets.sources.nodes') ?? null,
        evidences: (r) => listAt(r, 'evidences.nodes')?.map((e) => expect.objectContaining({ sha: e.sha })) ?? null,
        '_links.self': 'links.selfUrl',
        '_links.edit_url': 'links.editUrl',
        '_links.closed_merge_requests_url': 'links.closedMergeRequestsUrl',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  links: {
    twin: () => ({
      rest: `/projects/${project.id}/releases/v1/assets/links/${link.id}`,
      graphql: inProject(`release(tagName: "v1") { assets { link(id: ${link.id}) { databaseId name url directAssetUrl linkType external } } }`),
      variables: { id: project.id },
      at: 'project.release.assets.link',
      fields: {
        id: 'databaseId',
        name: 'name',
        url: 'url',
        direct_asset_url: 'directAssetUrl',
        external: 'external',
        link_type: (l) => String(l.linkType).toLowerCase(),
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'visible', outsider: 'not-found' },
  },
  tags: {
    twin: () => ({
      rest: `/projects/${project.id}/repository/tags/v1`,
      graphql: inProject(`repository { tag(name: "v1") { name message target protected createdAt commit { ${COMMIT} } release { tagName description } } }`),
      variables: { id: project.id },
      at: 'project.repository.tag',
      fields: {
        name: 'name',
        message: 'message',
        target: 'target',
        protected: 'protected',
        created_at: 'createdAt',
        'release.tag_name': 'release.tagName',
        'release.description': 'release.description',
        ...commitFields('commit.', 'commit.'),
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  files: {
    twin: () => ({
      rest: `/projects/${project.id}/repository/files/README.md?ref=main`,
      graphql: inProject(`repository { blobs(paths: ["README.md"], ref: "main") { nodes {
        name path size contentSha256 ref oid commitSha lastCommit { sha } executeFilemode base64EncodedBlob } } }`),
      variables: { id: project.id },
      at: 'project.repository.blobs.nodes.0',
      fields: {
        file_name: 'name',
        file_path: 'path',
        size: 'size',
        content_sha256: 'contentSha256',
        ref: 'ref',
        blob_id: 'oid',
        commit_id: 'commitSha',
        last_commit_id: 'lastCommit.sha',
        execute_filemode: 'executeFilemode',
        content: 'base64EncodedBlob',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  branches: {
    twin: () => ({
      rest: `/projects/${project.id}/repository/branches/feature`,
      graphql: inProject(
        `repository { branch(name: "feature") { name merged protected developersCanPush developersCanMerge canPush default webUrl commit { ${COMMIT} } } }`,
      ),
      variables: { id: project.id },
      at: 'project.repository.branch',
      fields: {
        name: 'name',
        merged: 'merged',
        protected: 'protected',
        developers_can_push: 'developersCanPush',
        developers_can_merge: 'developersCanMerge',
        can_push: 'canPush',
        default: 'default',
        web_url: 'webUrl',
        ...commitFields('commit.', 'commit.'),
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  commits: {
    twin: () => ({
      rest: `/projects/${project.id}/repository/commits/main`,
      graphql: inProject(`repository { commit(ref: "main") { ${COMMIT} } }`),
      variables: { id: project.id },
      at: 'project.repository.commit',
      fields: commitFields(),
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  'commit statuses': {
    twin: () => ({
      rest: `/projects/${project.id}/repository/commits/main/statuses`,
      restPick: (body) => (body as { name: string }[]).find((s) => s.name === 'twin-ci'),
      graphql: inProject(
        'repository { commit(ref: "main") { statuses { nodes { databaseId sha ref status name targetUrl description createdAt pipelineId allowFailure } } } }',
      ),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.repository.commit.statuses.nodes')?.find((s) => s.name === 'twin-ci'),
      fields: {
        id: 'databaseId',
        sha: 'sha',
        ref: 'ref',
        status: 'status',
        name: 'name',
        target_url: 'targetUrl',
        description: 'description',
        created_at: 'createdAt',
        pipeline_id: 'pipelineId',
        allow_failure: 'allowFailure',
      },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  contributors: {
    twin: () => ({
      rest: `/projects/${project.id}/repository/contributors`,
      restPick: (body) => (body as Json[])[0],
      graphql: inProject('repository { contributors { name email commits additions deletions } }'),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.repository.contributors')?.[0],
      fields: { name: 'name', email: 'email', commits: 'commits', additions: 'additions', deletions: 'deletions' },
    }),
    outcomes: { owner: 'visible', developer: 'visible', guest: 'forbidden', outsider: 'not-found' },
  },
  'access requests': {
    twin: () => ({
      rest: `/projects/${project.id}/access_requests`,
      restPick: (body) => (body as { username: string }[]).find((r) => r.username === 'twin-requester'),
      graphql: inProject('accessRequests { nodes { user { databaseId username name state webUrl } createdAt requestedAt } }'),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.accessRequests.nodes')?.find((r) => at(r, 'user.username') === 'twin-requester'),
      fields: {
        id: 'user.databaseId',
        username: 'user.username',
        name: 'user.name',
        state: 'user.state',
        web_url: 'user.webUrl',
        created_at: 'createdAt',
        requested_at: 'requestedAt',
      },
    }),
    // Maintainers and owners answer requests; the group's Developer and Guest may not list them.
    outcomes: { owner: 'visible', developer: 'forbidden', guest: 'forbidden', outsider: 'not-found' },
  },
  'package protection': {
    twin: () => ({
      rest: `/projects/${project.id}/packages/protection/rules`,
      restPick: (body) => (body as { package_name_pattern: string }[]).find((r) => r.package_name_pattern === '@twins/*'),
      graphql: inProject(
        'packagesProtectionRules { nodes { databaseId projectId packageNamePattern packageType minimumAccessLevelForPush minimumAccessLevelForDelete } }',
      ),
      variables: { id: project.id },
      at: (data) => listAt(data, 'project.packagesProtectionRules.nodes')?.find((r) => r.packageNamePattern === '@twins/*'),
      fields: {
        id: 'databaseId',
        project_id: 'projectId',
        package_name_pattern: 'packageNamePattern',
        package_type: (r) => String(r.packageType).toLowerCase(),
        minimum_access_level_for_push: (r) => (r.minimumAccessLevelForPush == null ? null : String(r.minimumAccessLevelForPush).toLowerCase()),
        minimum_access_level_for_delete: (r) => (r.minimumAccessLevelForDelete == null ? null : String(r.minimumAccessLevelForDelete).toLowerCase()),
      },
    }),
    outcomes: { owner: 'visible', developer: 'forbidden', guest: 'forbidden', outsider: 'not-found' },
  },
};

describe.each(Object.entries(AREAS))('%s through REST and GraphQL', (_area, { twin, outcomes }) => {
  it.each(VIEWERS)('answers the %s the same way', async (viewer) => {
    await expectTwins(t, tokens[viewer], twin(), outcomes[viewer]);
  });
});

describe('twins of viewer-gated fields', () => {
  it('shows a user their own private attributes through both interfaces, and others none', async () => {
    const self = await expectTwins(t, tokens.developer, AREAS.users.twin(), 'visible');
    expect(self.rest?.email).toBe('twin-developer@example.com');
    const other = await expectTwins(t, tokens.guest, AREAS.users.twin(), 'visible');
    expect(other.rest).not.toHaveProperty('email');
    expect(other.graphql?.email).toBeNull();
  });

  it('compares the edit URL only its editors see, and real values for the code a Developer reads', async () => {
    const asDeveloper = await expectTwins(t, tokens.developer, AREAS.releases.twin(), 'visible');
    expect(asDeveloper.rest?._links).toHaveProperty('edit_url');
    expect(asDeveloper.graphql?.commit).not.toBeNull();
    const asGuest = await expectTwins(t, tokens.guest, AREAS.links.twin(), 'visible');
    expect(asGuest.rest?.direct_asset_url).toMatch(/\/-\/releases\/v1\/downloads\/bin\/linux$/);
  });
});

describe('raw reads and GraphQL agree on what is text', () => {
  it('types a file as binary over REST exactly when GraphQL has no text for it', async () => {
    const files = `/projects/${project.id}/repository/files`;
    const write = (name: string, content: Buffer) =>
      t
        .api('post', `${files}/${name}`, tokens.owner)
        .send({
          branch: 'sniff',
          start_branch: name === 'nul.bin' ? 'main' : undefined,
          commit_message: name,
          encoding: 'base64',
          content: content.toString('base64'),
        })
        .expect(201);
    const late = Buffer.concat([Buffer.alloc(8000, 'a'), Buffer.from([0])]);
    await write('nul.bin', Buffer.from([1, 0, 2]));
    await write('late-nul.txt', late);
    await write('text.txt', Buffer.from('plain\n'));
    const graphql = await t.graphql(
      inProject('repository { blobs(paths: ["nul.bin", "late-nul.txt", "text.txt"], ref: "sniff") { nodes { path rawTextBlob } } }'),
      { id: project.id },
      tokens.developer,
    );
    for (const { path, rawTextBlob } of graphql.body.data.project.repository.blobs.nodes) {
      const raw = await t.api('get', `${files}/${path}/raw?ref=sniff`, tokens.developer).expect(200);
      expect(raw.headers['content-type'], path).toBe(rawTextBlob === null ? 'application/octet-stream' : 'text/plain; charset=utf-8');
    }
    expect(graphql.body.data.project.repository.blobs.nodes.map((n: { rawTextBlob: string | null }) => n.rawTextBlob === null)).toEqual([true, false, false]);
  });
});

describe('the twin helper', () => {
  it('sees a field that differs, a missing field and an outcome that differs (positive controls)', async () => {
    const groups = AREAS.groups.twin();
    await expect(expectTwins(t, tokens.owner, { ...groups, fields: { name: 'path' } }, 'visible')).rejects.toThrow(/name/);
    await expect(expectTwins(t, tokens.owner, { ...groups, fields: { name: 'fullNme' } }, 'visible')).rejects.toThrow(/not selected/);
    await expect(expectTwins(t, tokens.outsider, groups, 'visible')).rejects.toThrow(/outcomes/);
  });
});
