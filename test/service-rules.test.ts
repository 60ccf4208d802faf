// Rules that GitLab declares on its REST parameters, enforced by the services so that GraphQL
// obeys them too. Each GraphQL case here passed (or crashed) while the rule lived in rest.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1', ref: 'main' }).expect(201);
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1' }).expect(201);
});
afterAll(() => t.close());

/** A mutation's payload, with the codes the payload errors carried. */
async function payload(mutation: string, variables: Record<string, unknown> = {}, token?: string) {
  const res = await t.graphql(`mutation { ${mutation} }`, variables, token);
  expect(res.body.errors).toBeUndefined();
  const [data] = Object.values(res.body.data) as { errors: string[] }[];
  return { ...data, codes: (res.body.extensions?.payloadErrors ?? []).map((e: { code: string }) => e.code) };
}

describe('rules that moved from REST into the services, over GraphQL', () => {
  it('projectCreate needs a name or a path', async () => {
    const before = await t.db.project.count();
    const res = await payload('projectCreate(input: { description: "x" }) { project { id } errors }');
    expect(res).toEqual({ project: null, errors: ['name, path are missing, at least one parameter must be provided'], codes: ['BAD_PARAMETER'] });
    expect(await t.db.project.count()).toBe(before);
    // REST keeps Grape's body.
    await t.api('post', '/projects').send({ description: 'x' }).expect(400, { error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('projectUpdate needs at least one attribute', async () => {
    const res = await payload(`projectUpdate(input: { projectId: ${project.id} }) { project { id } errors }`);
    expect(res.errors).toEqual(['name, path, description, visibility, defaultBranch, topics are missing, at least one parameter must be provided']);
    await t.api('put', `/projects/${project.id}`).send({}).expect(400, {
      error: 'name, path, description, visibility, default_branch, topics are missing, at least one parameter must be provided',
    });
  });

  it('releaseAssetLinkUpdate needs a name or a url', async () => {
    const link = (await t.api('post', `/projects/${project.id}/releases/v1/assets/links`).send({ name: 'a', url: 'https://x.test/a' }).expect(201)).body;
    const res = await payload(`releaseAssetLinkUpdate(input: { id: "gid://gitlab/Releases::Link/${link.id}", linkType: IMAGE }) { link { linkType } errors }`);
    expect(res).toEqual({ link: null, errors: ['name, url are missing, at least one parameter must be provided'], codes: ['BAD_PARAMETER'] });
    expect((await t.db.releaseLink.findUniqueOrThrow({ where: { id: link.id } })).linkType).toBe('other');
  });

  it('releaseCreate and releaseUpdate take milestone titles or ids, never both', async () => {
    const milestone = (await t.api('get', `/projects/${project.id}/milestones`).expect(200)).body[0];
    const both = `milestones: ["M1"], milestoneIds: [${milestone.id}]`;
    const path = project.path_with_namespace;
    const created = await payload(`releaseCreate(input: { projectPath: "${path}", tagName: "v2", ref: "main", ${both} }) { release { tagName } errors }`);
    expect(created.errors).toEqual(['milestones, milestoneIds Cannot specify milestones and milestoneIds at the same time']);
    const updated = await payload(`releaseUpdate(input: { projectPath: "${path}", tagName: "v1", ${both} }) { release { tagName } errors }`);
    expect(updated.errors).toEqual(created.errors);
    expect(await t.db.release.count({ where: { tag: 'v2' } })).toBe(0);
    await t
      .api('post', `/projects/${project.id}/releases`)
      .send({ tag_name: 'v2', ref: 'main', milestones: ['M1'], milestone_ids: [milestone.id] })
      .expect(400, { error: 'milestones, milestone_ids Cannot specify milestones and milestone_ids at the same time' });
  });

  it('memberCreate and memberUpdate take GitLab access levels only (Minimal Access for groups only)', async () => {
    const u = await t.user();
    const bad = await payload(
      `memberCreate(input: { projectId: ${project.id}, userId: "gid://gitlab/User/${u.id}", accessLevel: 35 }) { member { id } errors }`,
    );
    expect(bad).toEqual({ member: null, errors: ['accessLevel does not have a valid value'], codes: ['BAD_PARAMETER'] });
    const minimal = await payload(
      `memberCreate(input: { projectId: ${project.id}, userId: "gid://gitlab/User/${u.id}", accessLevel: 5 }) { member { id } errors }`,
    );
    expect(minimal.errors).toEqual(['accessLevel does not have a valid value']);
    expect(await t.db.member.count({ where: { userId: u.id } })).toBe(0);
    await t
      .api('post', `/projects/${project.id}/members`)
      .send({ user_id: u.id, access_level: 35 })
      .expect(400, { error: 'access_level does not have a valid value' });
  });

  it('blame takes a positive, ordered line range, both ends or neither', async () => {
    const blame = async (args: string) => {
      const res = await t.graphql(
        `{ project(id: ${project.id}) { repository { blobs(paths: ["README.md"], ref: "main") { nodes { blame(${args}) { firstLine } } } } } }`,
      );
      return res.body.errors?.map((e: { message: string; extensions: { code: string } }) => [e.extensions.code, e.message]);
    };
    expect(await blame('fromLine: -1, toLine: 0')).toEqual([['BAD_PARAMETER', 'fromLine does not have a valid value, toLine does not have a valid value']]);
    expect(await blame('fromLine: 3, toLine: 2')).toEqual([['BAD_REQUEST', 'fromLine must be less than or equal to toLine']]);
    expect(await blame('fromLine: 2')).toEqual([['BAD_PARAMETER', 'fromLine, toLine provide all or none of parameters']]);
    expect(await blame('fromLine: 1, toLine: 1')).toBeUndefined();
  });

  it('userCreate needs a password or asks for a random one', async () => {
    const missing = await payload('userCreate(input: { username: "nopass", name: "N", email: "nopass@example.com" }) { user { id } errors }');
    expect(missing.errors).toEqual(['password, resetPassword, forceRandomPassword are missing, at least one parameter must be provided']);
    expect(await t.db.user.count({ where: { username: 'nopass' } })).toBe(0);
    const random = await payload(
      'userCreate(input: { username: "randpass", name: "R", email: "randpass@example.com", forceRandomPassword: true }) { user { username } errors }',
    );
    expect(random).toMatchObject({ user: { username: 'randpass' }, errors: [] });
    expect((await t.db.user.findFirstOrThrow({ where: { username: 'randpass' } })).passwordDigest).toBeNull();
    const reset = await t.api('post', '/users').send({ username: 'resetpass', name: 'R', email: 'resetpass@example.com', reset_password: true }).expect(201);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: reset.body.id } })).passwordDigest).toBeNull();
  });

  it('jobTokenCreate takes a positive lifetime', async () => {
    const u = await t.user();
    const res = await payload(`jobTokenCreate(input: { projectId: ${project.id}, userId: ${u.id}, expiresInMinutes: 0 }) { jobToken { token } errors }`);
    expect(res).toEqual({ jobToken: null, errors: ['expiresInMinutes does not have a valid value'], codes: ['BAD_PARAMETER'] });
    await t
      .api('post', '/admin/job_tokens')
      .send({ project_id: project.id, user_id: u.id, expires_in_minutes: 0 })
      .expect(400, { error: 'expires_in_minutes does not have a valid value' });
  });

  it('the latest-release permalink is built by the service: the same path over GraphQL', async () => {
    const query = `query($q: JSON, $s: String) { project(id: ${project.id}) { latestReleasePath(suffixPath: $s, query: $q) } }`;
    const res = await t.graphql(query, { s: 'downloads/bin/app', q: { order_by: 'created_at', include_html_description: 'true', private_token: 'secret' } });
    expect(res.body.data.project.latestReleasePath).toBe(`/api/v4/projects/${project.id}/releases/v1/downloads/bin/app?include_html_description=true`);
    const rest = await t
      .api('get', `/projects/${project.id}/releases/permalink/latest/downloads/bin/app?order_by=created_at&include_html_description=true`)
      .expect(302);
    expect(rest.headers.location).toBe(res.body.data.project.latestReleasePath);
    const traversal = await t.graphql(query, { s: '../x' });
    expect(traversal.body.errors[0]).toMatchObject({ message: 'suffixPath should be a valid file path', extensions: { code: 'BAD_PARAMETER' } });
  });
});

