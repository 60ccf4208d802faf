import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { packageProtectionFor } from '../src/modules/package-protection/service.ts';
import { createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';

type User = { id: number; token: string; username: string };

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let publicProject: { id: number };
let other: { id: number };
let owner: User;
let maintainer: User;
let developer: User;
let reporter: User;
let stranger: User;

const RULE_KEYS = ['id', 'project_id', 'package_name_pattern', 'package_type', 'minimum_access_level_for_delete', 'minimum_access_level_for_push'];
const rules = (id = project.id) => `/projects/${id}/packages/protection/rules`;
const flag = (enabled: boolean) => t.deps.flags.set('packages_protected_packages_delete', { enabled });

async function rule(body: Record<string, unknown>, projectId = project.id) {
  return (
    await t
      .api('post', rules(projectId))
      .send({ package_type: 'npm', minimum_access_level_for_push: 'maintainer', ...body })
      .expect(201)
  ).body;
}

beforeAll(async () => {
  t = await createTestApp();
  const group = (await t.api('post', '/groups').send({ name: 'Pkg', path: 'pkg', visibility: 'public' }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'Lib', namespace_id: group.id }).expect(201)).body;
  publicProject = (await t.api('post', '/projects').send({ name: 'Open', namespace_id: group.id, visibility: 'public' }).expect(201)).body;
  other = (await t.api('post', '/projects').send({ name: 'Other', namespace_id: group.id }).expect(201)).body;
  [owner, maintainer, developer, reporter, stranger] = await Promise.all(['owner', 'maintainer', 'developer', 'reporter', 'stranger'].map((n) => t.user(n)));
  for (const [u, level] of [
    [owner, 50],
    [maintainer, 40],
    [developer, 30],
    [reporter, 20],
  ] as const) {
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: u.id, access_level: level }).expect(201);
  }
});
afterAll(() => t.close());

