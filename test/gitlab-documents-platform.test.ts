// Documents written the way GitLab's frontend writes those of its project and user settings screens
// (issue 40): the package protection settings, the personal access tokens page and the release
// editor. Each selects the fields GitLab's own document selects, with the same arguments and
// variable types, and asserts the data it gets back. Queries run through graphql-jit and Yoga's
// own executor (same bytes); mutations once.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationComplexity } from '../src/graphql/operation-checks.ts';
import { schema } from '../src/kernel.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let group: { id: number; full_path: string };
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
let alice: Awaited<ReturnType<TestApp['user']>>;

/** A document's data; any GraphQL error fails the test with its messages. */
async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const PAGE_INFO = 'fragment PageInfo on PageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  ({ group, project } = await seedProject(t));
  alice = await t.user('alice');
});
afterAll(() => t.close());

describe('package protection settings (project settings › packages and registries)', () => {
  // GitLab's getProjectPackageProtectionRules.
  const LIST = `
    query getProjectPackageProtectionRules($projectPath: ID!, $first: Int, $last: Int, $after: String, $before: String) {
      project(fullPath: $projectPath) {
        id
        packagesProtectionRules(first: $first, last: $last, after: $after, before: $before) {
          nodes { id packageNamePattern packageType minimumAccessLevelForPush minimumAccessLevelForDelete }
          pageInfo { ...PageInfo }
        }
      }
    }
    ${PAGE_INFO}`;

  it('lists, creates, updates and deletes rules as the settings page does', async () => {
    // The rule form's createPackagesProtectionRule.
    const created = await run(
      `mutation createPackagesProtectionRule($input: CreatePackagesProtectionRuleInput!) {
        createPackagesProtectionRule(input: $input) {
          packageProtectionRule { id packageNamePattern packageType minimumAccessLevelForPush minimumAccessLevelForDelete }
          errors
        }
      }`,
      { input: { projectPath: project.path_with_namespace, packageNamePattern: '@acme/*', packageType: 'NPM', minimumAccessLevelForPush: 'MAINTAINER' } },
    );
    const rule = created.createPackagesProtectionRule.packageProtectionRule;
    expect(created.createPackagesProtectionRule.errors).toEqual([]);
    expect(rule).toEqual({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Packages::Protection::Rule\/\d+$/),
      packageNamePattern: '@acme/*',
      packageType: 'NPM',
      minimumAccessLevelForPush: 'MAINTAINER',
      minimumAccessLevelForDelete: null,
    });
    await run(
      `mutation createPackagesProtectionRule($input: CreatePackagesProtectionRuleInput!) {
        createPackagesProtectionRule(input: $input) { packageProtectionRule { id } errors }
      }`,
      { input: { projectPath: project.path_with_namespace, packageNamePattern: 'acme-py*', packageType: 'PYPI', minimumAccessLevelForPush: 'OWNER' } },
    );

    const first = await run(LIST, { projectPath: project.path_with_namespace, first: 1 });
    expect(first.project.id).toBe(`gid://gitlab/Project/${project.id}`);
    expect(first.project.packagesProtectionRules.nodes).toEqual([rule]);
    expect(first.project.packagesProtectionRules.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = await run(LIST, { projectPath: project.path_with_namespace, first: 1, after: first.project.packagesProtectionRules.pageInfo.endCursor });
    expect(next.project.packagesProtectionRules.nodes).toEqual([
      expect.objectContaining({ packageNamePattern: 'acme-py*', packageType: 'PYPI', minimumAccessLevelForPush: 'OWNER' }),
    ]);

    // GitLab's updatePackagesProtectionRule, from the table's inline edit.
    const updated = await run(
      `mutation updatePackagesProtectionRule($input: UpdatePackagesProtectionRuleInput!) {
        updatePackagesProtectionRule(input: $input) { packageProtectionRule { id packageType packageNamePattern } errors }
      }`,
      { input: { id: rule.id, packageNamePattern: '@acme/core-*', minimumAccessLevelForPush: 'OWNER' } },
    );
    expect(updated.updatePackagesProtectionRule).toEqual({
      packageProtectionRule: { id: rule.id, packageType: 'NPM', packageNamePattern: '@acme/core-*' },
      errors: [],
    });

    // GitLab's deletePackagesProtectionRule, with its `PackagesProtectionRuleID!` variable.
    const deleted = await run(
      `mutation deletePackagesProtectionRule($id: PackagesProtectionRuleID!) {
        deletePackagesProtectionRule(input: { id: $id }) { packageProtectionRule { id packageNamePattern packageType minimumAccessLevelForPush } errors }
      }`,
      { id: rule.id },
    );
    expect(deleted.deletePackagesProtectionRule).toEqual({
      packageProtectionRule: { id: rule.id, packageNamePattern: '@acme/core-*', packageType: 'NPM', minimumAccessLevelForPush: 'OWNER' },
      errors: [],
    });
    const left = await run(LIST, { projectPath: project.path_with_namespace, first: 20 });
    expect(left.project.packagesProtectionRules.nodes.map((n: { packageNamePattern: string }) => n.packageNamePattern)).toEqual(['acme-py*']);
  });

  it('hides the project from a stranger and refuses the rules to a developer', async () => {
    const stranger = await run(LIST, { projectPath: project.path_with_namespace, first: 20 }, alice.token);
    expect(stranger.project).toBeNull();
    const developer = await t.user('dev-pp');
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: developer.id, access_level: 30 }).expect(201);
    const res = await t.graphql(LIST, { projectPath: project.path_with_namespace, first: 20 }, developer.token);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('personal access tokens page (user settings › access tokens)', () => {
  let tokens: Array<{ id: number; name: string }>;

  beforeAll(async () => {
    const issue = async (body: object) => (await t.api('post', `/users/${alice.id}/personal_access_tokens`).send(body).expect(201)).body;
    tokens = [
      await issue({ name: 'deploy', description: 'CI deploys', scopes: ['read_api'], expires_at: day(3) }),
      await issue({ name: 'laptop', scopes: ['api'], expires_at: day(200) }),
      await issue({ name: 'old', scopes: ['read_user'], expires_at: day(100) }),
    ];
    await t.api('delete', `/personal_access_tokens/${tokens[2]!.id}`).expect(204);
  });

  // GitLab's getUserPersonalAccessTokens, without the granular scopes forgegate does not issue.
  const LIST = `
    query getUserPersonalAccessTokens(
      $id: UserID, $first: Int, $last: Int, $before: String, $after: String, $sort: AccessTokenSort, $state: AccessTokenState,
      $revoked: Boolean, $expiresBefore: Date, $expiresAfter: Date, $createdBefore: Time, $createdAfter: Time,
      $lastUsedBefore: Time, $lastUsedAfter: Time, $search: String
    ) {
      user(id: $id) {
        id
        personalAccessTokens(
          first: $first, last: $last, before: $before, after: $after, sort: $sort, state: $state, revoked: $revoked,
          expiresBefore: $expiresBefore, expiresAfter: $expiresAfter, createdBefore: $createdBefore, createdAfter: $createdAfter,
          lastUsedBefore: $lastUsedBefore, lastUsedAfter: $lastUsedAfter, search: $search
        ) {
          nodes { id name description granular revoked active lastUsedAt createdAt expiresAt }
          pageInfo { ...PageInfo }
        }
      }
    }
    ${PAGE_INFO}`;

  it('lists the tokens with the page’s filters and sorts', async () => {
    const id = `gid://gitlab/User/${alice.id}`;
    const active = await run(LIST, { id, first: 20, state: 'ACTIVE', sort: 'EXPIRES_ASC' }, alice.token);
    expect(active.user.id).toBe(id);
    expect(active.user.personalAccessTokens.nodes).toEqual([
      {
        id: `gid://gitlab/PersonalAccessToken/${tokens[0]!.id}`,
        name: 'deploy',
        description: 'CI deploys',
        granular: false,
        revoked: false,
        active: true,
        lastUsedAt: null,
        createdAt: expect.any(String),
        expiresAt: day(3),
      },
      expect.objectContaining({ name: 'laptop', expiresAt: day(200), active: true }),
      // The token createTestApp issues with every user: no expiry, so last.
      expect.objectContaining({ name: 'test', expiresAt: null, active: true }),
    ]);
    const byName = await run(LIST, { id, first: 20, sort: 'NAME_DESC' }, alice.token);
    expect(byName.user.personalAccessTokens.nodes.map((n: { name: string }) => n.name)).toEqual(['test', 'old', 'laptop', 'deploy']);
    const revoked = await run(LIST, { id, first: 20, revoked: true }, alice.token);
    expect(revoked.user.personalAccessTokens.nodes).toEqual([expect.objectContaining({ name: 'old', revoked: true, active: false })]);
    const searched = await run(LIST, { id, first: 20, search: 'LAP', expiresAfter: day(10) }, alice.token);
    expect(searched.user.personalAccessTokens.nodes.map((n: { name: string }) => n.name)).toEqual(['laptop']);
    const paged = await run(LIST, { id, first: 2, sort: 'ID_ASC' }, alice.token);
    expect(paged.user.personalAccessTokens.pageInfo.hasNextPage).toBe(true);
  });

  it('counts the tokens of the statistics cards', async () => {
    // GitLab's getUserPersonalAccessTokenStatistics.
    const data = await run(
      `query getUserPersonalAccessTokenStatistics($id: UserID, $expiresBefore: Date) {
        user(id: $id) {
          id
          active: personalAccessTokens(state: ACTIVE) { count }
          expiringSoon: personalAccessTokens(state: ACTIVE, expiresBefore: $expiresBefore) { count }
          revoked: personalAccessTokens(revoked: true) { count }
          expired: personalAccessTokens(state: INACTIVE, revoked: false) { count }
        }
      }`,
      { id: `gid://gitlab/User/${alice.id}`, expiresBefore: day(14) },
      alice.token,
    );
    expect(data.user).toEqual({
      id: `gid://gitlab/User/${alice.id}`,
      active: { count: 3 },
      expiringSoon: { count: 1 },
      revoked: { count: 1 },
      expired: { count: 0 },
    });
  });

  it('twins: the page lists what REST’s GET /personal_access_tokens lists for the same viewer', async () => {
    for (const [viewer, query] of [
      [alice.token, ''],
      [t.root.token, `?user_id=${alice.id}`],
    ] as const) {
      const rest = (await t.api('get', `/personal_access_tokens${query}`, viewer).expect(200)).body;
      const data = await run(LIST, { id: `gid://gitlab/User/${alice.id}`, first: 100 }, viewer);
      const shaped = data.user.personalAccessTokens.nodes.map((n: Record<string, unknown>) => ({
        id: Number(String(n.id).split('/').pop()),
        name: n.name,
        revoked: n.revoked,
        active: n.active,
        expires_at: n.expiresAt,
        created_at: n.createdAt,
      }));
      expect(shaped).toEqual(
        rest.map((r: Record<string, unknown>) => ({
          id: r.id,
          name: r.name,
          revoked: r.revoked,
          active: r.active,
          expires_at: r.expires_at,
          created_at: r.created_at,
        })),
      );
      expect(shaped.length).toBeGreaterThan(2);
    }
  });

  it('shows a user’s tokens to the user and administrators only', async () => {
    const bob = await t.user('bob-pat');
    const data = await run(LIST, { id: `gid://gitlab/User/${alice.id}`, first: 20 }, bob.token);
    expect(data.user).toEqual({ id: `gid://gitlab/User/${alice.id}`, personalAccessTokens: null });
    const admin = await run(LIST, { id: `gid://gitlab/User/${alice.id}`, first: 20 });
    expect(admin.user.personalAccessTokens.nodes).toHaveLength(4);
  });

  it('rotates and revokes a token with GitLab’s PersonalAccessTokenID', async () => {
    const id = `gid://gitlab/PersonalAccessToken/${tokens[1]!.id}`;
    // GitLab's rotatePersonalAccessToken.
    const rotated = await run(
      `mutation rotatePersonalAccessToken($id: PersonalAccessTokenID!) { personalAccessTokenRotate(input: { id: $id }) { token errors } }`,
      { id },
      alice.token,
    );
    expect(rotated.personalAccessTokenRotate).toEqual({ token: expect.stringMatching(/^glpat-/), errors: [] });
    const fresh = await run(LIST, { id: `gid://gitlab/User/${alice.id}`, first: 20, state: 'ACTIVE', sort: 'CREATED_DESC' }, alice.token);
    const newest = fresh.user.personalAccessTokens.nodes[0];
    expect(newest).toMatchObject({ name: 'laptop', active: true, expiresAt: day(7) });

    // GitLab's revokePersonalAccessToken.
    const revoked = await run(
      `mutation revokePersonalAccessToken($id: PersonalAccessTokenID!) { personalAccessTokenRevoke(input: { id: $id }) { errors } }`,
      { id: newest.id },
      alice.token,
    );
    expect(revoked.personalAccessTokenRevoke).toEqual({ errors: [] });
    const after = await run(LIST, { id: `gid://gitlab/User/${alice.id}`, first: 20, state: 'ACTIVE' }, alice.token);
    expect(after.user.personalAccessTokens.nodes.map((n: { name: string }) => n.name)).toEqual(['test', 'deploy']);
  });

  it('costs the tokens connection by its page size, like any connection', () => {
    const costOf = (first: number) =>
      operationComplexity(schema, parse(`{ users(first: 100) { nodes { id personalAccessTokens(first: ${first}) { nodes { id } } } } }`));
    // (nodes + id + the connection's floor(3 × (1 + first/100))) + 1, doubled by the 100 users.
    expect([costOf(1), costOf(100)]).toEqual([12, 18]);
  });
});

describe('project header (breadcrumbs of the release and settings pages)', () => {
  const HEADER = `
    query projectHeader($fullPath: ID!) {
      project(fullPath: $fullPath) {
        id name nameWithNamespace fullPath webUrl
        namespace { id name fullName fullPath description webUrl }
        group { id name fullName fullPath webUrl }
      }
    }`;

  it('names the project, its namespace and group with their full names and paths', async () => {
    const sub = (await t.api('post', '/groups').send({ name: 'Tools', path: 'tools', parent_id: group.id }).expect(201)).body;
    const nested = (await t.api('post', '/projects').send({ name: 'Cli', namespace_id: sub.id }).expect(201)).body;
    const data = await run(HEADER, { fullPath: nested.path_with_namespace });
    expect(data.project).toEqual({
      id: `gid://gitlab/Project/${nested.id}`,
      name: 'Cli',
      nameWithNamespace: 'Acme / Tools / Cli',
      fullPath: 'acme/tools/cli',
      webUrl: expect.stringMatching(/\/acme\/tools\/cli$/),
      namespace: {
        id: `gid://gitlab/Group/${sub.id}`,
        name: 'Tools',
        fullName: 'Acme / Tools',
        fullPath: 'acme/tools',
        description: '',
        webUrl: expect.stringMatching(/\/groups\/acme\/tools$/),
      },
      group: {
        id: `gid://gitlab/Group/${sub.id}`,
        name: 'Tools',
        fullName: 'Acme / Tools',
        fullPath: 'acme/tools',
        webUrl: expect.stringMatching(/\/groups\/acme\/tools$/),
      },
    });
    const stranger = await run(HEADER, { fullPath: nested.path_with_namespace }, alice.token);
    expect(stranger.project).toBeNull();
  });
});

describe('group picker (transfer and namespace selects)', () => {
  it('lists the groups a user owns with GitLab’s ownedOnly', async () => {
    const own = (await t.api('post', '/groups', alice.token).send({ name: 'Alice Team', path: 'alice-team' }).expect(201)).body;
    const PICKER = `
      query ownedGroups($search: String, $ownedOnly: Boolean) {
        groups(search: $search, ownedOnly: $ownedOnly, first: 20) { nodes { id fullName fullPath } }
      }`;
    const mine = await run(PICKER, { ownedOnly: true }, alice.token);
    expect(mine.groups.nodes).toEqual([{ id: `gid://gitlab/Group/${own.id}`, fullName: 'Alice Team', fullPath: 'alice-team' }]);
    const roots = await run(PICKER, { ownedOnly: true, search: 'a' });
    expect(roots.groups.nodes.map((g: { fullPath: string }) => g.fullPath)).toContain('acme');
    expect(roots.groups.nodes.map((g: { fullPath: string }) => g.fullPath)).not.toContain('alice-team');
  });
});

describe('release editor (project › releases › edit)', () => {
  beforeAll(async () => {
    await t
      .api('post', `/projects/${project.id}/releases`)
      .send({
        tag_name: 'v1.0',
        ref: 'main',
        name: 'First',
        description: 'Notes',
        assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] },
      })
      .expect(201);
  });

  // GitLab's oneReleaseForEditing with its ReleaseForEditing fragment.
  const EDIT = `
    query oneReleaseForEditing($fullPath: ID!, $tagName: String!) {
      project(fullPath: $fullPath) { id release(tagName: $tagName) { ...ReleaseForEditing } }
    }
    fragment ReleaseForEditing on Release {
      id name tagName description releasedAt createdAt tagPath
      assets { links { nodes { id name url linkType directAssetPath } } }
      links { selfUrl }
      milestones { nodes { id title } }
    }`;

  it('loads the release to edit and deletes one of its links', async () => {
    const data = await run(EDIT, { fullPath: project.path_with_namespace, tagName: 'v1.0' });
    const release = data.project.release;
    expect(release).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Release\/\d+$/),
      name: 'First',
      tagName: 'v1.0',
      description: 'Notes',
      tagPath: `/${project.path_with_namespace}/-/tags/v1.0`,
      links: { selfUrl: expect.stringMatching(new RegExp(`/${project.path_with_namespace}/-/releases/v1.0$`)) },
      milestones: { nodes: [] },
    });
    const [link] = release.assets.links.nodes;
    expect(link).toEqual({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Releases::Link\/\d+$/),
      name: 'bin',
      url: 'https://example.com/bin',
      linkType: 'PACKAGE',
      directAssetPath: '/bin/app',
    });

    // GitLab's deleteReleaseAssetLink, from the editor's remove button.
    const deleted = await run(`mutation deleteReleaseAssetLink($id: ReleasesLinkID!) { releaseAssetLinkDelete(input: { id: $id }) { errors } }`, {
      id: link.id,
    });
    expect(deleted.releaseAssetLinkDelete).toEqual({ errors: [] });
    const after = await run(EDIT, { fullPath: project.path_with_namespace, tagName: 'v1.0' });
    expect(after.project.release.assets.links.nodes).toEqual([]);
  });

  it('answers null for a stranger, as GitLab hides the project', async () => {
    const data = await run(EDIT, { fullPath: project.path_with_namespace, tagName: 'v1.0' }, alice.token);
    expect(data.project).toBeNull();
  });
});