describe("GitLab's per-interface release rule, stated once in the service", () => {
  it('answers a Guest of a private project 403 over REST for one release, the latest and its downloads; GraphQL gives the release without code', async () => {
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    const base = `/projects/${project.id}/releases`;
    await t.api('get', `${base}/v1`, guest.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', `${base}/does-not-exist`, guest.token).expect(403);
    await t.api('get', `${base}/permalink/latest`, guest.token).expect(403);
    await t.api('get', `${base}/v1/downloads/bin/app`, guest.token).expect(403);
    // Lists and the release-links API stay open to the Guest, without code.
    const [listed] = (await t.api('get', base, guest.token).expect(200)).body;
    expect(listed.tag_name).toBe('v1');
    expect(listed.commit).toBeUndefined();
    await t.api('get', `${base}/v1/assets/links`, guest.token).expect(200);
    const gql = await t.graphql(`{ project(id: ${project.id}) { release(tagName: "v1") { tagName commit { sha } } latestReleasePath } }`, {}, guest.token);
    expect(gql.body.data.project).toEqual({ release: { tagName: 'v1', commit: null }, latestReleasePath: `/api/v4/projects/${project.id}/releases/v1` });
  });
});

describe("GitLab's per-interface rule for package protection levels, stated once in the service", () => {
  it('answers Grape 400 over REST when no level is sent, the model error over GraphQL', async () => {
    const rest = await t.api('post', `/projects/${project.id}/packages/protection/rules`).send({ package_name_pattern: 'x', package_type: 'npm' }).expect(400);
    expect(rest.body).toEqual({ error: 'minimum_access_level_for_push, minimum_access_level_for_delete are missing, at least one parameter must be provided' });
    const gql = await payload(
      `createPackagesProtectionRule(input: { projectId: ${project.id}, packageNamePattern: "x", packageType: NPM }) { packageProtectionRule { id } errors }`,
    );
    expect(gql).toEqual({
      packageProtectionRule: null,
      errors: ['A rule must have at least a minimum access role for push or delete.'],
      codes: ['UNPROCESSABLE'],
    });
  });
});

describe('one way to name a parent', () => {
  it('takes exactly one of projectPath, projectId, groupPath, groupId, and only the kinds a use case accepts', async () => {
    const u = await t.user();
    // Naming the parent is an argument error (top level), as GitLab's argument validation is.
    const both = await t.graphql(
      `mutation { memberCreate(input: { projectId: ${project.id}, groupPath: "acme", userId: "gid://gitlab/User/${u.id}", accessLevel: 20 }) { member { id } errors } }`,
    );
    expect(both.body.errors[0]).toMatchObject({
      message: 'exactly one of projectPath, projectId, groupPath, groupId must be given',
      extensions: { code: 'BAD_PARAMETER' },
    });
    expect(both.body.data.memberCreate).toBeNull();
    const none = await t.graphql('mutation { labelCreate(input: { title: "x", color: "red" }) { label { id } errors } }');
    expect(none.body.errors[0].message).toEqual(both.body.errors[0].message);
    const byGroup = await payload('labelCreate(input: { groupPath: "acme", title: "g", color: "red" }) { label { title isProjectLabel } errors }');
    expect(byGroup).toMatchObject({ label: { title: 'g', isProjectLabel: false }, errors: [] });
    const byProjectId = await payload(`milestoneCreate(input: { projectId: ${project.id}, title: "M2" }) { milestone { projectId } errors }`);
    expect(byProjectId).toMatchObject({ milestone: { projectId: project.id }, errors: [] });
    // A release belongs to a project: a group, or a project named twice, is refused.
    const twice = await t.graphql(
      `mutation { releaseDelete(input: { projectPath: "${project.path_with_namespace}", projectId: ${project.id}, tagName: "v1" }) { errors } }`,
    );
    expect(twice.body.errors[0]).toMatchObject({ message: 'exactly one of projectPath, projectId must be given', extensions: { code: 'BAD_PARAMETER' } });
    const hidden = await t.graphql(
      `mutation { memberCreate(input: { groupPath: "acme", userId: "gid://gitlab/User/${u.id}", accessLevel: 20 }) { errors } }`,
      {},
      u.token,
    );
    expect(hidden.body.errors[0]).toMatchObject({ message: 'Group not found', extensions: { code: 'NOT_FOUND' } });
  });

  it('gives Project and Group the same fields from one definition', async () => {
    const res = await t.graphql(`{
      project(id: ${project.id}) { labels(includeAncestorGroups: true) { nodes { title } } milestones { nodes { title } } projectMembers(relations: [DIRECT]) { nodes { user { username } } } }
      group(fullPath: "acme") { labels { nodes { title } } milestones { nodes { title } } groupMembers { nodes { user { username } } } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.group.labels.nodes).toEqual([{ title: 'g' }]);
    expect(res.body.data.project.labels.nodes).toEqual([{ title: 'g' }]);
    expect(res.body.data.project.milestones.nodes.map((m: { title: string }) => m.title).sort()).toEqual(['M1', 'M2']);
    expect(res.body.data.group.groupMembers.nodes).toEqual([{ user: { username: 'root' } }]);
  });
});