describe('package protection rules over REST', () => {
  it("creates (201), lists (200), updates (200) and deletes (204) as a maintainer, with GitLab's entity", async () => {
    const created = await t
      .api('post', rules(), maintainer.token)
      .send({ package_name_pattern: '@flightjs/flight-*', package_type: 'npm', minimum_access_level_for_push: 'owner' })
      .expect(201);
    expect(created.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(created.body)).toEqual(RULE_KEYS);
    expect(created.body).toEqual({
      id: expect.any(Number),
      project_id: project.id,
      package_name_pattern: '@flightjs/flight-*',
      package_type: 'npm',
      minimum_access_level_for_delete: null,
      minimum_access_level_for_push: 'owner',
    });
    const list = await t.api('get', rules(), maintainer.token).expect(200);
    expect(list.body).toContainEqual(created.body);
    expect(list.headers['x-total']).toBeUndefined();
    const patched = await t.api('patch', `${rules()}/${created.body.id}`, maintainer.token).send({ package_name_pattern: '@flightjs/other-*' }).expect(200);
    expect(patched.body).toEqual({ ...created.body, package_name_pattern: '@flightjs/other-*' });
    const admin = await t.api('patch', `${rules()}/${created.body.id}`, owner.token).send({ minimum_access_level_for_push: 'admin' }).expect(200);
    expect(admin.body.minimum_access_level_for_push).toBe('admin');
    await t.api('delete', `${rules()}/${created.body.id}`, maintainer.token).expect(204, '');
    expect(await t.db.packageProtectionRule.findUnique({ where: { id: created.body.id } })).toBeNull();
  });

  const invalid: [string, Record<string, unknown>, number, unknown][] = [
    ['a missing pattern', { package_type: 'npm', minimum_access_level_for_push: 'maintainer' }, 400, { error: 'package_name_pattern is missing' }],
    [
      'an unknown type',
      { package_name_pattern: 'x', package_type: 'rubygems', minimum_access_level_for_push: 'maintainer' },
      400,
      { error: 'package_type does not have a valid value' },
    ],
    [
      'an unknown push level',
      { package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: 'developer' },
      400,
      { error: 'minimum_access_level_for_push does not have a valid value' },
    ],
    [
      'a blank delete level',
      { package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_delete: '' },
      400,
      { error: 'minimum_access_level_for_delete does not have a valid value' },
    ],
    [
      'maintainer as delete level',
      { package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_delete: 'maintainer' },
      400,
      { error: 'minimum_access_level_for_delete does not have a valid value' },
    ],
    [
      'no level at all',
      { package_name_pattern: 'x', package_type: 'npm' },
      400,
      { error: 'minimum_access_level_for_push, minimum_access_level_for_delete are missing, at least one parameter must be provided' },
    ],
    [
      'both levels null',
      { package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: null, minimum_access_level_for_delete: null },
      422,
      { message: { error: ['A rule must have at least a minimum access role for push or delete.'] } },
    ],
    [
      'an invalid npm name',
      { package_name_pattern: '@scope/my package', package_type: 'npm', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern should be a valid NPM package name with optional wildcard characters.'] } },
    ],
    [
      'a wildcard npm scope',
      { package_name_pattern: '@*/pkg', package_type: 'npm', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern should be a valid NPM package name with optional wildcard characters.'] } },
    ],
    [
      'an invalid PyPI name',
      { package_name_pattern: 'my/pkg', package_type: 'pypi', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern should be a valid PyPI package name with optional wildcard characters.'] } },
    ],
    [
      'an invalid Terraform module name',
      { package_name_pattern: 'NoSystem', package_type: 'terraform_module', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern should be a valid Terraform module package name with optional wildcard characters.'] } },
    ],
    [
      'an invalid Maven path',
      { package_name_pattern: 'com//acme', package_type: 'maven', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern should be a valid Maven package name with optional wildcard characters.'] } },
    ],
    [
      'a blank pattern',
      { package_name_pattern: ' ', package_type: 'generic', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ["Package name pattern can't be blank"] } },
    ],
    [
      'a 256-character pattern',
      { package_name_pattern: 'a'.repeat(256), package_type: 'generic', minimum_access_level_for_push: 'maintainer' },
      422,
      { message: { error: ['Package name pattern is too long (maximum is 255 characters)'] } },
    ],
  ];
  it.each(invalid)('refuses %s', async (_name, body, status, answer) => {
    const before = await t.db.packageProtectionRule.count();
    await t
      .api('post', rules(), maintainer.token)
      .send(body)
      .expect(status, answer as object);
    expect(await t.db.packageProtectionRule.count()).toBe(before);
  });

  const valid: [string, string][] = [
    ['npm', '*'],
    ['npm', '@my-scope/my-package-*'],
    ['npm', '@scope/*-suffix'],
    ['npm', 'plain_name.js'],
    ['pypi', 'my-package*'],
    ['pypi', '*'],
    ['maven', 'com/acme/app-*'],
    ['conan', 'zlib*'],
    ['generic', 'tool+1.*'],
    ['helm', 'chart-*'],
    ['nuget', 'Acme.Core.*'],
    ['cargo', 'my_crate*'],
    ['terraform_module', 'net-*/aws'],
  ];
  it.each(valid)('accepts a %s pattern like %s', async (type, pattern) => {
    const created = await rule({ package_type: type, package_name_pattern: pattern });
    expect(created).toMatchObject({ package_type: type, package_name_pattern: pattern });
  });

  it('refuses a pattern taken for the same type (422), not for another type', async () => {
    await rule({ package_name_pattern: 'dup-*' });
    await t
      .api('post', rules())
      .send({ package_name_pattern: 'dup-*', package_type: 'npm', minimum_access_level_for_push: 'owner' })
      .expect(422, { message: { error: ['Package name pattern has already been taken'] } });
    await rule({ package_name_pattern: 'dup-*', package_type: 'pypi' });
    const second = await rule({ package_name_pattern: 'dup2-*' });
    await t
      .api('patch', `${rules()}/${second.id}`)
      .send({ package_name_pattern: 'dup-*' })
      .expect(422, { message: { error: ['Package name pattern has already been taken'] } });
    await t
      .api('patch', `${rules()}/${second.id}`)
      .send({ minimum_access_level_for_push: null })
      .expect(422, { message: { error: ['A rule must have at least a minimum access role for push or delete.'] } });
  });

  it('answers 401, 403 and 404 as GitLab does', async () => {
    const existing = await rule({ package_name_pattern: 'perm-*' });
    const each = [
      ['get', rules()],
      ['post', rules()],
      ['patch', `${rules()}/${existing.id}`],
      ['delete', `${rules()}/${existing.id}`],
    ] as const;
    for (const [method, path] of each) {
      await t
        .api(method, path, developer.token)
        .send({ package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: 'owner' })
        .expect(403, { message: '403 Forbidden' });
      await t.api(method, path, reporter.token).send({ package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: 'owner' }).expect(403);
      await t
        .api(method, path, stranger.token)
        .send({ package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: 'owner' })
        .expect(404, { message: '404 Project Not Found' });
      await t.api(method, path, 'glpat-invalid-token-123456').expect(401, { message: '401 Unauthorized' });
    }
    // A public project is visible: strangers are refused with 403, anonymous callers with 401.
    await t.api('get', rules(publicProject.id), stranger.token).expect(403);
    await t.api('get', rules(publicProject.id), null).expect(401);
    await t
      .api('post', rules(publicProject.id), null)
      .send({ package_name_pattern: 'x', package_type: 'npm', minimum_access_level_for_push: 'owner' })
      .expect(401);
    // Rule ids: unknown, of another project, not a number.
    const foreign = await rule({ package_name_pattern: 'foreign-*' }, other.id);
    await t.api('patch', `${rules()}/999999`).send({ package_name_pattern: 'y' }).expect(404, { message: '404 Not found' });
    await t.api('patch', `${rules()}/${foreign.id}`).send({ package_name_pattern: 'y' }).expect(404, { message: '404 Not found' });
    await t.api('delete', `${rules()}/${foreign.id}`).expect(404, { message: '404 Not found' });
    await t.api('delete', `${rules()}/abc`).expect(400, { error: 'package_protection_rule_id is invalid' });
    expect(await t.db.packageProtectionRule.findUnique({ where: { id: foreign.id } })).not.toBeNull();
  });
});

describe('speed', () => {
  it('lists rules with a fixed number of SQL statements, whatever their number', async () => {
    const lots = (
      await t
        .api('post', '/projects')
        .send({ name: 'Lots', namespace_id: (await t.api('get', `/projects/${project.id}`).expect(200)).body.namespace.id })
        .expect(201)
    ).body;
    const measure = async () => {
      t.queryCounter.reset();
      const count = (await t.api('get', rules(lots.id)).expect(200)).body.length;
      return { count, statements: t.queryCounter.count };
    };
    for (let i = 0; i < 2; i++) await rule({ package_name_pattern: `few-${i}` }, lots.id);
    await expectCounterSees(t, () => t.api('get', rules(lots.id)).expect(200));
    const few = await measure();
    for (let i = 0; i < 12; i++) await rule({ package_name_pattern: `more-${i}`, minimum_access_level_for_delete: 'owner' }, lots.id);
    const more = await measure();
    expect([few.count, more.count]).toEqual([2, 14]);
    expect(few.statements).toBeGreaterThan(0);
    expect(more.statements).toBe(few.statements);
  });

  it('answers every rule, as GitLab does, past the page of 100 GraphQL answers', async () => {
    const many = (
      await t
        .api('post', '/projects')
        .send({ name: 'Many rules', namespace_id: (await t.api('get', `/projects/${project.id}`).expect(200)).body.namespace.id })
        .expect(201)
    ).body;
    const patterns = Array.from({ length: 105 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);
    await t.db.packageProtectionRule.createMany({
      data: patterns.map((packageNamePattern) => ({ projectId: many.id, packageNamePattern, packageType: 'npm' as const, minimumAccessLevelForPush: 40 })),
    });
    const listed = (await t.api('get', rules(many.id)).expect(200)).body;
    expect(listed.map((r: { package_name_pattern: string }) => r.package_name_pattern)).toEqual(patterns);
    const res = await t.graphql(
      `{ project(fullPath: "${many.path_with_namespace}") { packagesProtectionRules(first: 500) { nodes { packageNamePattern } } } }`,
    );
    expect(res.body.data.project.packagesProtectionRules.nodes).toHaveLength(100);
  });
});

describe('the deletion level behind packages_protected_packages_delete', () => {
  it('is ignored while the flag is off (created without, updates keep the old one, reads show null) and works when on', async () => {
    const off = await rule({ package_name_pattern: 'flag-off', minimum_access_level_for_delete: 'owner' });
    expect(off.minimum_access_level_for_delete).toBeNull();
    expect((await t.db.packageProtectionRule.findUniqueOrThrow({ where: { id: off.id } })).minimumAccessLevelForDelete).toBeNull();
    await t
      .api('post', rules())
      .send({ package_name_pattern: 'only-delete', package_type: 'npm', minimum_access_level_for_delete: 'owner' })
      .expect(422, { message: { error: ['A rule must have at least a minimum access role for push or delete.'] } });

    await flag(true);
    try {
      const on = await rule({ package_name_pattern: 'flag-on', minimum_access_level_for_delete: 'owner' });
      expect(on.minimum_access_level_for_delete).toBe('owner');
      const deleteOnly = (
        await t.api('post', rules()).send({ package_name_pattern: 'delete-only', package_type: 'npm', minimum_access_level_for_delete: 'admin' }).expect(201)
      ).body;
      expect(deleteOnly).toMatchObject({ minimum_access_level_for_push: null, minimum_access_level_for_delete: 'admin' });
      await flag(false);
      // Off again: the stored level stays but is neither shown nor changed.
      expect((await t.api('get', rules()).expect(200)).body.find((r: { id: number }) => r.id === on.id).minimum_access_level_for_delete).toBeNull();
      const patched = await t.api('patch', `${rules()}/${on.id}`).send({ minimum_access_level_for_delete: 'admin' }).expect(200);
      expect(patched.body.minimum_access_level_for_delete).toBeNull();
      expect((await t.db.packageProtectionRule.findUniqueOrThrow({ where: { id: on.id } })).minimumAccessLevelForDelete).toBe(50);
      const gql = await t.graphql(
        `{ project(fullPath: "${project.path_with_namespace}") { packagesProtectionRules(first: 100) { nodes { databaseId minimumAccessLevelForDelete } } } }`,
      );
      expect(
        gql.body.data.project.packagesProtectionRules.nodes.find((n: { databaseId: number }) => n.databaseId === on.id).minimumAccessLevelForDelete,
      ).toBeNull();
      await flag(true);
      expect((await t.api('get', rules()).expect(200)).body.find((r: { id: number }) => r.id === on.id).minimum_access_level_for_delete).toBe('owner');
      // On: null clears it.
      expect(
        (await t.api('patch', `${rules()}/${on.id}`).send({ minimum_access_level_for_delete: null }).expect(200)).body.minimum_access_level_for_delete,
      ).toBeNull();
    } finally {
      await flag(false);
    }
  });
});

describe('GraphQL', () => {
  const createMutation = `mutation($input: CreatePackagesProtectionRuleInput!) {
    createPackagesProtectionRule(input: $input) { packageProtectionRule { id packageNamePattern packageType minimumAccessLevelForPush minimumAccessLevelForDelete } errors clientMutationId } }`;

  it('creates, updates and deletes with GitLab names and payloads; errors and refusals as over REST', async () => {
    const created = await t.graphql(
      createMutation,
      {
        input: {
          projectPath: project.path_with_namespace,
          packageNamePattern: '@gql/*',
          packageType: 'NPM',
          minimumAccessLevelForPush: 'OWNER',
          clientMutationId: 'c1',
        },
      },
      maintainer.token,
    );
    const payload = created.body.data.createPackagesProtectionRule;
    expect(payload).toEqual({
      packageProtectionRule: {
        id: expect.stringMatching(/^gid:\/\/gitlab\/Packages::Protection::Rule\/\d+$/),
        packageNamePattern: '@gql/*',
        packageType: 'NPM',
        minimumAccessLevelForPush: 'OWNER',
        minimumAccessLevelForDelete: null,
      },
      errors: [],
      clientMutationId: 'c1',
    });
    const dup = await t.graphql(
      createMutation,
      { input: { projectPath: project.path_with_namespace, packageNamePattern: '@gql/*', packageType: 'NPM', minimumAccessLevelForPush: 'ADMIN' } },
      maintainer.token,
    );
    expect(dup.body.data.createPackagesProtectionRule).toMatchObject({ packageProtectionRule: null, errors: ['Package name pattern has already been taken'] });
    const denied = await t.graphql(
      createMutation,
      { input: { projectPath: project.path_with_namespace, packageNamePattern: 'x', packageType: 'NPM', minimumAccessLevelForPush: 'ADMIN' } },
      developer.token,
    );
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const id = payload.packageProtectionRule.id;
    const updated = await t.graphql(
      `mutation { updatePackagesProtectionRule(input: {id: "${id}", minimumAccessLevelForPush: MAINTAINER}) { packageProtectionRule { minimumAccessLevelForPush } errors } }`,
      {},
      maintainer.token,
    );
    expect(updated.body.data.updatePackagesProtectionRule).toEqual({ packageProtectionRule: { minimumAccessLevelForPush: 'MAINTAINER' }, errors: [] });
    const strangerUpdate = await t.graphql(
      `mutation { updatePackagesProtectionRule(input: {id: "${id}", packageNamePattern: "x"}) { errors } }`,
      {},
      stranger.token,
    );
    expect(strangerUpdate.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const deleted = await t.graphql(
      `mutation { deletePackagesProtectionRule(input: {id: "${id}"}) { packageProtectionRule { packageNamePattern } errors } }`,
      {},
      maintainer.token,
    );
    expect(deleted.body.data.deletePackagesProtectionRule).toEqual({ packageProtectionRule: { packageNamePattern: '@gql/*' }, errors: [] });
    const again = await t.graphql(`mutation { deletePackagesProtectionRule(input: {id: "${id}"}) { errors } }`, {}, maintainer.token);
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('twins: Project.packagesProtectionRules matches the REST list for the same viewer', async () => {
    for (const viewer of [maintainer.token, owner.token, t.root.token]) {
      const rest = (await t.api('get', rules(), viewer).expect(200)).body;
      const gql = (
        await t.graphql(
          `{ project(id: ${project.id}) { packagesProtectionRules(first: 100) { nodes { databaseId projectId packageNamePattern packageType minimumAccessLevelForDelete minimumAccessLevelForPush } } } }`,
          {},
          viewer,
        )
      ).body.data;
      const shaped = gql.project.packagesProtectionRules.nodes.map((n: Record<string, string | null>) => ({
        id: n.databaseId,
        project_id: n.projectId,
        package_name_pattern: n.packageNamePattern,
        package_type: n.packageType!.toLowerCase(),
        minimum_access_level_for_delete: n.minimumAccessLevelForDelete?.toLowerCase() ?? null,
        minimum_access_level_for_push: n.minimumAccessLevelForPush?.toLowerCase() ?? null,
      }));
      expect(shaped).toEqual(rest);
      expect(rest.length).toBeGreaterThan(5);
    }
    const forbidden = await t.graphql(`{ project(id: ${project.id}) { packagesProtectionRules { nodes { id } } } }`, {}, developer.token);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('may this push or delete happen? (wildcard matching)', () => {
  let guarded: { id: number; path_with_namespace: string };
  beforeAll(async () => {
    guarded = (
      await t
        .api('post', '/projects')
        .send({ name: 'Guarded', namespace_id: (await t.api('get', `/projects/${project.id}`).expect(200)).body.namespace.id })
        .expect(201)
    ).body;
    for (const body of [
      { package_name_pattern: '@acme/*', package_type: 'npm', minimum_access_level_for_push: 'maintainer' },
      { package_name_pattern: '@acme/core-*-lib', package_type: 'npm', minimum_access_level_for_push: 'owner' },
      { package_name_pattern: 'Secret_pkg', package_type: 'pypi', minimum_access_level_for_push: 'admin' },
    ]) {
      await t.api('post', rules(guarded.id)).send(body).expect(201);
    }
    await flag(true);
    await t.api('post', rules(guarded.id)).send({ package_name_pattern: 'exact', package_type: 'npm', minimum_access_level_for_delete: 'owner' }).expect(201);
    await flag(false);
  });

  const ask = async (token: string, packageName: string, packageType: string, action: string, userId?: number) => {
    const res = await t.graphql(
      `query($name: String!, $type: PackagesProtectionRulePackageType!, $action: PackagesProtectionRuleAction!, $userId: Int) {
        project(id: ${guarded.id}) { packageProtection(packageName: $name, packageType: $type, action: $action, userId: $userId) { protected accessLevel rule { packageNamePattern } } } }`,
      { name: packageName, type: packageType, action, userId },
      token,
    );
    if (res.body.errors) return res.body.errors[0].extensions.code as string;
    const decision = res.body.data.project.packageProtection;
    return decision.protected ? decision.rule.packageNamePattern : false;
  };

  const pushes: [string, string, string, string | false][] = [
    ['developer', '@acme/anything', 'NPM', '@acme/*'],
    ['developer', '@ACME/Anything', 'NPM', '@acme/*'], // case-insensitive
    ['developer', '@acme', 'NPM', false], // the pattern needs the slash
    ['developer', '@other/anything', 'NPM', false],
    ['developer', '@acme/anything', 'PYPI', false], // rules are per package type
    ['developer', '@acme/core-x-lib', 'NPM', '@acme/core-*-lib'], // the strictest matching rule
    ['developer', '@acme/core--lib', 'NPM', '@acme/core-*-lib'], // `*` matches an empty run too
    ['developer', '@acme/core-x-lib2', 'NPM', '@acme/*'], // the pattern covers the whole name
    ['maintainer', '@acme/anything', 'NPM', false], // Maintainer is enough for a maintainer rule
    ['maintainer', '@acme/core-x-lib', 'NPM', '@acme/core-*-lib'],
    ['owner', '@acme/core-x-lib', 'NPM', false],
    ['owner', 'secret_pkg', 'PYPI', 'Secret_pkg'], // admin-only rule
    ['owner', 'secretXpkg', 'PYPI', false], // `_` is a literal, not SQL's one-character wildcard
    ['owner', 'secret%pkg', 'PYPI', false],
    ['root', 'secret_pkg', 'PYPI', false], // administrators pass every rule
  ];
  it.each(pushes)('push: %s pushing %s (%s) → %s', async (who, name, type, expected) => {
    const token = who === 'root' ? t.root.token : { developer, maintainer, owner }[who as 'developer']!.token;
    expect(await ask(token, name, type, 'PUSH')).toBe(expected);
  });

  it('delete: rules apply only while the flag is on', async () => {
    expect(await ask(developer.token, 'exact', 'NPM', 'DELETE')).toBe(false);
    await flag(true);
    try {
      expect(await ask(developer.token, 'exact', 'NPM', 'DELETE')).toBe('exact');
      expect(await ask(maintainer.token, 'EXACT', 'NPM', 'DELETE')).toBe('exact');
      expect(await ask(owner.token, 'exact', 'NPM', 'DELETE')).toBe(false);
      expect(await ask(developer.token, 'exactly', 'NPM', 'DELETE')).toBe(false);
      // Push rules do not guard deletion.
      expect(await ask(developer.token, '@acme/anything', 'NPM', 'DELETE')).toBe(false);
    } finally {
      await flag(false);
    }
  });

  it('answers for another user to maintainers only', async () => {
    expect(await ask(maintainer.token, '@acme/x', 'NPM', 'PUSH', developer.id)).toBe('@acme/*');
    expect(await ask(maintainer.token, '@acme/x', 'NPM', 'PUSH', stranger.id)).toBe('@acme/*');
    expect(await ask(developer.token, '@acme/x', 'NPM', 'PUSH', maintainer.id)).toBe('FORBIDDEN');
  });

  it('is one service function a registry can call', async () => {
    const ctx = createContext(t.deps, new Viewer(null, null));
    const target = await t.db.project.findUniqueOrThrow({ where: { id: guarded.id }, include: { namespace: true } });
    const dev = await t.db.user.findUniqueOrThrow({ where: { id: developer.id } });
    const decision = await packageProtectionFor(ctx, { project: target, user: dev, packageName: '@acme/core-1-lib', packageType: 'npm', action: 'push' });
    expect(decision).toMatchObject({ protected: true, accessLevel: 30, rule: { packageNamePattern: '@acme/core-*-lib', minimumAccessLevelForPush: 50 } });
    const anonymous = await packageProtectionFor(ctx, { project: target, user: null, packageName: 'unrelated', packageType: 'npm', action: 'push' });
    expect(anonymous).toEqual({ protected: false, rule: null, accessLevel: 0 });
    // The rules are matched in SQL: the statement count does not grow with the number of rules.
    const ask = () =>
      packageProtectionFor(createContext(t.deps, new Viewer(dev, null)), {
        project: target,
        user: dev,
        packageName: '@acme/x',
        packageType: 'npm',
        action: 'push',
      });
    const statements = async () => {
      t.queryCounter.reset();
      await ask();
      return t.queryCounter.count;
    };
    await expectCounterSees(t, ask);
    const few = await statements();
    expect(few).toBeGreaterThan(0);
    for (let i = 0; i < 30; i++)
      await t
        .api('post', rules(guarded.id))
        .send({ package_name_pattern: `@many/p${i}-*`, package_type: 'npm', minimum_access_level_for_push: 'owner' })
        .expect(201);
    expect(await statements()).toBe(few);
  });
});
